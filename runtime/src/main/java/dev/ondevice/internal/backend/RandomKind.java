package dev.ondevice.internal.backend;

/** Distributions the random kernels draw from. */
public enum RandomKind {
  /** Uniform on [a, b). */
  UNIFORM,
  /** Normal with mean a and standard deviation b. */
  NORMAL,
  /** Integers uniform on [a, b). */
  INTEGERS
}
