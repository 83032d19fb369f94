package dev.ondevice.internal.cpu;

import dev.ondevice.internal.backend.HostStorage;
import dev.ondevice.internal.backend.RandomKind;
import dev.ondevice.internal.backend.ScalarType;
import dev.ondevice.internal.backend.Strided;

/**
 * Counter-based random numbers: element i of a draw is a pure function of (seed, counter + i), so
 * draws are reproducible, parallel, and the same on every backend that implements {@link #bits}.
 */
public final class RandomKernels {
  private static final double TWO_PI = 2 * Math.PI;
  private static final double INV_2_53 = 1.0 / (1L << 53);

  private RandomKernels() {}

  /** 64 random bits for (seed, counter): two rounds of the SplitMix64 finaliser. */
  public static long bits(long seed, long counter) {
    long z = seed * 0x9E3779B97F4A7C15L + counter * 0xD1B54A32D192ED03L + 0x632BE59BD9B4E019L;
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    z ^= z >>> 31;
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  /** A double uniform on [0, 1) for (seed, counter). */
  public static double uniform(long seed, long counter) {
    return (bits(seed, counter) >>> 11) * INV_2_53;
  }

  /**
   * Fills contiguous {@code out}; element i uses counters from {@code counter + i *
   * kind.countersPerElement()}.
   */
  public static void random(
      RandomKind kind, double a, double b, long seed, long counter, Strided out) {
    HostStorage s = out.host();
    ScalarType t = out.dtype();
    int base = out.offset();
    int per = kind.countersPerElement();
    Parallel.forRange(
        out.numel(),
        Loops.GRAIN,
        (from, to) -> {
          for (int i = from; i < to; i++) {
            long c = counter + (long) i * per;
            double v;
            switch (kind) {
              case UNIFORM -> {
                v = a + (b - a) * uniform(seed, c);
                if (t == ScalarType.FLOAT32 && (float) v >= b) {
                  v = Math.nextDown((float) b);
                }
              }
              case NORMAL -> {
                double u1 = 1.0 - uniform(seed, c);
                double u2 = uniform(seed, c + 1);
                v = a + b * Math.sqrt(-2 * Math.log(u1)) * Math.cos(TWO_PI * u2);
              }
              default -> {
                long range = (long) b - (long) a;
                long draw = (long) a + Math.floorMod(bits(seed, c) >>> 1, range);
                Elements.setLong(s, t, base + i, draw);
                continue;
              }
            }
            Elements.setDouble(s, t, base + i, v);
          }
        });
  }

  /** {@code out[i] = 1} with probability {@code p[i]}; out contiguous, p of the same sizes. */
  public static void bernoulli(Strided p, long seed, long counter, Strided out) {
    HostStorage ps = p.host();
    HostStorage os = out.host();
    Loops.forEach(
        out.sizes(),
        new int[][] {p.strides(), out.strides()},
        new int[] {p.offset(), out.offset()},
        (n, off, st) -> {
          for (int i = 0, q = off[0], r = off[1]; i < n; i++, q += st[0], r += st[1]) {
            double prob = Elements.getDouble(ps, p.dtype(), q);
            if (!(prob >= 0 && prob <= 1)) {
              throw new IllegalArgumentException(
                  "bernoulli: probabilities must be in [0, 1], got " + prob + " (argument 'p')");
            }
            long c = counter + (r - out.offset());
            Elements.setDouble(os, out.dtype(), r, uniform(seed, c) < prob ? 1 : 0);
          }
        });
  }

  /** {@code out[i] = start + i * step} on contiguous {@code out}. */
  public static void arange(double start, double step, Strided out) {
    HostStorage s = out.host();
    ScalarType t = out.dtype();
    int base = out.offset();
    Parallel.forRange(
        out.numel(),
        Loops.GRAIN,
        (from, to) -> {
          for (int i = from; i < to; i++) {
            Elements.setDouble(s, t, base + i, start + i * step);
          }
        });
  }
}
