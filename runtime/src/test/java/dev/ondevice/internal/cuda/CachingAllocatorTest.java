package dev.ondevice.internal.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ondevice.DeviceOutOfMemoryException;
import dev.ondevice.internal.backend.Bytes;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The caching allocator's bookkeeping, over a counted stand-in for the driver's memory: no GPU
 * needed.
 */
class CachingAllocatorTest {
  private static final long MiB = 1 << 20;

  /** Device memory of a fixed capacity whose allocations and frees are counted. */
  private static final class CountedMemory implements DeviceMemory {
    final long capacity;
    final Map<Long, Long> live = new HashMap<>();
    long next = 0x7000_0000_0000L;
    long used;
    int allocations;
    int frees;

    CountedMemory(long capacity) {
      this.capacity = capacity;
    }

    @Override
    public long allocate(long bytes) {
      if (used + bytes > capacity) {
        return 0;
      }
      allocations++;
      used += bytes;
      long a = next;
      next += bytes + 4096;
      live.put(a, bytes);
      return a;
    }

    @Override
    public void free(long address) {
      Long bytes = live.remove(address);
      if (bytes == null) {
        throw new AssertionError("freed twice or never allocated: " + address);
      }
      frees++;
      used -= bytes;
    }

    @Override
    public long totalBytes() {
      return capacity;
    }

    @Override
    public long freeBytes() {
      return capacity - used;
    }
  }

  @Test
  void sizeClassesArePowersOfTwoUpToOneMibThenMultiplesOfTwoMib() {
    assertEquals(512, CachingAllocator.sizeClass(0));
    assertEquals(512, CachingAllocator.sizeClass(1));
    assertEquals(512, CachingAllocator.sizeClass(512));
    assertEquals(1024, CachingAllocator.sizeClass(513));
    assertEquals(MiB, CachingAllocator.sizeClass(MiB));
    assertEquals(2 * MiB, CachingAllocator.sizeClass(MiB + 1));
    assertEquals(4 * MiB, CachingAllocator.sizeClass(2 * MiB + 1));
    assertEquals(1000 * MiB, CachingAllocator.sizeClass(999 * MiB));
    for (long b = 1; b < 64 * MiB; b = b * 3 + 7) {
      long c = CachingAllocator.sizeClass(b);
      assertTrue(c >= b, "a class holds its request: " + b);
      assertEquals(c, CachingAllocator.sizeClass(c), "a class is its own class: " + c);
    }
  }

  @Test
  void aReleasedBlockIsReusedForTheSameClassWithoutTheDriver() {
    CountedMemory memory = new CountedMemory(64 * MiB);
    CachingAllocator a = new CachingAllocator("cuda:0", memory, () -> {});
    CachingAllocator.Block first = a.allocate(3000);
    assertEquals(4096, first.size());
    a.release(first);
    CachingAllocator.Block again = a.allocate(4000);
    assertEquals(first.address(), again.address(), "the cached block is handed out again");
    assertEquals(1, memory.allocations, "one driver allocation for both");
    assertEquals(1, a.driverAllocations());
    CachingAllocator.Block other = a.allocate(5000);
    assertNotEquals(first.address(), other.address(), "another class needs fresh memory");
    assertEquals(2, memory.allocations);
  }

  @Test
  void allocatedReservedAndPeakFollowTheTensors() {
    CachingAllocator a = new CachingAllocator("cuda:0", new CountedMemory(64 * MiB), () -> {});
    CachingAllocator.Block x = a.allocate(3 * MiB);
    CachingAllocator.Block y = a.allocate(1000);
    assertEquals(4 * MiB + 1024, a.allocatedBytes());
    assertEquals(4 * MiB + 1024, a.reservedBytes());
    a.release(x);
    assertEquals(1024, a.allocatedBytes());
    assertEquals(
        4 * MiB + 1024, a.reservedBytes(), "the released block stays reserved in the cache");
    assertEquals(4 * MiB + 1024, a.peakAllocatedBytes());
    a.resetPeak();
    assertEquals(1024, a.peakAllocatedBytes());
    a.release(y);
    assertEquals(0, a.allocatedBytes());
  }

  @Test
  void emptyCacheGivesTheCachedBlocksBackToTheDriver() {
    CountedMemory memory = new CountedMemory(64 * MiB);
    CachingAllocator a = new CachingAllocator("cuda:0", memory, () -> {});
    CachingAllocator.Block keep = a.allocate(MiB);
    a.release(a.allocate(6 * MiB));
    a.release(a.allocate(100));
    assertEquals(6 * MiB + 512, a.emptyCache(), "the bytes given back");
    assertEquals(2, memory.frees);
    assertEquals(MiB, a.reservedBytes(), "only the live tensor's block is left");
    assertEquals(MiB, memory.used);
    a.release(keep);
  }

  @Test
  void theCacheIsFreedOnlyAfterTheDevicesQueuedWork() {
    CountedMemory memory = new CountedMemory(64 * MiB);
    int[] freesWhenQuiesced = {-1};
    CachingAllocator a =
        new CachingAllocator("cuda:0", memory, () -> freesWhenQuiesced[0] = memory.frees);
    a.release(a.allocate(4096));
    a.emptyCache();
    assertEquals(0, freesWhenQuiesced[0], "the device's work was waited for before the first free");
    assertEquals(1, memory.frees);
  }

  @Test
  void aFullDeviceFirstGivesItsCacheBack() {
    CountedMemory memory = new CountedMemory(10 * MiB);
    CachingAllocator a = new CachingAllocator("cuda:0", memory, () -> {});
    a.release(a.allocate(6 * MiB));
    CachingAllocator.Block big = a.allocate(8 * MiB);
    assertEquals(8 * MiB, big.size(), "the cached 6 MiB block was freed to make room");
    assertEquals(1, memory.frees);
  }

  @Test
  void outOfMemorySaysWhatWasAskedHeldAndReserved() {
    CachingAllocator a = new CachingAllocator("cuda:1", new CountedMemory(10 * MiB), () -> {});
    a.allocate(6 * MiB);
    DeviceOutOfMemoryException e =
        assertThrows(DeviceOutOfMemoryException.class, () -> a.allocate(5 * MiB));
    assertEquals(
        "CUDA out of memory on cuda:1: tried to allocate 5.00 MiB (the device has 10.00 MiB in total,"
            + " 4.00 MiB free; tensors hold 6.00 MiB and the caching allocator reserves 0 B more). Free the tensors you"
            + " no longer need or use smaller batches",
        e.getMessage());
  }

  @Test
  void negativeRequestsAreRefused() {
    CachingAllocator a = new CachingAllocator("cuda:0", new CountedMemory(MiB), () -> {});
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> a.allocate(-1));
    assertEquals("Cannot allocate -1 bytes on cuda:0", e.getMessage());
  }

  @Test
  void bytesForPeople() {
    assertEquals("0 B", Bytes.human(0));
    assertEquals("1023 B", Bytes.human(1023));
    assertEquals("1.00 KiB", Bytes.human(1024));
    assertEquals("1.50 GiB", Bytes.human(3L << 29));
  }
}
