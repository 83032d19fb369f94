package dev.ondevice.internal.backend;

/**
 * The element types backends compute with, in the order of the public {@code
 * dev.ondevice.ScalarType} (which the core maps onto these one to one, as PyTorch's {@code
 * torch.dtype} wraps c10's {@code ScalarType}). The backend layer sits below the core and so cannot
 * name {@code ScalarType}.
 */
public enum ScalarType {
  /** Booleans, one byte each. */
  BOOL("bool", 1),
  /** 64-bit signed integers. */
  INT64("int64", 8),
  /** 32-bit IEEE floats. */
  FLOAT32("float32", 4),
  /** 64-bit IEEE floats. */
  FLOAT64("float64", 8);

  private final String label;
  private final int byteSize;

  ScalarType(String label, int byteSize) {
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

  @Override
  public String toString() {
    return label;
  }
}
