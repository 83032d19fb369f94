package dev.ondevice.nn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.ondevice.Autograd;
import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Generator;
import dev.ondevice.Parameter;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * BatchNorm1d, BatchNorm2d and LayerNorm: statistics by hand, train and eval, buffers, devices,
 * state, bad input.
 */
class NormalizationTest {
  private static final String DEVICES = "dev.ondevice.TestDevices#all";
  private static final Device CUDA = Device.cuda(0);

  private static Tensor randn(Device device, long seed, long... shape) {
    return Tensor.randn(Shape.of(shape), DType.FLOAT64, device, new Generator(seed));
  }

  /** Per channel of {@code x [n, c, rest]}: the mean and the biased variance. */
  private static double[][] channelStats(double[] x, int n, int c, int rest) {
    double[] mean = new double[c];
    double[] var = new double[c];
    int count = n * rest;
    for (int ch = 0; ch < c; ch++) {
      for (int i = 0; i < n; i++) {
        for (int r = 0; r < rest; r++) {
          mean[ch] += x[(i * c + ch) * rest + r] / count;
        }
      }
      for (int i = 0; i < n; i++) {
        for (int r = 0; r < rest; r++) {
          double d = x[(i * c + ch) * rest + r] - mean[ch];
          var[ch] += d * d / count;
        }
      }
    }
    return new double[][] {mean, var};
  }

  /** {@code (x - mean) / sqrt(var + eps) * weight + bias} per channel of {@code x [n, c, rest]}. */
  private static double[] normalize(
      double[] x,
      int n,
      int c,
      int rest,
      double[] mean,
      double[] var,
      double[] weight,
      double[] bias) {
    double[] out = new double[x.length];
    for (int i = 0; i < n; i++) {
      for (int ch = 0; ch < c; ch++) {
        for (int r = 0; r < rest; r++) {
          int at = (i * c + ch) * rest + r;
          out[at] = (x[at] - mean[ch]) / Math.sqrt(var[ch] + 1e-5) * weight[ch] + bias[ch];
        }
      }
    }
    return out;
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void batchNorm2dTracksRunningStatisticsAndUsesThemInEval(Device device) {
    BatchNorm2d bn = new BatchNorm2d(3, device);
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      bn.weight().copyFrom(Tensor.of(new double[] {1.5, -0.5, 2}, Shape.of(3), device));
      bn.bias().copyFrom(Tensor.of(new double[] {0.1, 0.2, -0.3}, Shape.of(3), device));
    }
    double[] runningMean = {0, 0, 0};
    double[] runningVar = {1, 1, 1};
    double[] weight = bn.weight().toDoubleArray();
    double[] bias = bn.bias().toDoubleArray();
    for (int step = 0; step < 3; step++) {
      Tensor x = randn(device, step, 4, 3, 2, 5).mul(step + 1.0).add(step - 1.0);
      double[] xs = x.toDoubleArray();
      double[][] stats = channelStats(xs, 4, 3, 10);
      Tensor y = bn.forward(x);
      Reference.assertClose(
          "train output, step " + step,
          normalize(xs, 4, 3, 10, stats[0], stats[1], weight, bias),
          y,
          1e-10);
      for (int ch = 0; ch < 3; ch++) {
        runningMean[ch] = 0.9 * runningMean[ch] + 0.1 * stats[0][ch];
        runningVar[ch] = 0.9 * runningVar[ch] + 0.1 * stats[1][ch] * 40 / 39;
      }
    }
    Reference.assertClose("running mean", runningMean, bn.runningMean(), 1e-6);
    Reference.assertClose("running var (unbiased updates)", runningVar, bn.runningVar(), 1e-6);
    assertEquals(3, bn.numBatchesTracked().itemAsLong());
    assertEquals(DType.INT64, bn.numBatchesTracked().dtype());
    assertEquals(Shape.scalar(), bn.numBatchesTracked().shape());
    assertEquals(device, bn.runningMean().device());

    bn.eval();
    Tensor x = randn(device, 9, 2, 3, 2, 5);
    Tensor y = bn.forward(x);
    Reference.assertClose(
        "eval output uses the running statistics",
        normalize(x.toDoubleArray(), 2, 3, 10, runningMean, runningVar, weight, bias),
        y,
        1e-6);
    Reference.assertClose("eval leaves the running mean", runningMean, bn.runningMean(), 1e-6);
    assertEquals(3, bn.numBatchesTracked().itemAsLong());
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void batchNorm1dNormalisesMatricesAndSequences(Device device) {
    BatchNorm1d bn = new BatchNorm1d(4, device);
    Tensor x = randn(device, 1, 6, 4);
    double[][] stats = channelStats(x.toDoubleArray(), 6, 4, 1);
    double[] ones = {1, 1, 1, 1};
    double[] zeros = {0, 0, 0, 0};
    Reference.assertClose(
        "[N, C]",
        normalize(x.toDoubleArray(), 6, 4, 1, stats[0], stats[1], ones, zeros),
        bn.forward(x),
        1e-10);
    Tensor seq = randn(device, 2, 3, 4, 5);
    double[][] seqStats = channelStats(seq.toDoubleArray(), 3, 4, 5);
    Reference.assertClose(
        "[N, C, L]",
        normalize(seq.toDoubleArray(), 3, 4, 5, seqStats[0], seqStats[1], ones, zeros),
        bn.forward(seq),
        1e-10);
    assertEquals(2, bn.numBatchesTracked().itemAsLong());
  }

  @Test
  void theStateDictHoldsParametersThenBuffersAndMovingMovesTheBuffers() {
    BatchNorm2d bn = new BatchNorm2d(2);
    Reference.assertClose("initial weight", new double[] {1, 1}, bn.weight(), 0);
    Reference.assertClose("initial bias", new double[] {0, 0}, bn.bias(), 0);
    Reference.assertClose("initial running mean", new double[] {0, 0}, bn.runningMean(), 0);
    Reference.assertClose("initial running var", new double[] {1, 1}, bn.runningVar(), 0);
    assertEquals(0, bn.numBatchesTracked().itemAsLong());
    Map<String, Tensor> state = bn.stateDict();
    assertEquals(
        List.of("weight", "bias", "runningMean", "runningVar", "numBatchesTracked"),
        List.copyOf(state.keySet()));
    assertEquals(List.of("weight", "bias"), List.copyOf(bn.namedParameters().keySet()));
    Tensor meanBefore = bn.runningMean();
    Parameter weight = bn.weight();
    bn.toDevice(CUDA);
    assertNotSame(meanBefore, bn.runningMean());
    for (Tensor t :
        List.of(bn.runningMean(), bn.runningVar(), bn.numBatchesTracked(), bn.weight())) {
      assertEquals(CUDA, t.device());
    }
    assertEquals(weight, bn.weight());
    bn.forward(Tensor.randn(Shape.of(3, 2, 2, 2), CUDA));
    assertEquals(1, bn.numBatchesTracked().itemAsLong());
    assertEquals(CUDA, bn.runningVar().device());

    BatchNorm1d plain = new BatchNorm1d(3, 1e-3, 0.5, false, CUDA);
    assertNull(plain.weight());
    assertEquals(
        List.of("runningMean", "runningVar", "numBatchesTracked"),
        List.copyOf(plain.stateDict().keySet()));
    assertEquals(CUDA, plain.runningMean().device());
  }

  @Test
  void badInputsNameTheLayerAndTheShape() {
    BatchNorm2d bn = new BatchNorm2d(3);
    IllegalArgumentException rank =
        assertThrows(
            IllegalArgumentException.class,
            () -> bn.forward(Tensor.zeros(Shape.of(4, 3), Device.cpu())));
    assertEquals(
        "BatchNorm2d: expected a 4-d [N, C, H, W] input, got shape [4, 3]", rank.getMessage());
    IllegalArgumentException channels =
        assertThrows(
            IllegalArgumentException.class,
            () -> bn.forward(Tensor.zeros(Shape.of(2, 4, 2, 2), Device.cpu())));
    assertEquals(
        "BatchNorm2d: expected 3 channels (dimension 1), got an input of shape [2, 4, 2, 2]",
        channels.getMessage());
    IllegalArgumentException single =
        assertThrows(
            IllegalArgumentException.class,
            () -> new BatchNorm1d(3).forward(Tensor.zeros(Shape.of(1, 3), Device.cpu())));
    assertEquals(
        "BatchNorm1d: expected more than 1 value per channel when training, got an input of shape [1, 3]",
        single.getMessage());
    BatchNorm1d evaluating = new BatchNorm1d(3);
    evaluating.eval();
    assertEquals(
        Shape.of(1, 3), evaluating.forward(Tensor.zeros(Shape.of(1, 3), Device.cpu())).shape());
    assertThrows(IllegalArgumentException.class, () -> new BatchNorm2d(0));
    IllegalArgumentException norm =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                new LayerNorm(Shape.of(4, 5), 1e-5, true, Device.cpu())
                    .forward(Tensor.zeros(Shape.of(2, 3, 5), Device.cpu())));
    assertEquals(
        "LayerNorm: expected an input whose last 2 dimension(s) are [4, 5], got shape [2, 3, 5]",
        norm.getMessage());
  }

  @Test
  void eachBatchNormAcceptsItsOwnRanksOnly() {
    String oneD = "BatchNorm1d: expected a 2-d [N, C] or 3-d [N, C, L] input, got shape ";
    for (Shape shape : List.of(Shape.of(3), Shape.of(2, 3, 2, 2))) {
      IllegalArgumentException e =
          assertThrows(
              IllegalArgumentException.class,
              () -> new BatchNorm1d(3).forward(Tensor.zeros(shape, Device.cpu())));
      assertEquals(oneD + shape, e.getMessage());
    }
    IllegalArgumentException fiveD =
        assertThrows(
            IllegalArgumentException.class,
            () -> new BatchNorm2d(3).forward(Tensor.zeros(Shape.of(2, 3, 2, 2, 2), Device.cpu())));
    assertEquals(
        "BatchNorm2d: expected a 4-d [N, C, H, W] input, got shape [2, 3, 2, 2, 2]",
        fiveD.getMessage());
    assertEquals(
        Shape.of(2, 3, 4),
        new BatchNorm1d(3).forward(Tensor.randn(Shape.of(2, 3, 4), Device.cpu())).shape());
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void layerNormNormalisesTheTrailingDimensionsTheSameInTrainAndEval(Device device) {
    LayerNorm ln = new LayerNorm(Shape.of(2, 3), 1e-5, true, device);
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      ln.weight().copyFrom(Tensor.of(new double[] {1, 2, 3, -1, 0.5, 1}, Shape.of(2, 3), device));
      ln.bias().fill(0.25);
    }
    Tensor x = randn(device, 4, 4, 2, 3);
    double[] xs = x.toDoubleArray();
    double[] w = ln.weight().toDoubleArray();
    double[] expected = new double[xs.length];
    for (int row = 0; row < 4; row++) {
      double mean = 0;
      for (int i = 0; i < 6; i++) {
        mean += xs[row * 6 + i] / 6;
      }
      double var = 0;
      for (int i = 0; i < 6; i++) {
        var += Math.pow(xs[row * 6 + i] - mean, 2) / 6;
      }
      for (int i = 0; i < 6; i++) {
        expected[row * 6 + i] = (xs[row * 6 + i] - mean) / Math.sqrt(var + 1e-5) * w[i] + 0.25;
      }
    }
    Reference.assertClose("LayerNorm train", expected, ln.forward(x), 1e-6);
    ln.eval();
    Reference.assertClose("LayerNorm eval", expected, ln.forward(x), 1e-6);
    assertEquals(List.of("weight", "bias"), List.copyOf(ln.stateDict().keySet()));
    assertEquals(device, ln.weight().device());
    LayerNorm plain = new LayerNorm(Shape.of(3), 1e-5, false, device);
    assertEquals(0, plain.stateDict().size());
    assertEquals(Shape.of(5, 3), plain.forward(Tensor.randn(Shape.of(5, 3), device)).shape());
  }
}
