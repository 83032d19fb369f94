package dev.ondevice.backend;

import java.lang.ref.Cleaner;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Host memory for tensors: direct buffers, cached by size class and reused when the storage that
 * held them becomes unreachable. Reuse avoids the page faults and zeroing of fresh direct memory.
 *
 * <p>Since the garbage collector does not see off-heap bytes, the allocator asks for a collection
 * when the live off-heap bytes have doubled since the last one (and exceed a floor, 512 MiB by
 * default, set with {@code -Dondevice.cpu.gcFloorMiB}).
 */
final class HostAllocator {
  private static final Cleaner CLEANER = Cleaner.create();
  private static final long MIN_CLASS = 512;
  private static final long MiB = 1L << 20;
  private static final long GC_FLOOR = Long.getLong("ondevice.cpu.gcFloorMiB", 512) * MiB;
  private static final long CACHE_LIMIT =
      Math.min(Runtime.getRuntime().maxMemory() / 2, Long.getLong("ondevice.cpu.cacheMiB", 2048) * MiB);

  private static final Map<Long, ArrayDeque<ByteBuffer>> FREE = new HashMap<>();
  private static final AtomicLong LIVE = new AtomicLong();
  private static long cached;
  private static volatile long gcThreshold = GC_FLOOR;

  private HostAllocator() {}

  /** Rounds a request to its size class: powers of two up to 1 MiB, then whole MiB. */
  static long sizeClass(long bytes) {
    if (bytes <= MIN_CLASS) {
      return MIN_CLASS;
    }
    if (bytes <= MiB) {
      return Long.highestOneBit(bytes - 1) << 1;
    }
    return (bytes + MiB - 1) / MiB * MiB;
  }

  /** Allocates storage of at least {@code bytes}; its contents are unspecified. */
  static HostStorage allocate(Backend backend, long bytes, boolean pinned) {
    long size = sizeClass(bytes);
    if (size > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          "Cannot allocate " + bytes + " bytes on " + backend.device()
              + ": host tensors are limited to 2 GiB each in this runtime");
    }
    ByteBuffer buffer = takeCached(size);
    if (buffer == null) {
      buffer = maybeCollect(size);
    }
    if (buffer == null) {
      buffer = ByteBuffer.allocateDirect((int) size).order(ByteOrder.nativeOrder());
    }
    LIVE.addAndGet(size);
    HostStorage storage = new HostStorage(backend, buffer, bytes, pinned);
    CLEANER.register(storage, new Release(buffer, size));
    return storage;
  }

  /** Bytes held by live storages. */
  static long liveBytes() {
    return LIVE.get();
  }

  /** Bytes cached for reuse. */
  static synchronized long cachedBytes() {
    return cached;
  }

  /** Drops every cached block. */
  static synchronized void emptyCache() {
    FREE.clear();
    cached = 0;
  }

  private static synchronized ByteBuffer takeCached(long size) {
    ArrayDeque<ByteBuffer> q = FREE.get(size);
    if (q == null || q.isEmpty()) {
      return null;
    }
    cached -= size;
    return q.pop();
  }

  private static synchronized void giveBack(ByteBuffer buffer, long size) {
    if (cached + size > CACHE_LIMIT) {
      return;
    }
    FREE.computeIfAbsent(size, s -> new ArrayDeque<>()).push(buffer);
    cached += size;
  }

  /**
   * Collects when the live bytes passed the threshold, waits for the cleaner (its own thread, as
   * for the JDK's direct memory) to hand the unreachable blocks back, and sets the next threshold
   * from what is still live: a block is then reused rather than freshly faulted in. The threshold
   * must not count the garbage, or it doubles at each collection and half the allocations are
   * fresh. Returns a cached block of {@code size}, or null.
   */
  private static ByteBuffer maybeCollect(long size) {
    if (LIVE.get() + size <= gcThreshold) {
      return null;
    }
    System.gc();
    long before = -1;
    for (int i = 0; i < 50 && LIVE.get() != before; i++) {
      before = LIVE.get();
      try {
        Thread.sleep(1);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    gcThreshold = Math.max(GC_FLOOR, 2 * (LIVE.get() + size));
    return takeCached(size);
  }

  /** Returns a block to the cache once its storage is unreachable. Holds no reference to it. */
  private static final class Release implements Runnable {
    private final ByteBuffer buffer;
    private final long size;

    Release(ByteBuffer buffer, long size) {
      this.buffer = buffer;
      this.size = size;
    }

    @Override
    public void run() {
      LIVE.addAndGet(-size);
      giveBack(buffer, size);
    }
  }
}
