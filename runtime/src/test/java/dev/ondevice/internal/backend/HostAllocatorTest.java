package dev.ondevice.internal.backend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.lang.ref.WeakReference;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Host memory: size classes, reuse of blocks whose storage became unreachable, live-byte accounting
 * and emptying the cache.
 *
 * <p>Other tests in this JVM leave garbage that the cleaner may return to the cache at any time, so
 * the reuse tests use a size class nobody else allocates (13 MiB), let earlier garbage settle
 * first, and check identities of blocks rather than only totals.
 */
class HostAllocatorTest {
  private static final long KiB = 1L << 10;
  private static final long MiB = 1L << 20;

  /** A size in the 13 MiB class, used by no other test. */
  private static final long ODD_SIZE = 13 * MiB - 100;

  private static final long ODD_CLASS = 13 * MiB;

  private static HostBackend cpu() {
    return Backends.cpu();
  }

  // ---------------------------------------------------------------- size classes

  @ParameterizedTest(name = "{0} bytes -> {1}")
  @CsvSource({
    "0, 512",
    "1, 512",
    "511, 512",
    "512, 512",
    "513, 1024",
    "1000, 1024",
    "1024, 1024",
    "1025, 2048",
    "4096, 4096",
    "65535, 65536",
    "65536, 65536",
    "65537, 131072",
    "524289, 1048576",
    "1048575, 1048576",
    "1048576, 1048576",
    "1048577, 2097152",
    "2097152, 2097152",
    "3145727, 3145728",
    "3145728, 3145728",
    "3145729, 4194304",
    "13631388, 13631488"
  })
  void sizeClasses(long bytes, long expected) {
    assertEquals(expected, HostAllocator.sizeClass(bytes));
  }

  @Test
  void sizeClassesArePowersOfTwoUpToOneMiBThenWholeMiB() {
    for (long bytes = 1; bytes <= 64 * MiB; bytes = bytes * 3 / 2 + 1) {
      long c = HostAllocator.sizeClass(bytes);
      assertTrue(c >= bytes, bytes + " -> " + c);
      assertEquals(c, HostAllocator.sizeClass(c), "a class is its own class: " + c);
      if (c <= MiB) {
        assertEquals(1, Long.bitCount(c), "a power of two: " + c);
        assertTrue(
            c == 512 || c < 2 * bytes, "less than double the request: " + bytes + " -> " + c);
      } else {
        assertEquals(0, c % MiB, "whole MiB: " + c);
        assertTrue(c - bytes < MiB, "less than a MiB more than the request: " + bytes + " -> " + c);
      }
      assertTrue(HostAllocator.sizeClass(bytes + 1) >= c, "monotonic at " + bytes);
    }
  }

  // ---------------------------------------------------------------- allocation

  @Test
  void storageHasTheRequestedSizeInABlockOfItsClass() {
    HostStorage s = HostAllocator.allocate(cpu(), 3000, false);
    assertEquals(3000, s.byteSize());
    assertEquals(4 * KiB, s.bytes().capacity());
    assertSame(ByteOrder.nativeOrder(), s.bytes().order());
    assertTrue(s.bytes().isDirect());
    assertSame(cpu(), s.backend());
    assertTrue(!s.isPinned());
    assertTrue(HostAllocator.allocate(cpu(), 100, true).isPinned());
  }

  @Test
  void liveBytesCountTheClassOfEachLiveStorage() {
    // Only the cleaner changes the count behind our back, and only downwards: retry until a
    // measurement is undisturbed.
    boolean exact = false;
    HostStorage keep = null;
    for (int attempt = 0; attempt < 20 && !exact; attempt++) {
      long before = HostAllocator.liveBytes();
      keep = HostAllocator.allocate(cpu(), 5000, false);
      long after = HostAllocator.liveBytes();
      exact = after - before == 8 * KiB;
      assertTrue(after - before <= 8 * KiB, "at most the class was added: " + (after - before));
    }
    assertTrue(exact, "an allocation of 5000 bytes adds its 8 KiB class to the live bytes");
    assertTrue(HostAllocator.liveBytes() >= keep.bytes().capacity());
  }

  @Test
  void blocksOverTwoGiBAreRefused() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> HostAllocator.allocate(cpu(), 3L << 30, false));
    assertTrue(e.getMessage().contains("2 GiB"), e.getMessage());
    assertTrue(e.getMessage().contains("cpu"), e.getMessage());
  }

  // ---------------------------------------------------------------- reuse

  private static void await(String what, BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + 60_000_000_000L;
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        fail("timed out waiting until " + what);
      }
      System.gc();
      Thread.sleep(20);
    }
  }

  /** Lets the garbage of earlier tests reach the cache, so that it no longer moves the counts. */
  private static void settle() throws InterruptedException {
    long[] last = {-1, -1};
    int[] quiet = {0};
    await(
        "the cache settles",
        () -> {
          long cached = HostAllocator.cachedBytes();
          long live = HostAllocator.liveBytes();
          quiet[0] = cached == last[0] && live == last[1] ? quiet[0] + 1 : 0;
          last[0] = cached;
          last[1] = live;
          return quiet[0] >= 5;
        });
  }

  /** Allocates a block of the odd class, drops its storage and waits until the block is cached. */
  private static ByteBuffer cacheOneOddBlock() throws InterruptedException {
    long cachedBefore = HostAllocator.cachedBytes();
    HostStorage s = HostAllocator.allocate(cpu(), ODD_SIZE, false);
    ByteBuffer block = s.bytes();
    assertEquals(ODD_CLASS, block.capacity());
    WeakReference<HostStorage> ref = new WeakReference<>(s);
    s = null;
    await("the storage is collected", () -> ref.get() == null);
    await("its block is cached", () -> HostAllocator.cachedBytes() >= cachedBefore + ODD_CLASS);
    return block;
  }

  @Test
  void aFreedBlockIsReusedForTheSameClass() throws InterruptedException {
    settle();
    HostAllocator.emptyCache();
    ByteBuffer block = cacheOneOddBlock();

    long cachedBefore = HostAllocator.cachedBytes();
    HostStorage again = HostAllocator.allocate(cpu(), ODD_CLASS - 5000, false);
    long cachedAfter = HostAllocator.cachedBytes();
    assertSame(block, again.bytes(), "the cached block is handed out again");
    assertEquals(cachedBefore - ODD_CLASS, cachedAfter, "and leaves the cache");
    assertEquals(ODD_CLASS - 5000, again.byteSize());
  }

  @Test
  void freeingReturnsTheLiveBytes() throws InterruptedException {
    settle();
    HostStorage s = HostAllocator.allocate(cpu(), ODD_SIZE, false);
    long live = HostAllocator.liveBytes();
    WeakReference<HostStorage> ref = new WeakReference<>(s);
    s = null;
    await("the storage is collected", () -> ref.get() == null);
    await("its bytes are no longer live", () -> HostAllocator.liveBytes() <= live - ODD_CLASS);
  }

  @Test
  void emptyCacheDropsTheCachedBlocks() throws InterruptedException {
    settle();
    HostAllocator.emptyCache();
    ByteBuffer block = cacheOneOddBlock();
    HostAllocator.emptyCache();
    assertTrue(HostAllocator.cachedBytes() < ODD_CLASS, "the cache was emptied");
    HostStorage fresh = HostAllocator.allocate(cpu(), ODD_SIZE, false);
    assertNotSame(block, fresh.bytes(), "a dropped block is not handed out again");
  }
}
