package dev.ondevice.internal.cuda;

import dev.ondevice.internal.backend.Backends;
import dev.ondevice.internal.backend.Bytes;
import dev.ondevice.internal.backend.SizeClasses;
import dev.ondevice.internal.backend.UnreachableMemory;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The caching allocator of one device, in the manner of PyTorch's: blocks freed by tensors are kept
 * by size class and handed out again without a driver call, since {@code cuMemAlloc} is slow and
 * {@code cuMemFree} synchronises the device. Reuse needs no synchronisation either: every kernel of
 * a device runs on its one stream, so work queued by a block's next owner runs after the work of
 * its last one.
 *
 * <p>Tensors release their blocks when the runtime frees them ({@code Storage.free}: dead
 * intermediate gradients, {@code zeroGrad}, a memory scope), which the next request of the class
 * may take at once, by the same stream-order argument; otherwise when they become unreachable,
 * which the garbage collector, seeing only small objects, learns late; so the allocator asks for a
 * collection when its live bytes have doubled since the last one and exceed a floor (an eighth of
 * the device, at least 256 MiB), and before it gives up on a request. Internal to the runtime.
 */
final class CachingAllocator {
  private static final long MiB = 1L << 20;
  private static final long LARGE_STEP = 2 * MiB;

  private final String device;
  private final DeviceMemory memory;
  private final Runnable quiesce;
  private final long gcFloor;
  private final Map<Long, ArrayDeque<Long>> free = new HashMap<>();
  private long allocated;
  private long cached;
  private long peak;
  private long lowWater;
  private long driverAllocations;

  /**
   * The allocator of {@code device}'s {@code memory}; {@code quiesce} waits for the device's queued
   * work, which may still use cached blocks, before they are given back to the driver.
   */
  CachingAllocator(String device, DeviceMemory memory, Runnable quiesce) {
    this.device = device;
    this.memory = memory;
    this.quiesce = quiesce;
    this.gcFloor = Math.max(256 * MiB, memory.totalBytes() / 8);
  }

  /** A block of device memory: its address and the size class it was allocated for. */
  record Block(long address, long size) {}

  /** Rounds a request to its size class: powers of two up to 1 MiB, then multiples of 2 MiB. */
  static long sizeClass(long bytes) {
    return SizeClasses.of(bytes, LARGE_STEP);
  }

  /**
   * A block of at least {@code bytes}: a cached one of its class, else fresh memory from the driver
   * after a collection, and after emptying the cache if the driver has none.
   *
   * @throws RuntimeException the public out-of-memory exception ({@link Backends#outOfMemory}) if
   *     the device has no memory for it even then
   */
  Block allocate(long bytes) {
    if (bytes < 0) {
      throw new IllegalArgumentException("Cannot allocate " + bytes + " bytes on " + device);
    }
    long size = sizeClass(bytes);
    Block b = takeCached(size);
    if (b == null && needsCollection(size)) {
      collect();
      b = takeCached(size);
    }
    if (b == null) {
      b = fresh(size);
    }
    if (b == null) {
      collect();
      b = takeCached(size);
      if (b == null) {
        emptyCache();
        b = fresh(size);
      }
    }
    if (b == null) {
      throw outOfMemory(bytes);
    }
    synchronized (this) {
      allocated += size;
      peak = Math.max(peak, allocated);
    }
    return b;
  }

  /** Takes a block back from a tensor that no longer needs it; it is cached for reuse. */
  synchronized void release(Block b) {
    allocated -= b.size();
    lowWater = Math.min(lowWater, allocated);
    free.computeIfAbsent(b.size(), s -> new ArrayDeque<>()).push(b.address());
    cached += b.size();
  }

  /**
   * Frees every cached block, once the device's queued work (which may still use them) has run;
   * returns how many bytes went back to the driver.
   */
  long emptyCache() {
    quiesce.run();
    ArrayDeque<Block> blocks = new ArrayDeque<>();
    synchronized (this) {
      free.forEach((size, addresses) -> addresses.forEach(a -> blocks.add(new Block(a, size))));
      free.clear();
      cached = 0;
    }
    long bytes = 0;
    for (Block b : blocks) {
      memory.free(b.address());
      bytes += b.size();
    }
    return bytes;
  }

  /** Bytes held by live tensors (by size class). */
  synchronized long allocatedBytes() {
    return allocated;
  }

  /** Bytes held from the driver: allocated plus cached. */
  synchronized long reservedBytes() {
    return allocated + cached;
  }

  /** The most bytes allocated at once so far. */
  synchronized long peakAllocatedBytes() {
    return peak;
  }

  /** Sets the peak to the bytes allocated now. */
  synchronized void resetPeak() {
    peak = allocated;
  }

  /** How many blocks came from the driver rather than from the cache. */
  synchronized long driverAllocations() {
    return driverAllocations;
  }

  private synchronized Block takeCached(long size) {
    ArrayDeque<Long> q = free.get(size);
    if (q == null || q.isEmpty()) {
      return null;
    }
    cached -= size;
    return new Block(q.pop(), size);
  }

  private synchronized boolean needsCollection(long size) {
    return allocated + size > Math.max(gcFloor, 2 * lowWater);
  }

  private void collect() {
    long live = UnreachableMemory.collect(this::allocatedBytes);
    synchronized (this) {
      lowWater = live;
    }
  }

  private Block fresh(long size) {
    long address = memory.allocate(size);
    if (address == 0) {
      return null;
    }
    synchronized (this) {
      driverAllocations++;
    }
    return new Block(address, size);
  }

  private RuntimeException outOfMemory(long bytes) {
    long total = memory.totalBytes();
    long available = memory.freeBytes();
    long held;
    long reserved;
    synchronized (this) {
      held = allocated;
      reserved = allocated + cached;
    }
    return Backends.outOfMemory(
        String.format(
            Locale.ROOT,
            "CUDA out of memory on %s: tried to allocate %s (the device has %s in total, %s free; tensors hold %s"
                + " and the caching allocator reserves %s more). Free the tensors you no longer need or use smaller"
                + " batches",
            device,
            Bytes.human(bytes),
            Bytes.human(total),
            Bytes.human(available),
            Bytes.human(held),
            Bytes.human(reserved - held)),
        null);
  }
}
