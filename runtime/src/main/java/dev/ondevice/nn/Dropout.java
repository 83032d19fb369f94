package dev.ondevice.nn;

import dev.ondevice.Tensor;

/**
 * Zeroes each element with probability {@code p} in training mode and scales the others by {@code 1
 * / (1 - p)}, so that expectations are unchanged: PyTorch's {@code nn.Dropout}. In evaluation mode
 * it returns its input. The mask is drawn with {@link Tensor#bernoulli(Tensor)} in the input's
 * dtype, on the input's device, from the default generator.
 */
public class Dropout extends Layer {
  private final double p;

  /** Dropout with PyTorch's default probability 0.5. */
  public Dropout() {
    this(0.5);
  }

  /**
   * Dropout with probability {@code p}.
   *
   * @throws IllegalArgumentException unless {@code 0 <= p <= 1}
   */
  public Dropout(double p) {
    if (!(p >= 0 && p <= 1)) {
      throw new IllegalArgumentException(
          "Dropout: probability p must be between 0 and 1, got " + p);
    }
    this.p = p;
  }

  /** The probability of zeroing an element. */
  public double p() {
    return p;
  }

  /**
   * {@code x} with elements dropped and the rest scaled in training mode; {@code x} itself in
   * evaluation mode.
   */
  @Override
  public Tensor forward(Tensor x) {
    if (!isTraining() || p == 0) {
      return x;
    }
    Tensor keep = Tensor.bernoulli(Tensor.fullLike(x, 1 - p));
    return x.mul(keep.mul(p == 1 ? 0 : 1 / (1 - p)));
  }

  @Override
  protected String describe() {
    return "p=" + p;
  }
}
