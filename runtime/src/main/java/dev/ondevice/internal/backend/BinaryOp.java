package dev.ondevice.internal.backend;

/** Elementwise functions of two operands. */
public enum BinaryOp {
  ADD("add"),
  SUB("sub"),
  MUL("mul"),
  DIV("div"),
  POW("pow"),
  MAXIMUM("maximum"),
  MINIMUM("minimum"),
  EQ("eq"),
  NE("ne"),
  LT("lt"),
  LE("le"),
  GT("gt"),
  GE("ge"),
  LOGICAL_AND("logicalAnd"),
  LOGICAL_OR("logicalOr"),
  LOGICAL_XOR("logicalXor");

  private final String opName;

  BinaryOp(String opName) {
    this.opName = opName;
  }

  /** The name of the tensor method, used in error messages. */
  public String opName() {
    return opName;
  }

  /** Whether the result is bool. */
  public boolean isComparison() {
    return compareTo(EQ) >= 0;
  }

  /** Whether the operands are read as truth values. */
  public boolean isLogical() {
    return compareTo(LOGICAL_AND) >= 0;
  }
}
