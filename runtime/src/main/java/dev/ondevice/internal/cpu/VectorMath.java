package dev.ondevice.internal.cpu;

/**
 * {@code exp}, {@code log}, the logistic sigmoid and {@code tanh} of float arrays in float
 * arithmetic, with Cephes's polynomials ({@code expf}, {@code logf}, {@code tanhf}), written so
 * that C2 vectorises the polynomial loops: {@code Math.exp}, {@code Math.log} and {@code Math.tanh}
 * are scalar calls in double, about 15, 11 and 35 ns an element here. What C2 (JDK 17) does not
 * vectorise is a float's bits as an int and back, so each function is two or three loops over the
 * chunk: the arithmetic in float alone (vectorised), and a short scalar loop that moves exponents
 * between the bits and the values or picks a branch.
 *
 * <p>Accuracy, against the float64 {@code Math} function (for the sigmoid, {@code 1 / (1 +
 * Math.exp(-x))}) of the same float, over all 2^32 floats (measured once with a program that visits
 * them all; {@code VectorMathTest} checks a sweep of 17 million and the edge cases on every build),
 * in ulp of the result's float, subnormal results included: {@link #exp} at most 0.99, {@link #log}
 * 0.83, {@link #sigmoid} 2.40, {@link #tanh} 1.51 (the bounds below round these up). NaN gives NaN;
 * {@code exp(+inf) = +inf}, {@code exp(-inf) = 0}, {@code exp} overflows to {@code +inf} above
 * about 88.72 and underflows gradually to 0 below about -87.3; {@code log(±0) = -inf}, {@code
 * log(+inf) = +inf}, {@code log(x < 0) = NaN}; {@code sigmoid(±inf)} is 1 and 0; {@code tanh} keeps
 * the sign of zero.
 *
 * <p>The arrays are at least {@code n} long and distinct, except that {@code exp} and {@code log}
 * may write {@code out} over {@code x}; {@code scratch} is overwritten. Callers work in chunks that
 * stay in the L1 cache ({@link #CHUNK}).
 */
final class VectorMath {
  /** Floats per chunk: 4 KiB an array. */
  static final int CHUNK = 1024;

  /**
   * The error bound of {@link #exp} in ulp of the result: its largest over every float, 0.99,
   * rounded up.
   */
  static final double EXP_ULPS = 1;

  /**
   * The error bound of {@link #log} in ulp of the result: its largest over every float, 0.83,
   * rounded up.
   */
  static final double LOG_ULPS = 1;

  /**
   * The error bound of {@link #tanh} in ulp of the result: its largest over every float, 1.51,
   * rounded up.
   */
  static final double TANH_ULPS = 2;

  /**
   * The error bound of {@link #sigmoid} in ulp of the result: its largest over every float, 2.40,
   * rounded up.
   */
  static final double SIGMOID_ULPS = 2.5;

  private static final float LOG2E = 1.442695f;

  /**
   * ln 2 in two parts: the first, 0.693359375, has 9 significant bits, so that {@code k * LN2_HI}
   * is exact.
   */
  private static final float LN2_HI = 0.6933594f;

  private static final float LN2_LO = -2.1219444E-4f;

  /** 1.5 * 2^23: adding it rounds a float of magnitude below 2^22 to an integer. */
  private static final float ROUND = 12582912f;

  /** The bits of {@link #ROUND}; {@code bits(x + ROUND) - ROUND_BITS} is that integer. */
  private static final int ROUND_BITS = 0x4B400000;

  /**
   * Inputs of exp are clamped to this range, where every result is 0 or +inf outside it: {@code
   * exp(-104)} is below half the smallest subnormal, {@code exp(89)} above the largest float.
   */
  private static final float EXP_MIN = -104f;

  private static final float EXP_MAX = 89f;

  /** The bits of the float nearest sqrt(1/2), where log's reduced mantissas start. */
  private static final int SQRT_HALF_BITS = 0x3F3504F3;

  private VectorMath() {}

  /** {@code out[i] = exp(x[i])} for {@code i < n}. */
  static void exp(float[] x, float[] out, int n, float[] scratch) {
    for (int i = 0; i < n; i++) {
      // exp(v) = 2^k exp(r) with k = round(v / ln 2) and |r| <= ln 2 / 2; k is kept in the low
      // bits of t, as t's float value carries the rounding.
      float v = Math.min(Math.max(x[i], EXP_MIN), EXP_MAX);
      float t = v * LOG2E + ROUND;
      float k = t - ROUND;
      float r = (v - k * LN2_HI) - k * LN2_LO;
      float p = 1.9875691E-4f;
      p = p * r + 0.0013981999f;
      p = p * r + 0.008333452f;
      p = p * r + 0.041665796f;
      p = p * r + 0.16666666f;
      p = p * r + 0.5f;
      scratch[i] = t;
      out[i] = p * (r * r) + r + 1f;
    }
    for (int i = 0; i < n; i++) {
      out[i] = scaleByPowerOfTwo(out[i], Float.floatToRawIntBits(scratch[i]) - ROUND_BITS);
    }
  }

  /**
   * {@code p * 2^k} for {@code p} near 1, rounded once: one factor where {@code 2^k} is a normal
   * float, else two, so that the first product stays exact and the second rounds into the
   * subnormals or overflows as the exact product would.
   */
  private static float scaleByPowerOfTwo(float p, int k) {
    if (k >= -126 && k <= 127) {
      return p * Float.intBitsToFloat((k + 127) << 23);
    }
    int half = k >> 1;
    return p
        * Float.intBitsToFloat((half + 127) << 23)
        * Float.intBitsToFloat((k - half + 127) << 23);
  }

  /** {@code out[i] = log(x[i])} for {@code i < n}. */
  static void log(float[] x, float[] out, int n, float[] scratch) {
    boolean special = false;
    for (int i = 0; i < n; i++) {
      // x = 2^e (1 + f) with 1 + f in [sqrt(1/2), sqrt(2)): f in out, e in scratch. Adding the
      // distance from sqrt(1/2) to 1 to the bits carries into the exponent exactly where the
      // mantissa reaches sqrt(2), without a branch on the (random) mantissa.
      int bits = Float.floatToRawIntBits(x[i]);
      int e = 0;
      if (bits < 0x00800000 || bits >= 0x7F800000) {
        if (bits <= 0 || bits >= 0x7F800000) {
          special = true; // zero, negative, infinite or NaN: fixed below
          out[i] = 0;
          scratch[i] = 0;
          continue;
        }
        bits = Float.floatToRawIntBits(x[i] * 0x1p23f); // subnormal: made normal
        e = -23;
      }
      int shifted = bits + (0x3F800000 - SQRT_HALF_BITS);
      e += (shifted >> 23) - 127;
      out[i] = Float.intBitsToFloat((shifted & 0x007FFFFF) + SQRT_HALF_BITS) - 1f;
      scratch[i] = e;
    }
    for (int i = 0; i < n; i++) {
      float f = out[i];
      float e = scratch[i];
      float z = f * f;
      float y = 0.070376836f;
      y = y * f - 0.1151461f;
      y = y * f + 0.116769984f;
      y = y * f - 0.12420141f;
      y = y * f + 0.14249323f;
      y = y * f - 0.16668057f;
      y = y * f + 0.20000714f;
      y = y * f - 0.24999994f;
      y = y * f + 0.3333333f;
      y = y * f * z + e * LN2_LO - 0.5f * z;
      out[i] = f + y + e * LN2_HI;
    }
    if (special) {
      for (int i = 0; i < n; i++) {
        if (!(x[i] > 0 && x[i] < Float.POSITIVE_INFINITY)) {
          out[i] = (float) Math.log(x[i]);
        }
      }
    }
  }

  /**
   * {@code out[i] = 1 / (1 + exp(-x[i]))} for {@code i < n}, as {@code e / (1 + e)} with {@code e =
   * exp(-|x|)} for negative x (never overflowing, exact to the subnormals) and {@code 1 / (1 + e)}
   * for the others.
   */
  static void sigmoid(float[] x, float[] out, int n, float[] scratch) {
    for (int i = 0; i < n; i++) {
      out[i] = -Math.abs(x[i]);
    }
    exp(out, out, n, scratch);
    for (int i = 0; i < n; i++) {
      float e = out[i];
      // The numerator without a branch: 1 where x > 0 (e rounds to 1 where x is below 2^-60, so
      // max(e, ...) is 1 there too), e where x <= 0; NaN stays NaN.
      float numerator = Math.max(e, Math.min(Math.max(x[i] * 0x1p60f, 0f), 1f));
      out[i] = numerator / (1f + e);
    }
  }

  /**
   * {@code out[i] = tanh(x[i])} for {@code i < n}: {@code (1 - e) / (1 + e)} with {@code e =
   * exp(-2|x|)} where {@code |x| >= 0.625}, Cephes's odd polynomial below (where {@code 1 - e}
   * would cancel), the sign of x put back.
   */
  static void tanh(float[] x, float[] out, int n, float[] scratch) {
    for (int i = 0; i < n; i++) {
      out[i] = -2f * Math.abs(x[i]);
    }
    exp(out, out, n, scratch);
    for (int i = 0; i < n; i++) {
      float e = out[i];
      float a = Math.abs(x[i]);
      float z = a * a;
      float p = -0.0057049887f;
      p = p * z + 0.020639088f;
      p = p * z - 0.053739715f;
      p = p * z + 0.13331442f;
      p = p * z - 0.3333328f;
      scratch[i] = a + a * z * p;
      out[i] = (1f - e) / (1f + e);
    }
    for (int i = 0; i < n; i++) {
      out[i] = Math.copySign(Math.abs(x[i]) < 0.625f ? scratch[i] : out[i], x[i]);
    }
  }
}
