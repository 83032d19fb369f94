package dev.ondevice;

import dev.ondevice.nn.AvgPool2d;
import dev.ondevice.nn.BatchNorm1d;
import dev.ondevice.nn.BatchNorm2d;
import dev.ondevice.nn.BceWithLogitsLoss;
import dev.ondevice.nn.Conv2d;
import dev.ondevice.nn.CrossEntropyLoss;
import dev.ondevice.nn.Embedding;
import dev.ondevice.nn.GELU;
import dev.ondevice.nn.LayerNorm;
import dev.ondevice.nn.LeakyReLU;
import dev.ondevice.nn.MaxPool2d;
import dev.ondevice.nn.MseLoss;
import dev.ondevice.nn.NllLoss;
import dev.ondevice.nn.Reduction;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The gradients of the neural-network ops, layers and losses against central finite differences in
 * float64 ({@link GradCheck}), on the CPU and on an emulated {@code cuda:0}. Layers keep their
 * float32 parameters; a float64 input promotes the computation to float64, so the gradient with
 * respect to the input is checked through the layer, and those with respect to weights through the
 * functional ops with float64 weights.
 */
class LayerGradientTest {
  private static final String DEVICES = "dev.ondevice.TestDevices#all";

  private final Random rng = new Random(11);

  private Tensor randn(Device device, long... shape) {
    return GradCheck.randn(rng, device, shape);
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void conv2dWithRespectToInputWeightAndBias(Device device) {
    GradCheck.check(
        "conv2d",
        (x, w, b) -> Convolution.conv2d(x, w, b, 1, 1),
        randn(device, 2, 3, 5, 4),
        randn(device, 4, 3, 3, 3),
        randn(device, 4));
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void conv2dWithStrideRectangularKernelAndNoBias(Device device) {
    GradCheck.check(
        "conv2d stride 2",
        (x, w) -> Convolution.conv2d(x, w, null, 2, 1),
        randn(device, 2, 2, 7, 6),
        randn(device, 3, 2, 3, 2));
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void conv2dOfAnUnbatchedNonContiguousInput(Device device) {
    GradCheck.check(
        "conv2d unbatched",
        (x, w) -> Convolution.conv2d(x.transpose(1, 2), w, null, 1, 0),
        randn(device, 2, 5, 4),
        randn(device, 3, 2, 2, 2));
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void conv2dLayerWithRespectToItsInput(Device device) {
    Conv2d conv = new Conv2d(2, 3, 3, 1, 1, true, device);
    GradCheck.check("Conv2d", conv::forward, randn(device, 2, 2, 4, 4));
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void maxPool2d(Device device) {
    GradCheck.check(
        "maxPool2d",
        x -> Pooling.maxPool2d(x, 2, 2, 0),
        GradCheck.distinct(rng, device, 2, 3, 4, 6));
    GradCheck.check(
        "maxPool2d overlapping, padded",
        x -> Pooling.maxPool2d(x, 3, 2, 1),
        GradCheck.distinct(rng, device, 1, 2, 5, 5));
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void avgPool2d(Device device) {
    GradCheck.check("avgPool2d", x -> Pooling.avgPool2d(x, 2, 2, 0), randn(device, 2, 3, 4, 4));
    GradCheck.check(
        "avgPool2d overlapping, padded",
        x -> Pooling.avgPool2d(x, 3, 2, 1),
        randn(device, 1, 2, 5, 6));
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  @SuppressWarnings("ModelNotMoved") // pooling layers have no state to move
  void poolingLayersWithRespectToTheirInput(Device device) {
    GradCheck.check(
        "MaxPool2d", new MaxPool2d(3, 2, 1)::forward, GradCheck.distinct(rng, device, 2, 5, 5));
    GradCheck.check("AvgPool2d", new AvgPool2d(3, 2, 1)::forward, randn(device, 2, 5, 6));
    GradCheck.check(
        "AvgPool2d default stride", new AvgPool2d(2)::forward, randn(device, 1, 2, 4, 6));
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void erfAndGelu(Device device) {
    GradCheck.check("erf", Tensor::erf, GradCheck.uniform(rng, -3, 3, device, 12));
    GradCheck.check("GELU", new GELU()::forward, GradCheck.uniform(rng, -4, 4, device, 3, 5));
    GradCheck.check(
        "GELU tanh",
        new GELU(GELU.Approximation.TANH)::forward,
        GradCheck.uniform(rng, -4, 4, device, 7));
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void leakyRelu(Device device) {
    GradCheck.check(
        "LeakyReLU", new LeakyReLU(0.2)::forward, GradCheck.awayFromZero(rng, device, 4, 3));
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void batchNormInTrainingAndEvaluationMode(Device device) {
    BatchNorm2d bn = new BatchNorm2d(3, device);
    GradCheck.check("BatchNorm2d train", bn::forward, randn(device, 2, 3, 2, 3));
    bn.eval();
    GradCheck.check("BatchNorm2d eval", bn::forward, randn(device, 2, 3, 2, 3));
    BatchNorm1d bn1 = new BatchNorm1d(4, device);
    GradCheck.check("BatchNorm1d train", bn1::forward, randn(device, 5, 4));
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void batchNorm1dOfSequencesInTrainingAndEvaluationMode(Device device) {
    BatchNorm1d bn = new BatchNorm1d(4, device);
    GradCheck.check("BatchNorm1d train [N, C, L]", bn::forward, randn(device, 2, 4, 3));
    bn.eval();
    GradCheck.check("BatchNorm1d eval [N, C, L]", bn::forward, randn(device, 2, 4, 3));
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void layerNorm(Device device) {
    LayerNorm ln = new LayerNorm(Shape.of(2, 3), 1e-5, true, device);
    GradCheck.check("LayerNorm", ln::forward, randn(device, 4, 2, 3));
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void embeddingWithRepeatedIndicesThroughIndexSelect(Device device) {
    Tensor indices = Tensor.of(new long[] {1, 3, 1, 0}, Shape.of(2, 2), device);
    GradCheck.check(
        "embedding lookup",
        table -> table.indexSelect(0, indices.reshape(-1)).reshape(2, 2, 3),
        randn(device, 5, 3));
    Embedding embedding = new Embedding(5, 3, device);
    GradCheck.check(
        "Embedding then scale", x -> embedding.forward(indices).mul(x), randn(device, 2, 2, 3));
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void losses(Device device) {
    Tensor classes = Tensor.of(new long[] {2, 0, 1}, Shape.of(3), device);
    Tensor spatialClasses = Tensor.of(new long[] {0, 2, 1, 1}, Shape.of(2, 2), device);
    GradCheck.check(
        "CrossEntropyLoss", x -> new CrossEntropyLoss().forward(x, classes), randn(device, 3, 4));
    GradCheck.check(
        "CrossEntropyLoss smoothed, summed",
        x -> new CrossEntropyLoss(Reduction.SUM, 0.2).forward(x, classes),
        randn(device, 3, 4));
    GradCheck.check(
        "CrossEntropyLoss [N, C, d]",
        x -> new CrossEntropyLoss(Reduction.NONE, 0.1).forward(x, spatialClasses),
        randn(device, 2, 3, 2));
    GradCheck.check(
        "NllLoss", x -> new NllLoss().forward(x.logSoftmax(1), classes), randn(device, 3, 4));
    GradCheck.check(
        "MseLoss", (x, t) -> new MseLoss().forward(x, t), randn(device, 3, 2), randn(device, 3, 2));
    Tensor probabilities = GradCheck.uniform(rng, 0, 1, device, 2, 5);
    GradCheck.check(
        "BceWithLogitsLoss",
        x -> new BceWithLogitsLoss().forward(x, probabilities),
        GradCheck.uniform(rng, -30, 30, device, 2, 5));
    GradCheck.check(
        "BceWithLogitsLoss at 0",
        x -> new BceWithLogitsLoss(Reduction.NONE).forward(x, probabilities),
        Tensor.zeros(Shape.of(2, 5), DType.FLOAT64, device));
  }
}
