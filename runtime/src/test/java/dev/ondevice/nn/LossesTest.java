package dev.ondevice.nn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.DeviceMismatchException;
import dev.ondevice.Generator;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The losses against loop references, their reductions, and bad targets. */
class LossesTest {
  private static final String DEVICES = "dev.ondevice.TestDevices#all";
  private static final Device CUDA = Device.cuda(0);

  private static Tensor randn(Device device, long seed, long... shape) {
    return Tensor.randn(Shape.of(shape), DType.FLOAT64, device, new Generator(seed));
  }

  private static double sum(double[] v) {
    double s = 0;
    for (double x : v) {
      s += x;
    }
    return s;
  }

  /**
   * Per row of logits {@code [rows, classes]}: {@code (1 - eps) * nll + eps / C * sum of -log p}.
   */
  private static double[] crossEntropy(
      double[] logits, int rows, int classes, long[] targets, double eps) {
    double[] lse = Reference.logSumExp(logits, rows, classes);
    double[] out = new double[rows];
    for (int r = 0; r < rows; r++) {
      double smooth = 0;
      for (int c = 0; c < classes; c++) {
        smooth += lse[r] - logits[r * classes + c];
      }
      double nll = lse[r] - logits[r * classes + (int) targets[r]];
      out[r] = (1 - eps) * nll + eps / classes * smooth;
    }
    return out;
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void crossEntropyMatchesTheReferenceForEveryReductionAndSmoothing(Device device) {
    Tensor logits = randn(device, 1, 5, 4).mul(3.0);
    long[] classes = {3, 0, 1, 1, 2};
    Tensor target = Tensor.of(classes, Shape.of(5), device);
    for (double eps : new double[] {0, 0.1, 1}) {
      double[] perRow = crossEntropy(logits.toDoubleArray(), 5, 4, classes, eps);
      Tensor none = new CrossEntropyLoss(Reduction.NONE, eps).forward(logits, target);
      assertEquals(device, none.device());
      Reference.assertClose("none, eps " + eps, perRow, none, 1e-12);
      Reference.assertClose(
          "sum, eps " + eps,
          new double[] {sum(perRow)},
          new CrossEntropyLoss(Reduction.SUM, eps).forward(logits, target),
          1e-12);
    }
    Tensor mean = new CrossEntropyLoss().forward(logits, target);
    assertEquals(Shape.scalar(), mean.shape());
    Reference.assertClose(
        "mean",
        new double[] {sum(crossEntropy(logits.toDoubleArray(), 5, 4, classes, 0)) / 5},
        mean,
        1e-12);
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void crossEntropyTakesSpatialAndUnbatchedInputs(Device device) {
    Tensor logits = randn(device, 2, 2, 3, 2);
    long[] classes = {2, 0, 1, 1};
    Tensor target = Tensor.of(classes, Shape.of(2, 2), device);
    double[] x = logits.toDoubleArray();
    double[] moved = new double[12];
    long[] flat = new long[4];
    for (int n = 0; n < 2; n++) {
      for (int d = 0; d < 2; d++) {
        for (int c = 0; c < 3; c++) {
          moved[(n * 2 + d) * 3 + c] = x[(n * 3 + c) * 2 + d];
        }
        flat[n * 2 + d] = classes[n * 2 + d];
      }
    }
    Reference.assertClose(
        "[N, C, d]",
        crossEntropy(moved, 4, 3, flat, 0.2),
        new CrossEntropyLoss(Reduction.NONE, 0.2).forward(logits, target),
        1e-12);
    Tensor single =
        new CrossEntropyLoss()
            .forward(
                logits.select(0, 0).select(1, 0),
                Tensor.of(new long[] {2}, Shape.scalar(), device));
    Reference.assertClose(
        "[C] with a 0-dim target",
        new double[] {crossEntropy(moved, 4, 3, flat, 0)[0]},
        single,
        1e-12);
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void nllLossPicksTheNegatedLogProbabilityOfTheTarget(Device device) {
    Tensor logProbabilities = randn(device, 3, 3, 4).logSoftmax(1);
    long[] classes = {1, 3, 0};
    double[] lp = logProbabilities.toDoubleArray();
    double[] expected = {-lp[1], -lp[4 + 3], -lp[8]};
    Tensor target = Tensor.of(classes, Shape.of(3), device);
    Reference.assertClose(
        "none", expected, new NllLoss(Reduction.NONE).forward(logProbabilities, target), 0);
    Reference.assertClose(
        "mean",
        new double[] {sum(expected) / 3},
        new NllLoss().forward(logProbabilities, target),
        1e-15);
    Tensor logits = randn(device, 3, 3, 4);
    Reference.assertClose(
        "log-softmax then NllLoss is CrossEntropyLoss",
        new CrossEntropyLoss().forward(logits, target).toDoubleArray(),
        new NllLoss().forward(logits.logSoftmax(1), target),
        1e-12);
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void mseAndBceWithLogitsMatchTheirDefinitions(Device device) {
    Tensor input = randn(device, 4, 2, 3);
    Tensor target = randn(device, 5, 2, 3);
    double[] x = input.toDoubleArray();
    double[] t = target.toDoubleArray();
    double[] squares = new double[6];
    for (int i = 0; i < 6; i++) {
      squares[i] = (x[i] - t[i]) * (x[i] - t[i]);
    }
    Reference.assertClose(
        "MSE none", squares, new MseLoss(Reduction.NONE).forward(input, target), 1e-15);
    Reference.assertClose(
        "MSE mean", new double[] {sum(squares) / 6}, new MseLoss().forward(input, target), 1e-15);

    double[] logits = {-100, -3, -0.5, 0, 0.5, 3, 100, 40};
    double[] probabilities = {0, 0.2, 1, 0.5, 0.3, 1, 0, 1};
    double[] expected = new double[logits.length];
    for (int i = 0; i < logits.length; i++) {
      double softplus = Math.max(logits[i], 0) + Math.log1p(Math.exp(-Math.abs(logits[i])));
      expected[i] = softplus - probabilities[i] * logits[i];
    }
    Tensor z = Tensor.of(logits, Shape.of(8), device);
    Tensor p = Tensor.of(probabilities, Shape.of(8), device);
    Tensor bce = new BceWithLogitsLoss(Reduction.NONE).forward(z, p);
    Reference.assertClose("BCE with logits, large logits stay finite", expected, bce, 1e-14);
    Reference.assertClose(
        "BCE sum",
        new double[] {sum(expected)},
        new BceWithLogitsLoss(Reduction.SUM).forward(z, p),
        1e-12);
    Tensor leaf = z.requiresGrad(true);
    new BceWithLogitsLoss(Reduction.SUM).forward(leaf, p).backward();
    double[] grad = new double[8];
    for (int i = 0; i < 8; i++) {
      grad[i] = 1 / (1 + Math.exp(-logits[i])) - probabilities[i];
    }
    Reference.assertClose("BCE gradient sigmoid(x) - t, exact at 0 too", grad, leaf.grad(), 1e-15);
  }

  @Test
  @SuppressWarnings("DiscardedTensorOp")
  void wrongTargetsAreReportedWithTheLossAndTheShapes() {
    Tensor logits = Tensor.zeros(Shape.of(4, 3), Device.cpu());
    IllegalArgumentException dtype =
        assertThrows(
            IllegalArgumentException.class,
            () -> new CrossEntropyLoss().forward(logits, Tensor.zeros(Shape.of(4), Device.cpu())));
    assertEquals(
        "CrossEntropyLoss: target must hold int64 class indices, got float32 (input shape [4, 3], target"
            + " shape [4]); class probabilities as targets are not supported",
        dtype.getMessage());
    IllegalArgumentException shape =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                new NllLoss()
                    .forward(logits, Tensor.of(new long[] {0, 1, 2}, Shape.of(3), Device.cpu())));
    assertEquals(
        "NllLoss: target shape [3] does not match input shape [4, 3]; expected target shape [4]",
        shape.getMessage());
    IllegalArgumentException oneHot =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                new CrossEntropyLoss()
                    .forward(logits, Tensor.oneHot(Tensor.of(0L, 2L, 1L, 1L), 3)));
    assertEquals(
        "CrossEntropyLoss: target has the input's shape [4, 3], as class probabilities or one-hot targets"
            + " would; they are not supported: pass the class indices, shape [4] (target.argmax(1, false) of a one-hot"
            + " target)",
        oneHot.getMessage());
    IllegalArgumentException integerInput =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                new CrossEntropyLoss()
                    .forward(
                        Tensor.zeros(Shape.of(4, 3), DType.INT64, Device.cpu()),
                        Tensor.zeros(Shape.of(4), DType.INT64, Device.cpu())));
    assertTrue(
        integerInput.getMessage().startsWith("CrossEntropyLoss: input must be floating-point"));
    IllegalArgumentException mse =
        assertThrows(
            IllegalArgumentException.class,
            () -> new MseLoss().forward(logits, Tensor.zeros(Shape.of(3, 4), Device.cpu())));
    assertEquals(
        "MseLoss: target shape [3, 4] does not match input shape [4, 3]; they must be equal",
        mse.getMessage());
    IllegalArgumentException bce =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                new BceWithLogitsLoss()
                    .forward(logits, Tensor.zeros(Shape.of(4, 3), DType.INT64, Device.cpu())));
    assertEquals(
        "BceWithLogitsLoss: input and target must be floating-point, got float32 (input shape [4, 3]) and"
            + " int64 (target shape [4, 3])",
        bce.getMessage());
    assertThrows(IllegalArgumentException.class, () -> new CrossEntropyLoss(Reduction.MEAN, 1.5));
    IndexOutOfBoundsException range =
        assertThrows(
            IndexOutOfBoundsException.class,
            () ->
                new CrossEntropyLoss()
                    .forward(
                        logits, Tensor.of(new long[] {0, 1, 2, 3}, Shape.of(4), Device.cpu())));
    assertTrue(
        range
            .getMessage()
            .startsWith(
                "CrossEntropyLoss: a target is out of bounds for 3 classes; targets must"
                    + " be class indices in [0, 3) (ignore_index is not supported): "),
        range.getMessage());
    IndexOutOfBoundsException negative =
        assertThrows(
            IndexOutOfBoundsException.class,
            () ->
                new NllLoss()
                    .forward(
                        logits, Tensor.of(new long[] {0, 1, -100, 2}, Shape.of(4), Device.cpu())));
    assertTrue(
        negative.getMessage().startsWith("NllLoss: a target is out of bounds for 3 classes"),
        negative.getMessage());
  }

  @Test
  @SuppressWarnings({"MixedDevices", "DiscardedTensorOp"})
  void aTargetLeftOnTheCpuIsADeviceMismatchNotASilentMove() {
    Tensor logits = Tensor.zeros(Shape.of(2, 3), CUDA);
    Tensor classes = Tensor.of(new long[] {0, 2}, Shape.of(2), Device.cpu());
    DeviceMismatchException e =
        assertThrows(
            DeviceMismatchException.class, () -> new CrossEntropyLoss().forward(logits, classes));
    assertEquals(
        "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!"
            + " (argument 'target' of CrossEntropyLoss)",
        e.getMessage());
    assertThrows(DeviceMismatchException.class, () -> new NllLoss().forward(logits, classes));
    Tensor values = Tensor.zeros(Shape.of(2, 3), Device.cpu());
    assertThrows(DeviceMismatchException.class, () -> new MseLoss().forward(logits, values));
    assertThrows(
        DeviceMismatchException.class, () -> new BceWithLogitsLoss().forward(logits, values));
    assertEquals(Reduction.MEAN, new MseLoss().reduction());
  }
}
