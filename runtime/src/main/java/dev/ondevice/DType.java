package dev.ondevice;

/**
 * Element types of tensors. The order of the constants is the order of type promotion: {@code BOOL
 * < INT64 < FLOAT32 < FLOAT64}.
 */
public enum DType {
  /** Booleans, one byte each; the result of comparisons. */
  BOOL("bool", 1),
  /** 64-bit signed integers: indices and class labels. */
  INT64("int64", 8),
  /** 32-bit IEEE floats: the default floating type. */
  FLOAT32("float32", 4),
  /** 64-bit IEEE floats. */
  FLOAT64("float64", 8);

  private final String label;
  private final int byteSize;

  DType(String label, int byteSize) {
    this.label = label;
    this.byteSize = byteSize;
  }

  /** Bytes per element. */
  public int byteSize() {
    return byteSize;
  }

  /** Whether this is float32 or float64. */
  public boolean isFloatingPoint() {
    return this == FLOAT32 || this == FLOAT64;
  }

  /** The name used in printing, as in PyTorch: {@code float32}, {@code int64}. */
  public String label() {
    return label;
  }

  /** The type both operands of a binary op are promoted to. */
  public static DType promote(DType a, DType b) {
    return a.compareTo(b) >= 0 ? a : b;
  }

  @Override
  public String toString() {
    return label;
  }
}
