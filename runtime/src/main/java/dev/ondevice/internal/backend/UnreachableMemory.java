package dev.ondevice.internal.backend;

import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;

/**
 * Reclaims memory the garbage collector cannot see: off-heap blocks (host buffers, device memory)
 * are handed back by cleaners once their storages are unreachable, but the collector, which sees
 * only the small storage objects, has no reason to run. Allocators ask for a collection when their
 * live bytes have grown, then wait for the cleaner thread to hand the unreachable blocks back.
 * Internal to the runtime.
 */
public final class UnreachableMemory {
  private UnreachableMemory() {}

  /**
   * Runs a collection, then polls {@code liveBytes} every 0.2 ms until the releases have started
   * and then paused, for about 10 ms at most. Returns the live bytes after the releases.
   */
  public static long collect(LongSupplier liveBytes) {
    System.gc();
    long last = liveBytes.getAsLong();
    boolean released = false;
    for (int i = 0; i < 50; i++) {
      LockSupport.parkNanos(200_000);
      long now = liveBytes.getAsLong();
      if (now != last) {
        released = true;
        last = now;
      } else if (released) {
        break;
      }
    }
    return last;
  }
}
