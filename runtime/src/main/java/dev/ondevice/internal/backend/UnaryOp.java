package dev.ondevice.internal.backend;

/** Elementwise functions of one operand. */
public enum UnaryOp {
  NEG,
  ABS,
  SIGN,
  SQUARE,
  RELU,
  EXP,
  LOG,
  LOG1P,
  EXPM1,
  SQRT,
  RSQRT,
  RECIPROCAL,
  SIN,
  COS,
  TANH,
  SIGMOID,
  ERF,
  FLOOR,
  CEIL,
  ROUND,
  LOGICAL_NOT;

  /** Whether the op is defined on integers (and keeps the integer type). */
  public boolean acceptsIntegers() {
    return this == NEG
        || this == ABS
        || this == SIGN
        || this == SQUARE
        || this == RELU
        || this == FLOOR
        || this == CEIL
        || this == ROUND;
  }
}
