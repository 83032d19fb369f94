package dev.ondevice.nn;

import dev.ondevice.Tensor;

/**
 * The squared error {@code (input - target)^2} per element: PyTorch's {@code nn.MSELoss}. Input and
 * target are floating-point of one shape (PyTorch would broadcast with a warning; here different
 * shapes are an error).
 */
public class MseLoss extends Loss {
  /** The mean squared error. */
  public MseLoss() {
    this(Reduction.MEAN);
  }

  /** The squared errors reduced as {@code reduction} says. */
  public MseLoss(Reduction reduction) {
    super(reduction);
  }

  /**
   * The loss of {@code input} against {@code target}.
   *
   * @throws IllegalArgumentException naming the shapes if they differ or a dtype is not
   *     floating-point
   * @throws dev.ondevice.DeviceMismatchException if the target is on another device
   */
  @Override
  public Tensor forward(Tensor input, Tensor target) {
    ValueTargets.check("MseLoss", input, target);
    return reduce(input.sub(target).square());
  }
}
