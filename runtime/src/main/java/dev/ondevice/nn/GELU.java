package dev.ondevice.nn;

import dev.ondevice.Tensor;

/**
 * The Gaussian error linear unit {@code x * Phi(x)}, Phi the standard normal distribution function:
 * PyTorch's {@code nn.GELU}. By default the exact form {@code 0.5 * x * (1 + erf(x / sqrt(2)))},
 * PyTorch's default; with {@link Approximation#TANH}, PyTorch's {@code approximate='tanh'}: {@code
 * 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3)))}.
 */
public class GELU extends Layer {
  /** How Phi is computed. */
  public enum Approximation {
    /** Exactly, with the error function. */
    NONE,
    /** With the tanh approximation. */
    TANH
  }

  private static final double SQRT_HALF = Math.sqrt(0.5);
  private static final double SQRT_TWO_OVER_PI = Math.sqrt(2 / Math.PI);

  private final Approximation approximation;

  /** The exact GELU. */
  public GELU() {
    this(Approximation.NONE);
  }

  /** The GELU computed as {@code approximation} says. */
  public GELU(Approximation approximation) {
    this.approximation = approximation;
  }

  /** The activation of {@code x}. */
  @Override
  public Tensor forward(Tensor x) {
    Tensor twoPhiMinusOne =
        approximation == Approximation.TANH
            ? x.add(x.pow(3.0).mul(0.044715)).mul(SQRT_TWO_OVER_PI).tanh()
            : x.mul(SQRT_HALF).erf();
    return x.mul(twoPhiMinusOne.add(1.0)).mul(0.5);
  }

  @Override
  protected String describe() {
    return "approximate=" + approximation.name().toLowerCase(java.util.Locale.ROOT);
  }
}
