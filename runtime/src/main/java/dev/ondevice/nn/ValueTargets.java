package dev.ondevice.nn;

import dev.ondevice.Tensor;

/**
 * The value targets of {@link MseLoss} and {@link BceWithLogitsLoss}: floating-point, of the
 * input's shape.
 */
final class ValueTargets {
  private ValueTargets() {}

  /**
   * Checks {@code input} and {@code target} for the loss {@code loss}.
   *
   * @throws IllegalArgumentException naming the loss and both shapes when either is not
   *     floating-point or the shapes differ
   */
  static void check(String loss, Tensor input, Tensor target) {
    if (!input.dtype().isFloatingPoint() || !target.dtype().isFloatingPoint()) {
      throw new IllegalArgumentException(
          loss
              + ": input and target must be floating-point, got "
              + input.dtype()
              + " (input shape "
              + input.shape()
              + ") and "
              + target.dtype()
              + " (target shape "
              + target.shape()
              + ")");
    }
    if (!input.shape().equals(target.shape())) {
      throw new IllegalArgumentException(
          loss
              + ": target shape "
              + target.shape()
              + " does not match input shape "
              + input.shape()
              + "; they must be equal");
    }
  }
}
