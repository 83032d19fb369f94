package dev.ondevice;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link Tensor#linearRelu} and the bias in the product's output pass of {@link Tensor#linear}:
 * values against float64 loops, gradients against finite differences and against {@code
 * linear(...).relu()} as two ops, on shapes whose products split into bands of rows and of columns.
 */
class LinearReluTest {
  private static final String DEVICES = "dev.ondevice.TestDevices#all";

  private static Tensor randn(Device d, DType dtype, long seed, long... shape) {
    return Tensor.randn(Shape.of(shape), DType.FLOAT64, d, new Generator(seed)).to(dtype);
  }

  /** {@code max(x w^T + b, 0)} (or without the max) in float64, row-major. */
  private static double[] reference(
      double[] x, double[] w, double[] b, int rows, int in, int out, boolean relu) {
    double[] y = new double[rows * out];
    for (int r = 0; r < rows; r++) {
      for (int o = 0; o < out; o++) {
        double s = b == null ? 0 : b[o];
        for (int k = 0; k < in; k++) {
          s += x[r * in + k] * w[o * in + k];
        }
        y[r * out + o] = relu ? Math.max(s, 0) : s;
      }
    }
    return y;
  }

  private static void assertClose(String name, double[] expected, Tensor actual, double tol) {
    double[] a = actual.toDoubleArray();
    assertEquals(expected.length, a.length, name);
    for (int i = 0; i < a.length; i++) {
      assertEquals(
          expected[i], a[i], tol * Math.max(1, Math.abs(expected[i])), name + " element " + i);
    }
  }

  /**
   * Rows and columns of the products: taller than wide (bands of rows), wider than tall (bands of
   * columns), and a product too small to split.
   */
  private static final int[][] SHAPES = {{130, 300, 70}, {16, 64, 600}, {3, 5, 4}};

  @ParameterizedTest
  @MethodSource(DEVICES)
  void valuesMatchAFloat64Reference(Device d) {
    for (int[] s : SHAPES) {
      for (boolean relu : new boolean[] {true, false}) {
        Tensor x = randn(d, DType.FLOAT32, 1, s[0], s[1]);
        Tensor w = randn(d, DType.FLOAT32, 2, s[2], s[1]);
        Tensor b = randn(d, DType.FLOAT32, 3, s[2]);
        String name = (relu ? "linearRelu " : "linear ") + s[0] + "x" + s[1] + "x" + s[2];
        Tensor y = relu ? Tensor.linearRelu(x, w, b) : Tensor.linear(x, w, b);
        assertEquals(Shape.of(s[0], s[2]), y.shape(), name);
        double[] expected =
            reference(
                x.toDoubleArray(), w.toDoubleArray(), b.toDoubleArray(), s[0], s[1], s[2], relu);
        assertClose(name, expected, y, 1e-4);
        Tensor noBias = relu ? Tensor.linearRelu(x, w, null) : Tensor.linear(x, w, null);
        assertClose(
            name + " without bias",
            reference(x.toDoubleArray(), w.toDoubleArray(), null, s[0], s[1], s[2], relu),
            noBias,
            1e-4);
      }
    }
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void aStridedBiasAndABatchOfMatrices(Device d) {
    Tensor x = randn(d, DType.FLOAT32, 4, 2, 3, 8);
    Tensor w = randn(d, DType.FLOAT32, 5, 6, 8);
    Tensor everyOther = randn(d, DType.FLOAT32, 6, 12).slice(0, 0, 12, 2);
    double[] expected =
        reference(x.toDoubleArray(), w.toDoubleArray(), everyOther.toDoubleArray(), 6, 8, 6, true);
    Tensor y = Tensor.linearRelu(x, w, everyOther);
    assertEquals(Shape.of(2, 3, 6), y.shape());
    assertClose("[2, 3, 8] input, strided bias", expected, y, 1e-5);
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void sameValuesAndGradientsAsLinearThenRelu(Device d) {
    for (DType dtype : new DType[] {DType.FLOAT32, DType.FLOAT64}) {
      double tol = dtype == DType.FLOAT32 ? 1e-5 : 1e-12;
      for (int[] s : SHAPES) {
        Tensor x0 = randn(d, dtype, 7, s[0], s[1]);
        Tensor w0 = randn(d, dtype, 8, s[2], s[1]);
        Tensor b0 = randn(d, dtype, 9, s[2]);
        Tensor g = randn(d, dtype, 10, s[0], s[2]);
        Tensor[] fused = leaves(x0, w0, b0);
        Tensor[] unfused = leaves(x0, w0, b0);
        Tensor yf = Tensor.linearRelu(fused[0], fused[1], fused[2]);
        Tensor yu = Tensor.linear(unfused[0], unfused[1], unfused[2]).relu();
        String name = dtype + " " + s[0] + "x" + s[1] + "x" + s[2];
        assertEquals("linearRelu", yf.gradFnName());
        assertClose(name + " values", yu.toDoubleArray(), yf, tol);
        yf.backward(g);
        yu.backward(g);
        String[] which = {"input", "weight", "bias"};
        for (int i = 0; i < 3; i++) {
          assertClose(
              name + " gradient of the " + which[i],
              unfused[i].grad().toDoubleArray(),
              fused[i].grad(),
              tol);
        }
      }
    }
  }

  private static Tensor[] leaves(Tensor... values) {
    Tensor[] out = new Tensor[values.length];
    for (int i = 0; i < values.length; i++) {
      out[i] = values[i].detach().clone().requiresGrad(true);
    }
    return out;
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void gradientsMatchFiniteDifferences(Device d) {
    GradCheck.check(
        "2-d with bias",
        (x, w, b) -> Tensor.linearRelu(x, w, b),
        randn(d, DType.FLOAT64, 11, 4, 3),
        randn(d, DType.FLOAT64, 12, 5, 3),
        randn(d, DType.FLOAT64, 13, 5));
    GradCheck.check(
        "3-d input without bias",
        (x, w) -> Tensor.linearRelu(x, w, null),
        randn(d, DType.FLOAT64, 14, 2, 4, 3),
        randn(d, DType.FLOAT64, 15, 5, 3));
    GradCheck.check(
        "transposed input",
        (x, w, b) -> Tensor.linearRelu(x.t(), w, b),
        randn(d, DType.FLOAT64, 16, 3, 4),
        randn(d, DType.FLOAT64, 17, 2, 3),
        randn(d, DType.FLOAT64, 18, 2));
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void anOutputChangedInPlaceBeforeBackwardIsAnError(Device d) {
    Tensor x = randn(d, DType.FLOAT32, 19, 2, 3).requiresGrad(true);
    Tensor w = randn(d, DType.FLOAT32, 20, 4, 3);
    Tensor y = Tensor.linearRelu(x, w, null);
    y.detach().muli(2.0);
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> y.sum().backward());
    assertTrue(e.getMessage().contains("linearRelu"), e.getMessage());
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void emptyInnerDimensionGivesTheReluOfTheBias(Device d) {
    Tensor x = Tensor.zeros(Shape.of(2, 0), DType.FLOAT32, d);
    Tensor w = Tensor.zeros(Shape.of(3, 0), DType.FLOAT32, d);
    Tensor b = Tensor.of(new float[] {-1, 0, 2}, Shape.of(3), d);
    assertClose("relu(bias)", new double[] {0, 0, 2, 0, 0, 2}, Tensor.linearRelu(x, w, b), 0);
    assertClose("bias", new double[] {-1, 0, 2, -1, 0, 2}, Tensor.linear(x, w, b), 0);
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void badShapesNameTheOp(Device d) {
    Tensor x = randn(d, DType.FLOAT32, 21, 2, 3);
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> Tensor.linearRelu(x, randn(d, DType.FLOAT32, 22, 3, 2), null));
    assertTrue(
        e.getMessage().startsWith("linearRelu: input [2, 3], weight [3, 2]"), e.getMessage());
  }
}
