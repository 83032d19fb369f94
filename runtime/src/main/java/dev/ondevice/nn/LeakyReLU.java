package dev.ondevice.nn;

import dev.ondevice.Tensor;

/**
 * {@code x} where {@code x > 0}, else {@code negativeSlope * x}: PyTorch's {@code nn.LeakyReLU}
 * (the gradient at 0 is {@code negativeSlope}, as there).
 */
public class LeakyReLU extends Layer {
  private final double negativeSlope;

  /** PyTorch's default slope, 0.01. */
  public LeakyReLU() {
    this(0.01);
  }

  /** The given slope for negative inputs. */
  public LeakyReLU(double negativeSlope) {
    this.negativeSlope = negativeSlope;
  }

  /** The activation of {@code x}. */
  @Override
  public Tensor forward(Tensor x) {
    return Tensor.where(x.gt(0.0), x, x.mul(negativeSlope));
  }

  @Override
  protected String describe() {
    return "negative_slope=" + negativeSlope;
  }
}
