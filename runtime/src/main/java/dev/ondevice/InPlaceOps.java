package dev.ondevice;

import dev.ondevice.internal.backend.BinaryOp;
import dev.ondevice.internal.backend.Strided;
import dev.ondevice.internal.backend.Transfers;

/**
 * In-place ops: they write into the tensor's own memory and bump its version counter. They are not
 * recorded by autograd; on a tensor that requires grad they are allowed only inside {@link
 * Autograd#noGrad()}, as in optimizer updates.
 */
final class InPlaceOps {
  private InPlaceOps() {}

  private static void checkWritable(String op, Tensor self, Tensor other) {
    if (Autograd.isGradEnabled()
        && (self.requiresGrad() || (other != null && other.requiresGrad()))) {
      if (self.requiresGrad() && self.isLeaf()) {
        throw new IllegalStateException(
            op
                + ": a leaf tensor that requires grad cannot be modified in place"
                + " while gradients are recorded; do it inside Autograd.noGrad(), as optimizer updates do");
      }
      throw new IllegalStateException(
          op
              + ": in-place ops are not recorded by autograd; use the out-of-place"
              + " form, or run it inside Autograd.noGrad()");
    }
    int[] sizes = self.data.sizes();
    int[] strides = self.data.strides();
    for (int i = 0; i < sizes.length; i++) {
      if (sizes[i] > 1 && strides[i] == 0) {
        throw new IllegalStateException(
            op
                + ": this tensor is an expanded view whose elements share memory;"
                + " writing to it in place would write one element many times. Call clone() first");
      }
    }
  }

  private static Strided operand(String op, Tensor self, Tensor other) {
    int[] sizes = Checks.broadcast(op, self.data.sizes(), "self", other.data.sizes(), "other");
    if (!java.util.Arrays.equals(sizes, self.data.sizes())) {
      throw new IllegalArgumentException(
          op
              + ": argument 'other' of shape "
              + other.shape()
              + " does not broadcast to "
              + self.shape()
              + ", the shape of the in-place result");
    }
    return Views.expandData(other.data, sizes);
  }

  static Tensor binary(BinaryOp op, Tensor self, Tensor other) {
    String name = op.opName() + "i";
    Strided operand = operand(name, op, self, other);
    self.data.storage().backend().binary(op, self.data, operand, self.data);
    self.data.storage().bumpVersion();
    return self;
  }

  /** {@code self += alpha * other} in one pass, without a temporary. */
  static Tensor scaledAdd(Tensor self, Tensor other, double alpha) {
    Strided operand = operand("addi", BinaryOp.ADD, self, other);
    if (!self.dtype().isFloatingPoint() && alpha != Math.rint(alpha)) {
      throw new IllegalArgumentException(
          "addi: a non-integer alpha ("
              + alpha
              + ") cannot be applied in place to a"
              + " tensor of type "
              + self.dtype()
              + "; use the out-of-place add");
    }
    self.data.storage().backend().scaledAdd(self.data, operand, alpha);
    self.data.storage().bumpVersion();
    return self;
  }

  /**
   * Validates an in-place binary op and returns {@code other}, converted and broadcast to {@code
   * self}.
   */
  private static Strided operand(String name, BinaryOp op, Tensor self, Tensor other) {
    checkWritable(name, self, other);
    // The result stays in self, so only other may be a 0-dim CPU scalar beside another device.
    if (!other.device().equals(self.device()) && !Checks.isCpuScalar(other)) {
      throw new DeviceMismatchException(self.device(), other.device(), "other", name);
    }
    if (!other.device().equals(self.device())) {
      try (Autograd.Scope ignored = Autograd.noGrad()) {
        other = Pointwise.liftScalar(other, self.device());
      }
    }
    DType result = TypePromotion.of(self, other);
    if (op == BinaryOp.DIV && !result.isFloatingPoint()) {
      result = DType.FLOAT32;
    }
    if (result == DType.BOOL) {
      throw new IllegalArgumentException(
          name
              + ": arithmetic on two bool operands is not supported; convert self"
              + " with to(DType.INT64), or use logicalOr/logicalAnd");
    }
    // As in PyTorch, a result may be stored in a narrower type of its own category (float64 in
    // float32).
    if (result.compareTo(self.dtype()) > 0
        && !(result.isFloatingPoint() && self.dtype().isFloatingPoint())) {
      throw new IllegalArgumentException(
          name
              + ": the result type "
              + result
              + " cannot be stored in place in"
              + " a tensor of type "
              + self.dtype()
              + "; use the out-of-place "
              + op.opName());
    }
    Tensor converted = other.detach().to(self.dtype());
    return operand(name, self, converted);
  }

  static Tensor scalar(BinaryOp op, Tensor self, double s) {
    String name = op.opName() + "i";
    checkWritable(name, self, null);
    if (self.dtype() == DType.BOOL) {
      throw new IllegalArgumentException(
          name
              + ": the result of arithmetic cannot be stored in place in a tensor of"
              + " type bool; convert it with to(DType.INT64), or use the out-of-place "
              + op.opName());
    }
    if (!self.dtype().isFloatingPoint() && (op == BinaryOp.DIV || s != Math.rint(s))) {
      throw new IllegalArgumentException(
          name
              + ": the result of a non-integer operation cannot be stored in place"
              + " in a tensor of type "
              + self.dtype()
              + "; use the out-of-place "
              + op.opName());
    }
    self.data.storage().backend().binaryScalar(op, self.data, s, false, self.data);
    self.data.storage().bumpVersion();
    return self;
  }

  static Tensor fill(Tensor self, double value) {
    checkWritable("fill", self, null);
    self.data.storage().backend().fill(self.data, value);
    self.data.storage().bumpVersion();
    return self;
  }

  static Tensor copyFrom(Tensor self, Tensor src, boolean nonBlocking) {
    checkWritable("copyFrom", self, src);
    Strided from = operand("copyFrom", self, src);
    if (src.device().equals(self.device())) {
      self.data.storage().backend().copy(from, self.data);
    } else {
      Transfers.copyInto(from, self.data, nonBlocking);
    }
    self.data.storage().bumpVersion();
    return self;
  }
}
