package dev.ondevice;

import java.util.concurrent.atomic.AtomicLong;

/**
 * A seedable source of random numbers for {@code rand}, {@code randn}, {@code randint} and {@code
 * bernoulli}. It is counter-based: every draw reserves a range of counters and element i of the
 * draw is a pure function of the seed and its counter, so the same seed gives the same numbers on
 * every device and with any number of threads.
 */
public final class Generator {
  /** PyTorch's default seed. */
  private static final long DEFAULT_SEED = 67280421310721L;

  private static final Generator DEFAULT = new Generator(DEFAULT_SEED);

  private volatile long seed;
  private final AtomicLong counter = new AtomicLong();

  /** A generator with the given seed. */
  public Generator(long seed) {
    this.seed = seed;
  }

  /** The generator factories use when none is given. */
  public static Generator defaultGenerator() {
    return DEFAULT;
  }

  /** Re-seeds the default generator, as {@code torch.manual_seed}. */
  public static void manualSeed(long seed) {
    DEFAULT.reseed(seed);
  }

  /** Restarts this generator from {@code seed}. */
  public synchronized void reseed(long seed) {
    this.seed = seed;
    counter.set(0);
  }

  /** The seed. */
  public long seed() {
    return seed;
  }

  /** Reserves {@code count} counters; returns the first. */
  long reserve(long count) {
    return counter.getAndAdd(count);
  }
}
