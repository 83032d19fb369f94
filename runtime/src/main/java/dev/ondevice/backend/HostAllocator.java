package dev.ondevice.backend;

import java.lang.ref.Cleaner;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Host memory for tensors: direct buffers, cached by size class and reused when the storage that
 * held them becomes unreachable. Reuse avoids the page faults and zeroing of fresh direct memory.
 *
 * <p>Since the garbage collector does not see off-heap bytes, the allocator asks for a collection
 * when the live off-heap bytes have doubled since the last one (and exceed a floor, an eighth of
 * the maximum heap and at least 128 MiB by default, set with {@code -Dondevice.cpu.gcFloorMiB}).
 */
final class HostAllocator {
  private static final Cleaner CLEANER = Cleaner.create();
  private static final long MIN_CLASS = 512;
  private static final long MiB = 1L << 20;
  /**
   * An eighth of the maximum heap, at least 128 MiB: a collection costs about 10 ms however little
   * the heap holds, and a training step frees a few MiB, so a low floor collects every few dozen
   * steps. The JDK itself lets direct memory grow to the whole maximum heap before it collects.
   */
  private static final long GC_FLOOR = Long.getLong("ondevice.cpu.gcFloorMiB",
      Math.max(128, Runtime.getRuntime().maxMemory() / 8 / MiB)) * MiB;
  private static final long CACHE_LIMIT =
      Math.min(Runtime.getRuntime().maxMemory() / 2, Long.getLong("ondevice.cpu.cacheMiB", 2048) * MiB);

  private static final Map<Long, ArrayDeque<ByteBuffer>> FREE = new HashMap<>();
  private static final AtomicLong LIVE = new AtomicLong();
  private static long cached;
  /** The fewest live bytes since the last collection: what survived it, once its garbage is handed back. */
  private static final AtomicLong LOW_WATER = new AtomicLong();

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
   * Collects when the live bytes passed twice what survived the last collection (and the floor),
   * then waits for the cleaner (its own thread, as for the JDK's direct memory) to hand the
   * unreachable blocks back, so that this request reuses one rather than faulting in fresh memory.
   * What survived is the low-water mark of the live bytes, not their count right after the
   * collection: that still holds garbage the cleaner has not reached, and a threshold built on it
   * ratchets up at each collection until fresh allocations, slow page faults, are the norm.
   * Returns a cached block of {@code size}, or null.
   */
  private static ByteBuffer maybeCollect(long size) {
    if (LIVE.get() + size <= Math.max(GC_FLOOR, 2 * LOW_WATER.get())) {
      return null;
    }
    System.gc();
    // Polls every 0.2 ms until the releases have started and then paused; at most about 10 ms.
    long last = LIVE.get();
    boolean released = false;
    for (int i = 0; i < 50; i++) {
      LockSupport.parkNanos(200_000);
      long now = LIVE.get();
      if (now != last) {
        released = true;
        last = now;
      } else if (released) {
        break;
      }
    }
    LOW_WATER.set(LIVE.get());
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
      LOW_WATER.accumulateAndGet(LIVE.addAndGet(-size), Math::min);
      giveBack(buffer, size);
    }
  }
}
