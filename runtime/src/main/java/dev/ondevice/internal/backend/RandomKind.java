package dev.ondevice.internal.backend;

/** Distributions the random kernels draw from. */
public enum RandomKind {
  /** Uniform on [a, b). */
  UNIFORM,
  /** Normal with mean a and standard deviation b. */
  NORMAL,
  /** Integers uniform on [a, b). */
  INTEGERS;

  /**
   * Counters of the counter-based generator one element consumes: two for a normal draw (a
   * Box-Muller pair), one otherwise. Every backend draws element i from counters {@code counter + i
   * * countersPerElement()}, so that the CPU and CUDA draw the same numbers.
   */
  public int countersPerElement() {
    return this == NORMAL ? 2 : 1;
  }
}
