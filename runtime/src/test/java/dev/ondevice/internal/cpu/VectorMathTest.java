package dev.ondevice.internal.cpu;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ondevice.Tensor;
import java.util.Arrays;
import java.util.function.DoubleUnaryOperator;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * {@link VectorMath} against the float64 {@code Math} functions of the same floats: a sweep of
 * every 251st float bit pattern (about 17 million, every sign, exponent and range of results), and
 * the edge cases one by one, within the stated ulp bounds; and the float32 tensor ops that use it,
 * which give the same values in every layout.
 */
class VectorMathTest {
  private static final int STRIDE = 251;

  /** A float function of {@link VectorMath}'s signature. */
  @FunctionalInterface
  interface Kernel {
    void run(float[] x, float[] out, int n, float[] scratch);
  }

  /**
   * The error of {@code got} in ulp of the correctly rounded float of {@code exact}: 0 where equal
   * (infinities, zeros and NaN included), infinite where one is NaN or infinite and the other not.
   */
  static double ulps(float got, double exact) {
    float rounded = (float) exact;
    if (Float.isNaN(rounded) || Float.isNaN(got)) {
      return Float.isNaN(rounded) && Float.isNaN(got) ? 0 : Double.POSITIVE_INFINITY;
    }
    if (got == rounded) {
      return Float.floatToRawIntBits(got) == Float.floatToRawIntBits(rounded) || got != 0
          ? 0
          : Double.POSITIVE_INFINITY; // a zero of the wrong sign
    }
    if (Float.isInfinite(got)) {
      return Double.POSITIVE_INFINITY;
    }
    return Math.abs(got - exact) / Math.ulp(Float.isInfinite(rounded) ? Float.MAX_VALUE : rounded);
  }

  /** The largest error of {@code kernel} over {@code xs} against {@code exact}, with its input. */
  private static double[] worst(Kernel kernel, DoubleUnaryOperator exact, float[] xs) {
    float[] out = new float[xs.length];
    kernel.run(xs, out, xs.length, new float[xs.length]);
    double max = 0;
    double at = Double.NaN;
    for (int i = 0; i < xs.length; i++) {
      double e = ulps(out[i], exact.applyAsDouble(xs[i]));
      if (e > max) {
        max = e;
        at = xs[i];
      }
    }
    return new double[] {max, at};
  }

  /** The sweep, in chunks of {@link VectorMath#CHUNK} as the kernels' callers use them. */
  private static void assertSweepWithin(
      String name, Kernel kernel, DoubleUnaryOperator exact, double bound) {
    float[] chunk = new float[VectorMath.CHUNK];
    int filled = 0;
    double max = 0;
    double at = Double.NaN;
    for (long bits = 0; bits <= 0xFFFF_FFFFL; bits += STRIDE) {
      chunk[filled++] = Float.intBitsToFloat((int) bits);
      if (filled == chunk.length || bits + STRIDE > 0xFFFF_FFFFL) {
        double[] w = worst(kernel, exact, Arrays.copyOf(chunk, filled));
        if (w[0] > max) {
          max = w[0];
          at = w[1];
        }
        filled = 0;
      }
    }
    assertTrue(max <= bound, name + ": " + max + " ulp at " + (float) at + ", above " + bound);
  }

  private static void assertEachWithin(
      String name, Kernel kernel, DoubleUnaryOperator exact, double bound, float... xs) {
    float[] out = new float[xs.length];
    kernel.run(xs, out, xs.length, new float[xs.length]);
    for (int i = 0; i < xs.length; i++) {
      double e = ulps(out[i], exact.applyAsDouble(xs[i]));
      assertTrue(
          e <= bound,
          name + "(" + xs[i] + ") = " + out[i] + ", expected " + exact.applyAsDouble(xs[i]));
    }
  }

  private static double sigmoid(double x) {
    return x >= 0 ? 1 / (1 + Math.exp(-x)) : Math.exp(x) / (1 + Math.exp(x));
  }

  @Test
  void expIsWithinItsBoundOverTheWholeFloatRange() {
    assertSweepWithin("exp", VectorMath::exp, Math::exp, VectorMath.EXP_ULPS);
  }

  @Test
  void logIsWithinItsBoundOverTheWholeFloatRange() {
    assertSweepWithin("log", VectorMath::log, Math::log, VectorMath.LOG_ULPS);
  }

  @Test
  void sigmoidIsWithinItsBoundOverTheWholeFloatRange() {
    assertSweepWithin(
        "sigmoid", VectorMath::sigmoid, VectorMathTest::sigmoid, VectorMath.SIGMOID_ULPS);
  }

  @Test
  void tanhIsWithinItsBoundOverTheWholeFloatRange() {
    assertSweepWithin("tanh", VectorMath::tanh, Math::tanh, VectorMath.TANH_ULPS);
  }

  @Test
  void expAtItsEdges() {
    float overflow = (float) Math.log(Float.MAX_VALUE); // 88.72284
    float underflow = (float) Math.log(Float.MIN_VALUE); // -103.27893
    float lastNormal = (float) Math.log(Float.MIN_NORMAL); // -87.33655
    assertEachWithin(
        "exp",
        VectorMath::exp,
        Math::exp,
        VectorMath.EXP_ULPS,
        Float.NaN,
        Float.POSITIVE_INFINITY,
        Float.NEGATIVE_INFINITY,
        0f,
        -0f,
        Float.MIN_VALUE,
        -Float.MIN_VALUE,
        Float.MIN_NORMAL,
        Float.MAX_VALUE,
        -Float.MAX_VALUE,
        overflow,
        Math.nextDown(overflow),
        Math.nextUp(overflow),
        88.5f,
        89f,
        underflow,
        Math.nextDown(underflow),
        Math.nextUp(underflow),
        -103.97208f, // exp rounds to 0 below about here: half the smallest subnormal
        -103.9721f,
        -104f,
        -105f,
        lastNormal,
        Math.nextDown(lastNormal),
        Math.nextUp(lastNormal),
        -90f,
        -100f,
        1f,
        -1f,
        0.5f,
        1e-8f,
        -1e-8f);
    float[] out = new float[4];
    VectorMath.exp(
        new float[] {Float.NEGATIVE_INFINITY, -200f, 200f, Float.POSITIVE_INFINITY},
        out,
        4,
        new float[4]);
    assertArrayEquals(new float[] {0f, 0f, Float.POSITIVE_INFINITY, Float.POSITIVE_INFINITY}, out);
    float[] one = new float[2];
    VectorMath.exp(new float[] {0f, -0f}, one, 2, new float[2]);
    assertArrayEquals(new float[] {1f, 1f}, one);
  }

  @Test
  void logAtItsEdges() {
    assertEachWithin(
        "log",
        VectorMath::log,
        Math::log,
        VectorMath.LOG_ULPS,
        Float.NaN,
        Float.POSITIVE_INFINITY,
        Float.NEGATIVE_INFINITY,
        0f,
        -0f,
        -1f,
        -Float.MIN_VALUE,
        Float.MIN_VALUE,
        2 * Float.MIN_VALUE,
        Math.nextDown(Float.MIN_NORMAL),
        Float.MIN_NORMAL,
        Float.MAX_VALUE,
        1f,
        Math.nextUp(1f),
        Math.nextDown(1f),
        0.70710677f,
        0.7071068f,
        1.4142135f,
        2f,
        0.5f,
        10f,
        1e-30f,
        1e30f);
    float[] out = new float[4];
    VectorMath.log(new float[] {0f, -0f, -2f, Float.POSITIVE_INFINITY}, out, 4, new float[4]);
    assertEquals(Float.NEGATIVE_INFINITY, out[0]);
    assertEquals(Float.NEGATIVE_INFINITY, out[1]);
    assertTrue(Float.isNaN(out[2]));
    assertEquals(Float.POSITIVE_INFINITY, out[3]);
  }

  @Test
  void sigmoidAtItsEdges() {
    assertEachWithin(
        "sigmoid",
        VectorMath::sigmoid,
        VectorMathTest::sigmoid,
        VectorMath.SIGMOID_ULPS,
        Float.NaN,
        Float.POSITIVE_INFINITY,
        Float.NEGATIVE_INFINITY,
        0f,
        -0f,
        Float.MIN_VALUE,
        -Float.MIN_VALUE,
        1e-20f,
        -1e-20f,
        17f,
        -17f,
        88f,
        -88f,
        -90f, // a subnormal result
        -103f,
        -104f,
        -110f,
        Float.MAX_VALUE,
        -Float.MAX_VALUE);
  }

  @Test
  void tanhAtItsEdges() {
    assertEachWithin(
        "tanh",
        VectorMath::tanh,
        Math::tanh,
        VectorMath.TANH_ULPS,
        Float.NaN,
        Float.POSITIVE_INFINITY,
        Float.NEGATIVE_INFINITY,
        0f,
        -0f,
        Float.MIN_VALUE,
        -Float.MIN_VALUE,
        Float.MIN_NORMAL,
        1e-20f,
        0.625f,
        Math.nextDown(0.625f),
        Math.nextUp(0.625f),
        -0.625f,
        1f,
        -1f,
        9f,
        -9f,
        50f,
        Float.MAX_VALUE,
        -Float.MAX_VALUE);
    float[] zeros = new float[2];
    VectorMath.tanh(new float[] {0f, -0f}, zeros, 2, new float[2]);
    assertEquals(Float.floatToRawIntBits(0f), Float.floatToRawIntBits(zeros[0]));
    assertEquals(Float.floatToRawIntBits(-0f), Float.floatToRawIntBits(zeros[1]));
  }

  /** Float32 {@code exp}, {@code log}, {@code sigmoid} and {@code tanh} in three layouts. */
  @Test
  void tensorOpsGiveTheKernelsValuesInEveryLayout() {
    int n = 3000; // more than two chunks
    float[] values = new float[n];
    for (int i = 0; i < n; i++) {
      values[i] = (float) (Math.sin(i * 0.37) * 50);
    }
    Tensor x = Tensor.of(values, n);
    Tensor positive = x.abs();
    check("exp", x, Tensor::exp, VectorMath::exp);
    check("log", positive, Tensor::log, VectorMath::log);
    check("sigmoid", x, Tensor::sigmoid, VectorMath::sigmoid);
    check("tanh", x, Tensor::tanh, VectorMath::tanh);
  }

  private static void check(String name, Tensor x, UnaryOperator<Tensor> op, Kernel kernel) {
    float[] in = x.toFloatArray();
    float[] expected = new float[in.length];
    kernel.run(in, expected, in.length, new float[in.length]);
    assertArrayEquals(expected, op.apply(x).toFloatArray(), name + ", contiguous");
    // Every other element, from a [n/2, 2] transposed view: a strided row.
    Tensor strided = x.reshape(in.length / 2, 2).t();
    float[] evens = new float[in.length / 2];
    for (int i = 0; i < evens.length; i++) {
      evens[i] = expected[2 * i];
    }
    assertArrayEquals(evens, op.apply(strided).select(0, 0).toFloatArray(), name + ", strided");
    // Short rows of 5, below the length where other ops leave their fast paths.
    Tensor rows = x.slice(0, 0, 25).reshape(5, 5);
    assertArrayEquals(
        Arrays.copyOf(expected, 25), op.apply(rows).reshape(25).toFloatArray(), name + ", rows");
  }
}
