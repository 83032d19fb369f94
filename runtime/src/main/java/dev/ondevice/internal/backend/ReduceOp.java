package dev.ondevice.internal.backend;

/** Reductions over dimensions. */
public enum ReduceOp {
  SUM,
  MEAN,
  PROD,
  MAX,
  MIN,
  ARGMAX,
  ARGMIN;

  /** Whether the op returns positions (int64) rather than values. */
  public boolean returnsIndices() {
    return this == ARGMAX || this == ARGMIN;
  }
}
