package dev.ondevice;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.function.BiFunction;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link Losses#crossEntropy}, one op, against float64 loops, finite differences, and the ops it
 * fuses (log-softmax, gather, negation): the same values and gradients in float32 and float64.
 */
class CrossEntropyTest {
  private static final String DEVICES = "dev.ondevice.TestDevices#all";

  /** The composition the op replaces. */
  private static Tensor unfused(Tensor input, Tensor target) {
    int c = input.dim() == 1 ? 0 : 1;
    return input.logSoftmax(c).gather(c, target.unsqueeze(c)).squeeze(c).neg();
  }

  /** {@code logsumexp(row) - row[target]} per row of {@code [rows, classes]}, in float64. */
  private static double[] reference(double[] logits, int rows, int classes, long[] targets) {
    double[] out = new double[rows];
    for (int r = 0; r < rows; r++) {
      double max = Double.NEGATIVE_INFINITY;
      for (int k = 0; k < classes; k++) {
        max = Math.max(max, logits[r * classes + k]);
      }
      double sum = 0;
      for (int k = 0; k < classes; k++) {
        sum += Math.exp(logits[r * classes + k] - max);
      }
      out[r] = max + Math.log(sum) - logits[r * classes + (int) targets[r]];
    }
    return out;
  }

  private static Tensor scores(Device device, DType dtype, long seed, long... shape) {
    return Tensor.randn(Shape.of(shape), DType.FLOAT64, device, new Generator(seed))
        .mul(4.0)
        .to(dtype);
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void valuesMatchAFloat64Reference(Device device) {
    long[] classes = {3, 0, 9, 1, 9, 4, 2};
    Tensor target = Tensor.of(classes, Shape.of(7), device);
    for (DType dtype : new DType[] {DType.FLOAT32, DType.FLOAT64}) {
      Tensor logits = scores(device, dtype, 1, 7, 10);
      Tensor losses = Losses.crossEntropy(logits, target);
      assertEquals(dtype, losses.dtype());
      assertEquals(device, losses.device());
      assertEquals(Shape.of(7), losses.shape());
      double[] expected = reference(logits.toDoubleArray(), 7, 10, classes);
      double[] got = losses.toDoubleArray();
      double tolerance = dtype == DType.FLOAT32 ? 1e-5 : 1e-12;
      for (int r = 0; r < 7; r++) {
        assertEquals(
            expected[r], got[r], tolerance * Math.max(1, expected[r]), dtype + " row " + r);
      }
    }
  }

  /** Values and gradients of the op and of the composition it replaces, on several layouts. */
  @ParameterizedTest
  @MethodSource(DEVICES)
  void sameValuesAndGradientsAsTheOpsItFuses(Device device) {
    for (DType dtype : new DType[] {DType.FLOAT32, DType.FLOAT64}) {
      double tolerance = dtype == DType.FLOAT32 ? 2e-6 : 1e-14;
      Tensor rows = Tensor.of(new long[] {1, 0, 4, 4, 2, 3}, Shape.of(6), device);
      assertSame(
          "[N, C]", Losses::crossEntropy, scores(device, dtype, 2, 6, 5), rows, tolerance, true);
      assertSame(
          "[N, C] transposed",
          Losses::crossEntropy,
          scores(device, dtype, 3, 5, 6).t(),
          rows,
          tolerance,
          false);
      Tensor spatial = Tensor.of(new long[] {0, 2, 1, 1, 2, 0, 0, 1}, Shape.of(2, 2, 2), device);
      assertSame(
          "[N, C, d1, d2]",
          Losses::crossEntropy,
          scores(device, dtype, 4, 2, 3, 2, 2),
          spatial,
          tolerance,
          true);
      assertSame(
          "[C], 0-dim target",
          Losses::crossEntropy,
          scores(device, dtype, 5, 4),
          Tensor.of(new long[] {2}, Shape.scalar(), device),
          tolerance,
          true);
      Tensor large = Tensor.randint(0, 1000, Shape.of(3), device, new Generator(6));
      assertSame(
          "1,000 classes (chunks of the exponential)",
          Losses::crossEntropy,
          scores(device, dtype, 7, 3, 1000),
          large,
          tolerance,
          true);
    }
  }

  /**
   * Compares {@code fused} with {@link #unfused}: values, and the gradients of a weighted sum and
   * (where {@code mean}) of the mean, whose gradient reaches the op broadcast.
   */
  private static void assertSame(
      String name,
      BiFunction<Tensor, Tensor, Tensor> fused,
      Tensor input,
      Tensor target,
      double tolerance,
      boolean mean) {
    Tensor a = input.detach().requiresGrad(true);
    Tensor b = input.detach().requiresGrad(true);
    Tensor fa = fused.apply(a, target);
    Tensor fb = unfused(b, target);
    assertClose(name + ", values", fb, fa, tolerance);
    Tensor weights = Tensor.randLike(fa).add(0.5);
    fa.mul(weights).sum().backward();
    fb.mul(weights).sum().backward();
    assertClose(name + ", gradient", b.grad(), a.grad(), tolerance);
    assertEquals(input.shape(), a.grad().shape(), name);
    if (mean) {
      Tensor c = input.detach().requiresGrad(true);
      Tensor d = input.detach().requiresGrad(true);
      fused.apply(c, target).mean().backward();
      unfused(d, target).mean().backward();
      assertClose(name + ", gradient of the mean", d.grad(), c.grad(), tolerance);
    }
  }

  private static void assertClose(String name, Tensor expected, Tensor actual, double tolerance) {
    assertEquals(expected.dtype(), actual.dtype(), name);
    double[] e = expected.toDoubleArray();
    double[] a = actual.toDoubleArray();
    assertEquals(e.length, a.length, name);
    for (int i = 0; i < e.length; i++) {
      assertEquals(e[i], a[i], tolerance * Math.max(1, Math.abs(e[i])), name + " element " + i);
    }
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void gradientsMatchFiniteDifferences(Device device) {
    Tensor rows = Tensor.of(new long[] {2, 0, 3}, Shape.of(3), device);
    GradCheck.check(
        "[N, C]", x -> Losses.crossEntropy(x, rows), scores(device, DType.FLOAT64, 8, 3, 4));
    Tensor spatial = Tensor.of(new long[] {0, 2, 1, 1}, Shape.of(2, 2), device);
    GradCheck.check(
        "[N, C, d]",
        x -> Losses.crossEntropy(x, spatial),
        scores(device, DType.FLOAT64, 9, 2, 3, 2));
    GradCheck.check(
        "mean over a transposed input",
        x -> Losses.crossEntropy(x.t(), rows).mean(),
        scores(device, DType.FLOAT64, 10, 4, 3));
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void stableForLargeScoresAndNaNPropagates(Device device) {
    Tensor logits =
        Tensor.of(
            new float[] {1000, 0, -1000, 80, 90, 100, Float.NaN, 0, 0}, Shape.of(3, 3), device);
    Tensor target = Tensor.of(new long[] {0, 1, 1}, Shape.of(3), device);
    float[] losses = Losses.crossEntropy(logits, target).toFloatArray();
    assertEquals(0f, losses[0], 0f);
    assertEquals(10.000045f, losses[1], 1e-5f);
    assertTrue(Float.isNaN(losses[2]));
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void withoutGradientModeNothingIsRecorded(Device device) {
    Tensor logits = scores(device, DType.FLOAT32, 11, 2, 3).requiresGrad(true);
    Tensor target = Tensor.of(new long[] {0, 2}, Shape.of(2), device);
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      Tensor losses = Losses.crossEntropy(logits, target);
      assertNull(losses.gradFnName());
      assertEquals(2, losses.toFloatArray().length);
    }
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void badArgumentsAreNamed(Device device) {
    Tensor logits = scores(device, DType.FLOAT32, 12, 4, 3);
    IllegalArgumentException shape =
        assertThrows(
            IllegalArgumentException.class,
            () -> Losses.crossEntropy(logits, Tensor.zeros(Shape.of(3), DType.INT64, device)));
    assertEquals(
        "crossEntropy: input [4, 3] and target [3] do not fit: expected input [N, C, ...] or [C]"
            + " and target [N, ...] or []",
        shape.getMessage());
    assertThrows(
        IllegalArgumentException.class,
        () -> Losses.crossEntropy(logits, Tensor.zeros(Shape.of(4), DType.FLOAT32, device)));
    assertThrows(
        IllegalArgumentException.class,
        () ->
            Losses.crossEntropy(
                Tensor.zeros(Shape.of(4, 3), DType.INT64, device),
                Tensor.zeros(Shape.of(4), DType.INT64, device)));
    assertThrows(
        IllegalArgumentException.class,
        () ->
            Losses.crossEntropy(
                Tensor.zeros(Shape.scalar(), DType.FLOAT32, device),
                Tensor.zeros(Shape.scalar(), DType.INT64, device)));
    if (!device.equals(Device.cpu())) {
      assertThrows(
          DeviceMismatchException.class,
          () -> Losses.crossEntropy(logits, Tensor.zeros(Shape.of(4), DType.INT64, Device.cpu())));
    }
  }
}
