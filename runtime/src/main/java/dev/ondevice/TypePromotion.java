package dev.ondevice;

/**
 * PyTorch's result-type rules. Operands rank by priority: tensors with dimensions, then 0-dim
 * tensors, then Java scalars. The highest-priority operands decide the dtype, unless a
 * lower-priority one is of a higher category (bool, integer, floating): then a 0-dim tensor
 * contributes its dtype and a scalar the default of its category (int64 or float32).
 */
final class TypePromotion {
  private TypePromotion() {}

  private static int category(DType t) {
    return t == DType.BOOL ? 0 : t == DType.INT64 ? 1 : 2;
  }

  /** The result type of two tensor operands. */
  static DType of(Tensor a, Tensor b) {
    boolean aDims = a.dim() > 0;
    boolean bDims = b.dim() > 0;
    if (aDims == bDims) {
      return DType.promote(a.dtype(), b.dtype());
    }
    Tensor hi = aDims ? a : b;
    Tensor lo = aDims ? b : a;
    return category(lo.dtype()) > category(hi.dtype()) ? lo.dtype() : hi.dtype();
  }

  /** The result type of a tensor and a Java scalar ({@code integral} for long scalars). */
  static DType withScalar(Tensor a, boolean integral) {
    int scalarCategory = integral ? 1 : 2;
    if (scalarCategory <= category(a.dtype())) {
      return a.dtype();
    }
    return integral ? DType.INT64 : DType.FLOAT32;
  }
}
