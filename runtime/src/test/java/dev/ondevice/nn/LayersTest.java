package dev.ondevice.nn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.DeviceMismatchException;
import dev.ondevice.Generator;
import dev.ondevice.Parameter;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Dropout, Embedding, Flatten, Sequential and LayerList. Layers without state need no move to work
 * on a device; the tests that apply them to device tensors suppress ModelNotMoved, which the device
 * analysis reports for any model that was never moved.
 */
class LayersTest {
  private static final String DEVICES = "dev.ondevice.TestDevices#all";
  private static final Device CUDA = Device.cuda(0);

  @ParameterizedTest
  @MethodSource(DEVICES)
  @SuppressWarnings("ModelNotMoved")
  void dropoutZeroesAboutPAndScalesTheRestInTrainingOnly(Device device) {
    Dropout dropout = new Dropout(0.25);
    Tensor x =
        Tensor.rand(Shape.of(40, 50), DType.FLOAT64, device, new Generator(3))
            .add(1.0)
            .requiresGrad(true);
    Tensor y = dropout.forward(x);
    assertEquals(device, y.device());
    double[] xs = x.toDoubleArray();
    double[] ys = y.toDoubleArray();
    int dropped = 0;
    for (int i = 0; i < xs.length; i++) {
      if (ys[i] == 0) {
        dropped++;
      } else {
        assertEquals(xs[i] / 0.75, ys[i], 1e-12, "kept elements are scaled by 1 / (1 - p)");
      }
    }
    assertTrue(Math.abs(dropped / 2000.0 - 0.25) < 0.05, "dropped fraction " + dropped / 2000.0);
    y.sum().backward();
    double[] grad = x.grad().toDoubleArray();
    for (int i = 0; i < xs.length; i++) {
      assertEquals(
          ys[i] == 0 ? 0 : 1 / 0.75, grad[i], 1e-12, "the gradient goes through the same mask");
    }
    dropout.eval();
    assertSame(x, dropout.forward(x));
    dropout.train();
    assertSame(x, new Dropout(0).forward(x));
    Reference.assertClose("p = 1 drops everything", new double[2000], new Dropout(1).forward(x), 0);
  }

  @Test
  void dropoutRejectsProbabilitiesOutsideTheUnitInterval() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> new Dropout(1.5));
    assertEquals("Dropout: probability p must be between 0 and 1, got 1.5", e.getMessage());
    assertEquals(0.5, new Dropout().p());
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void embeddingLooksUpRowsForIndicesOfAnyShape(Device device) {
    Embedding embedding = new Embedding(6, 3, device);
    assertEquals(device, embedding.weight().device());
    Tensor indices = Tensor.of(new long[] {5, 0, 2, 2}, Shape.of(2, 2), device);
    Tensor y = embedding.forward(indices);
    assertEquals(Shape.of(2, 2, 3), y.shape());
    double[] table = embedding.weight().toDoubleArray();
    double[] expected = new double[12];
    long[] picked = {5, 0, 2, 2};
    for (int i = 0; i < 4; i++) {
      System.arraycopy(table, (int) picked[i] * 3, expected, i * 3, 3);
    }
    Reference.assertClose("rows of the table", expected, y, 0);
    y.sum().backward();
    Reference.assertClose(
        "repeated indices accumulate",
        new double[] {1, 1, 1, 0, 0, 0, 2, 2, 2, 0, 0, 0, 0, 0, 0, 1, 1, 1},
        embedding.weight().grad(),
        0);
    assertEquals(
        Shape.of(3), embedding.forward(Tensor.of(new long[] {4}, Shape.scalar(), device)).shape());
  }

  @Test
  @SuppressWarnings("ModelNotMoved") // deliberate: the layer that was never moved
  void aLayerNeverMovedSaysToMoveTheModel() {
    Linear fc = new Linear(3, 2);
    DeviceMismatchException e =
        assertThrows(
            DeviceMismatchException.class, () -> fc.forward(Tensor.zeros(Shape.of(1, 3), CUDA)));
    assertEquals(
        "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!"
            + " (argument 'weight' of linear) If the weight is a model's parameter, move the model where its input is"
            + " (model.toDevice(cuda:0)), once, before using it, or move the input where the model is",
        e.getMessage());
  }

  @Test
  @SuppressWarnings({"MixedDevices", "ModelNotMoved"})
  void embeddingChecksTheIndicesAndIsInitialisedStandardNormal() {
    Embedding embedding = new Embedding(200, 50);
    double sum = 0;
    double squares = 0;
    for (double v : embedding.weight().toDoubleArray()) {
      sum += v;
      squares += v * v;
    }
    assertEquals(0, sum / 10000, 0.05);
    assertEquals(1, squares / 10000, 0.1);
    IllegalArgumentException dtype =
        assertThrows(
            IllegalArgumentException.class,
            () -> embedding.forward(Tensor.zeros(Shape.of(2, 3), Device.cpu())));
    assertEquals(
        "Embedding: indices must be int64, got float32 (shape [2, 3])", dtype.getMessage());
    Tensor onCuda = Tensor.of(new long[] {1}, Shape.of(1), CUDA);
    assertThrows(DeviceMismatchException.class, () -> embedding.forward(onCuda));
    assertThrows(
        IndexOutOfBoundsException.class,
        () -> embedding.forward(Tensor.of(new long[] {200}, Shape.of(1), Device.cpu())));
    assertEquals(List.of("weight"), List.copyOf(embedding.stateDict().keySet()));
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  @SuppressWarnings("ModelNotMoved")
  void flattenKeepsTheBatchDimensionByDefault(Device device) {
    Tensor x = Tensor.randn(Shape.of(2, 3, 4, 5), device);
    assertEquals(Shape.of(2, 60), new Flatten().forward(x).shape());
    assertEquals(Shape.of(2, 12, 5), new Flatten(1, 2).forward(x).shape());
    assertEquals(Shape.of(120), new Flatten(0, -1).forward(x).shape());
    Reference.assertClose("same elements", x.toDoubleArray(), new Flatten().forward(x), 0);
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void sequentialChainsItsLayersAndRegistersThem(Device device) {
    Sequential net = new Sequential(new Linear(4, 3), new ReLU(), new Linear(3, 2));
    net.toDevice(device);
    Tensor x = Tensor.randn(Shape.of(5, 4), device);
    Linear first = (Linear) net.get(0);
    Linear last = (Linear) net.get(2);
    Tensor expected = last.forward(first.forward(x).relu());
    Reference.assertClose("chained", expected.toDoubleArray(), net.forward(x), 0);
    assertEquals(3, net.size());
    assertEquals(
        List.of("layers.0.weight", "layers.0.bias", "layers.2.weight", "layers.2.bias"),
        List.copyOf(net.stateDict().keySet()));
    assertEquals(4, net.parameters().size());
    net.forward(x).sum().backward();
    for (Parameter p : net.parameters()) {
      assertEquals(device, p.grad().device());
    }
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void sequentialRunsALinearAndItsReluAsOneOpWithTheSameGradients(Device device) {
    Sequential net = new Sequential(new Linear(4, 3), new ReLU(), new Linear(3, 2), new ReLU());
    net.toDevice(device);
    Linear first = (Linear) net.get(0);
    Linear last = (Linear) net.get(2);
    Tensor x = Tensor.randn(Shape.of(5, 4), device).requiresGrad(true);
    Tensor y = net.forward(x);
    assertEquals("linearRelu", y.gradFnName());
    Tensor x2 = x.detach().clone().requiresGrad(true);
    Tensor expected = last.forward(first.forward(x2).relu()).relu();
    Reference.assertClose("values", expected.toDoubleArray(), y, 0);
    y.sum().backward();
    List<Tensor> fusedGrads = new ArrayList<>();
    for (Parameter p : net.parameters()) {
      fusedGrads.add(p.grad().clone());
    }
    net.zeroGrad();
    expected.sum().backward();
    for (int i = 0; i < fusedGrads.size(); i++) {
      Reference.assertClose(
          "gradient " + i, net.parameters().get(i).grad().toDoubleArray(), fusedGrads.get(i), 0);
    }
    Reference.assertClose("input gradient", x2.grad().toDoubleArray(), x.grad(), 0);
  }

  /** A linear layer whose forward is not {@code Linear}'s: a Sequential must call it. */
  static final class ScaledLinear extends Linear {
    ScaledLinear() {
      super(3, 3);
    }

    @Override
    public Tensor forward(Tensor x) {
      return super.forward(x).mul(-1.0);
    }
  }

  @Test
  void sequentialLeavesASubclassOfLinearToItsOwnForward() {
    Linear scaled = new ScaledLinear();
    Tensor x = Tensor.randn(Shape.of(2, 3));
    Tensor y = new Sequential(scaled, new ReLU()).forward(x);
    Reference.assertClose(
        "relu of the subclass's forward", scaled.forward(x).relu().toDoubleArray(), y, 0);
  }

  @Test
  void everyLayerMovesToCuda0WithItsStateAndComputesTheSameThere() {
    Tensor image = Tensor.randn(Shape.of(2, 2, 5, 5), Device.cpu());
    Tensor rows = Tensor.randn(Shape.of(4, 3), Device.cpu());
    Tensor indices = Tensor.of(new long[] {4, 0, 2}, Shape.of(3), Device.cpu());
    Object[][] cases = {
      {new Conv2d(2, 3, 3, 1, 1, true), image},
      {new MaxPool2d(2), image},
      {new AvgPool2d(3, 2, 1), image},
      {new BatchNorm2d(2), image},
      {new BatchNorm1d(3), rows},
      {new LayerNorm(3), rows},
      {new Embedding(5, 4), indices},
      {new Linear(3, 2), rows},
      {new Flatten(), image},
      {new Dropout(0.3), rows},
      {new ReLU(), rows},
      {new Tanh(), rows},
      {new Sigmoid(), rows},
      {new GELU(), rows},
      {new LeakyReLU(), rows},
      {new Softmax(1), rows},
      {new LogSoftmax(1), rows},
      {new Sequential(new Linear(3, 3), new Tanh()), rows}
    };
    for (Object[] c : cases) {
      Layer layer = (Layer) c[0];
      Tensor x = (Tensor) c[1];
      String name = layer.getClass().getSimpleName();
      layer.eval();
      double[] onCpu = layer.forward(x).toDoubleArray();
      layer.toDevice(CUDA);
      for (Parameter p : layer.parameters()) {
        assertEquals(CUDA, p.device(), name + " parameter");
      }
      for (Tensor b : layer.namedBuffers().values()) {
        assertEquals(CUDA, b.device(), name + " buffer");
      }
      Tensor y = layer.forward(x.to(CUDA));
      assertEquals(CUDA, y.device(), name + " output");
      Reference.assertClose(name + " on cuda:0", onCpu, y, 1e-6);
    }
  }

  @Test
  void sequentialAndLayerListMoveTrainAndSaveTheirLayers() {
    Sequential net =
        new Sequential(new Conv2d(1, 2, 3), new BatchNorm2d(2), new Dropout(), new Flatten());
    net.toDevice(CUDA);
    assertEquals(CUDA, ((BatchNorm2d) net.get(1)).runningMean().device());
    assertEquals(CUDA, ((Conv2d) net.get(0)).weight().device());
    net.eval();
    assertTrue(!net.get(2).isTraining() && !net.get(1).isTraining());
    Tensor x = Tensor.randn(Shape.of(2, 1, 5, 5), CUDA);
    assertEquals(Shape.of(2, 18), net.forward(x).shape());
    assertEquals(0, ((BatchNorm2d) net.get(1)).numBatchesTracked().itemAsLong());

    List<Layer> blocks = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      blocks.add(new Linear(4, 4));
    }
    LayerList list = new LayerList(blocks);
    assertEquals(3, list.size());
    assertEquals(
        List.of(
            "layers.0.weight",
            "layers.0.bias",
            "layers.1.weight",
            "layers.1.bias",
            "layers.2.weight",
            "layers.2.bias"),
        List.copyOf(list.stateDict().keySet()));
    list.toDevice(CUDA);
    Tensor h = Tensor.randn(Shape.of(2, 4), CUDA);
    for (Layer block : list) {
      h = h.add(block.forward(h));
    }
    assertEquals(CUDA, h.device());
    assertSame(blocks.get(1), list.get(1));
    list.eval();
    assertTrue(!list.get(0).isTraining());
    assertEquals(2, new LayerList(new ReLU(), new Tanh()).size());
  }
}
