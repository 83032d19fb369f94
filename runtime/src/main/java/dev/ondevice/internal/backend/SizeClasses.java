package dev.ondevice.internal.backend;

/**
 * The size classes that the host and device allocators cache blocks by: powers of two from 512
 * bytes up to 1 MiB, then multiples of a larger step, so that a freed block serves any request of
 * its class. Internal to the runtime.
 */
public final class SizeClasses {
  private static final long SMALLEST = 512;
  private static final long MiB = 1L << 20;

  private SizeClasses() {}

  /**
   * The class of a request of {@code bytes}: a power of two up to 1 MiB, else a multiple of {@code
   * largeStep}.
   */
  public static long of(long bytes, long largeStep) {
    if (bytes <= SMALLEST) {
      return SMALLEST;
    }
    if (bytes <= MiB) {
      return Long.highestOneBit(bytes - 1) << 1;
    }
    return (bytes + largeStep - 1) / largeStep * largeStep;
  }
}
