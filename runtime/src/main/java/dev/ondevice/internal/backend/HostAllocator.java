package dev.ondevice.internal.backend;

import java.lang.ref.Cleaner;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Host memory for tensors: direct buffers, cached by size class and reused when the storage that
 * held them is freed ({@link Storage#free}) or becomes unreachable, whichever comes first. Reuse
 * avoids the page faults and zeroing of fresh direct memory; the cache is a stack per size class,
 * so a freed block, still warm in the processor's caches, serves the next request of its class.
 * Pinned storages come from a pool of their own, of page-locked memory where a CUDA driver provides
 * it ({@link PinnedMemory}); a pinned block is reused only once the last asynchronous copy that
 * used it has finished ({@link HostBlock}).
 *
 * <p>Since the garbage collector does not see off-heap bytes, the allocator asks for a collection
 * when the live off-heap bytes have doubled since the last one (and exceed a floor, an eighth of
 * the maximum heap and at least 128 MiB by default, set with {@code -Dondevice.cpu.gcFloorMiB}).
 */
public final class HostAllocator {
  private static final Cleaner CLEANER = Cleaner.create();
  private static final long MiB = 1L << 20;

  /**
   * An eighth of the maximum heap, at least 128 MiB: a collection costs about 10 ms however little
   * the heap holds, and a training step frees a few MiB, so a low floor collects every few dozen
   * steps. The JDK itself lets direct memory grow to the whole maximum heap before it collects.
   */
  private static final long GC_FLOOR =
      Long.getLong(
              "ondevice.cpu.gcFloorMiB", Math.max(128, Runtime.getRuntime().maxMemory() / 8 / MiB))
          * MiB;

  /** The JDK's limit on direct memory, which host tensors live in. */
  private static final long DIRECT_LIMIT = DirectMemory.limit();

  /** At most half the direct-memory limit, so that the cache alone never starves new tensors. */
  private static final long CACHE_LIMIT =
      Math.min(
          Math.min(Runtime.getRuntime().maxMemory() / 2, DIRECT_LIMIT / 2),
          Long.getLong("ondevice.cpu.cacheMiB", 2048) * MiB);

  private static final Pool PAGEABLE = new Pool();
  private static final Pool PINNED = new Pool();
  private static volatile PinnedMemory pinnedSource;
  private static final AtomicLong LIVE = new AtomicLong();

  /**
   * The fewest live bytes since the last collection: what survived it, once its garbage is handed
   * back.
   */
  private static final AtomicLong LOW_WATER = new AtomicLong();

  private HostAllocator() {}

  /** Makes pinned storages page-locked memory from {@code source} from now on. */
  public static void usePinnedMemory(PinnedMemory source) {
    pinnedSource = source;
  }

  /** Rounds a request to its size class: powers of two up to 1 MiB, then whole MiB. */
  static long sizeClass(long bytes) {
    return SizeClasses.of(bytes, MiB);
  }

  /** Allocates storage of at least {@code bytes}; its contents are unspecified. */
  public static HostStorage allocate(Backend backend, long bytes, boolean pinned) {
    long size = sizeClass(bytes);
    if (size > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          "Cannot allocate "
              + bytes
              + " bytes on "
              + backend.device()
              + ": host tensors are limited to 2 GiB each in this runtime");
    }
    if (pinned) {
      Backends.deviceCount(
          DeviceId.CUDA_TYPE); // the CUDA driver, if there is one, provides the pinned memory
    }
    Pool pool = pinned ? PINNED : PAGEABLE;
    HostBlock block = pool.take(size);
    if (block == null) {
      maybeCollect(size);
      block = pool.take(size);
    }
    if (block == null) {
      block = freshOrRetry(backend, bytes, size, pinned);
    }
    LIVE.addAndGet(size);
    AtomicLong owner = null;
    if (backend instanceof HostBackend h && h.isAsync()) {
      owner = h.liveBytes();
      h.peakBytes().accumulateAndGet(owner.addAndGet(size), Math::max);
    }
    HostStorage storage = new HostStorage(backend, block, bytes);
    storage.releasedBy(CLEANER.register(storage, new Release(block, owner)));
    return storage;
  }

  /**
   * Fresh memory; when the JDK refuses it, as PyTorch's caching allocator does: gives the cache
   * back, collects (so that unreachable tensors give back theirs), and tries again.
   *
   * @throws RuntimeException the public out-of-memory exception ({@link Backends#outOfMemory}),
   *     saying what was asked, what is in use and cached, and how to raise the limit, if the memory
   *     is not there even then
   */
  private static HostBlock freshOrRetry(Backend backend, long bytes, long size, boolean pinned) {
    try {
      return fresh(size, pinned);
    } catch (OutOfMemoryError first) {
      long live = LIVE.get();
      long cached = cachedBytes();
      emptyCache();
      LOW_WATER.set(UnreachableMemory.collect(LIVE::get));
      try {
        return fresh(size, pinned);
      } catch (OutOfMemoryError second) {
        RuntimeException e =
            Backends.outOfMemory(
                DirectMemory.message(
                    backend.device().toString(), bytes, live, cached, LIVE.get(), DIRECT_LIMIT),
                second);
        e.addSuppressed(first);
        throw e;
      }
    }
  }

  private static HostBlock fresh(long size, boolean pinned) {
    PinnedMemory source = pinnedSource;
    ByteBuffer buffer =
        pinned && source != null
            ? source.allocate(size)
            : ByteBuffer.allocateDirect((int) size).order(ByteOrder.nativeOrder());
    return new HostBlock(buffer, size, pinned, pinned && source != null);
  }

  /** Bytes held by live storages. */
  static long liveBytes() {
    return LIVE.get();
  }

  /** Bytes cached for reuse. */
  static long cachedBytes() {
    return PAGEABLE.cached() + PINNED.cached();
  }

  /** Drops every cached block; page-locked ones are freed once no copy uses them. */
  static void emptyCache() {
    PAGEABLE.drain().forEach(HostAllocator::free);
    PINNED.drain().forEach(HostAllocator::free);
  }

  private static void free(HostBlock block) {
    PinnedMemory source = pinnedSource;
    if (block.pageLocked && source != null) {
      block.awaitIdle();
      source.free(block.buffer);
    }
  }

  /**
   * Collects when the live bytes passed twice what survived the last collection (and the floor), so
   * that this request reuses a block rather than faulting in fresh memory. What survived is the
   * low-water mark of the live bytes, not their count right after the collection: that still holds
   * garbage the cleaner has not reached, and a threshold built on it ratchets up at each collection
   * until fresh allocations, slow page faults, are the norm.
   */
  private static void maybeCollect(long size) {
    if (LIVE.get() + size <= Math.max(GC_FLOOR, 2 * LOW_WATER.get())) {
      return;
    }
    LOW_WATER.set(UnreachableMemory.collect(LIVE::get));
  }

  /** Cached blocks of one kind, by size class. */
  private static final class Pool {
    private final Map<Long, ArrayDeque<HostBlock>> free = new HashMap<>();
    private long cached;

    /** A cached block of {@code size} that no copy uses any more, or null. */
    synchronized HostBlock take(long size) {
      ArrayDeque<HostBlock> q = free.get(size);
      if (q == null) {
        return null;
      }
      for (Iterator<HostBlock> it = q.iterator(); it.hasNext(); ) {
        HostBlock b = it.next();
        if (b.idle()) {
          it.remove();
          cached -= size;
          return b;
        }
      }
      return null;
    }

    /** Caches {@code block}; returns false when the cache is full. */
    synchronized boolean give(HostBlock block) {
      if (cached + block.size > CACHE_LIMIT) {
        return false;
      }
      free.computeIfAbsent(block.size, s -> new ArrayDeque<>()).push(block);
      cached += block.size;
      return true;
    }

    synchronized long cached() {
      return cached;
    }

    /** Removes and returns every cached block. */
    synchronized ArrayDeque<HostBlock> drain() {
      ArrayDeque<HostBlock> all = new ArrayDeque<>();
      free.values().forEach(all::addAll);
      free.clear();
      cached = 0;
      return all;
    }
  }

  /**
   * Returns a block to the cache once its storage is freed or unreachable, whichever comes first (a
   * cleanable runs once). Holds no reference to the storage.
   */
  private static final class Release implements Runnable {
    private final HostBlock block;
    private final AtomicLong owner;

    Release(HostBlock block, AtomicLong owner) {
      this.block = block;
      this.owner = owner;
    }

    @Override
    public void run() {
      if (owner != null) {
        owner.addAndGet(-block.size);
      }
      LOW_WATER.accumulateAndGet(LIVE.addAndGet(-block.size), Math::min);
      if (!(block.pinned ? PINNED : PAGEABLE).give(block)) {
        free(block);
      }
    }
  }
}
