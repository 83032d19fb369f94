package dev.ondevice.internal.cpu;

/**
 * The Gauss error function, which {@code java.lang.Math} lacks, to a few units in the last place of
 * a double. It sums the series {@code erf(x) = 2/sqrt(pi) * exp(-x^2) * sum over n of 2^n x^(2n+1)
 * / (1*3*...*(2n+1))}, whose terms all have the sign of x, so nothing cancels; beyond |x| = 6 erf
 * is 1 to double precision.
 */
final class ErrorFunction {
  private static final double TWO_OVER_SQRT_PI = 2 / Math.sqrt(Math.PI);
  private static final double SATURATION = 6;

  private ErrorFunction() {}

  /** erf(x); NaN for NaN. */
  static double erf(double x) {
    if (Double.isNaN(x)) {
      return x;
    }
    if (Math.abs(x) >= SATURATION) {
      return Math.signum(x);
    }
    double twoXSquared = 2 * x * x;
    double term = x;
    double sum = x;
    for (int n = 1; Math.abs(term) > Math.abs(sum) * 1e-17; n++) {
      term *= twoXSquared / (2 * n + 1);
      sum += term;
    }
    return TWO_OVER_SQRT_PI * Math.exp(-x * x) * sum;
  }
}
