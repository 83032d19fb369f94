package dev.ondevice.nn;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The activation layers against their definitions, and the error function behind GELU. */
class ActivationsTest {
  private static final String DEVICES = "dev.ondevice.TestDevices#all";
  private static final double[] X = {-3, -1, -0.5, 0, 0.5, 1, 2, 3};

  private static Tensor input(Device device) {
    return Tensor.of(X, Shape.of(2, 4), device);
  }

  private static double[] map(java.util.function.DoubleUnaryOperator f) {
    double[] out = new double[X.length];
    for (int i = 0; i < X.length; i++) {
      out[i] = f.applyAsDouble(X[i]);
    }
    return out;
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void elementwiseActivationsFollowTheirDefinitions(Device device) {
    Tensor x = input(device);
    Reference.assertClose("ReLU", map(v -> Math.max(v, 0)), new ReLU().forward(x), 0);
    Reference.assertClose("Tanh", map(Math::tanh), new Tanh().forward(x), 1e-15);
    Reference.assertClose(
        "Sigmoid", map(v -> 1 / (1 + Math.exp(-v))), new Sigmoid().forward(x), 1e-15);
    Reference.assertClose(
        "LeakyReLU", map(v -> v > 0 ? v : 0.01 * v), new LeakyReLU().forward(x), 1e-15);
    Reference.assertClose(
        "LeakyReLU(0.2)", map(v -> v > 0 ? v : 0.2 * v), new LeakyReLU(0.2).forward(x), 1e-15);
    assertEquals(device, new LeakyReLU().forward(x).device());
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void geluIsExactByDefaultAndTheTanhFormOnRequest(Device device) {
    double[] exact = {
      -0.00404969409489031,
      -0.15865525393145707,
      -0.15426876936299344,
      0.0,
      0.34573123063700656,
      0.8413447460685429,
      1.9544997361036416,
      2.99595030590511
    };
    Reference.assertClose("GELU", exact, new GELU().forward(input(device)), 1e-14);
    double c = Math.sqrt(2 / Math.PI);
    Reference.assertClose(
        "GELU tanh",
        map(v -> 0.5 * v * (1 + Math.tanh(c * (v + 0.044715 * v * v * v)))),
        new GELU(GELU.Approximation.TANH).forward(input(device)),
        1e-15);
    Tensor f32 = new GELU().forward(input(device).to(DType.FLOAT32));
    assertEquals(DType.FLOAT32, f32.dtype());
    Reference.assertClose("GELU float32", exact, f32, 1e-6);
  }

  @Test
  void erfMatchesReferenceValuesAcrossItsRange() {
    double[] x = {0.5, 1, 2, 3, -1.5, 0.1, -0.01, 4, 5.5, 7, -9, 0};
    double[] expected = {
      0.5204998778130465,
      0.8427007929497149,
      0.9953222650189527,
      0.9999779095030014,
      -0.9661051464753108,
      0.1124629160182849,
      -0.011283415555849616,
      0.9999999845827421,
      0.9999999999999927,
      1,
      -1,
      0
    };
    Reference.assertClose("erf", expected, Tensor.of(x).erf(), 1e-15);
    Reference.assertClose("erf of NaN", new double[] {Double.NaN}, Tensor.of(Double.NaN).erf(), 0);
    assertEquals(DType.FLOAT32, Tensor.of(1L, 2L).erf().dtype());
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void softmaxLayersNormaliseAlongTheirDimension(Device device) {
    Tensor x = input(device);
    double[] expected = new double[8];
    double[] logExpected = new double[8];
    for (int r = 0; r < 2; r++) {
      double lse = Reference.logSumExp(X, 2, 4)[r];
      for (int c = 0; c < 4; c++) {
        logExpected[r * 4 + c] = X[r * 4 + c] - lse;
        expected[r * 4 + c] = Math.exp(logExpected[r * 4 + c]);
      }
    }
    Reference.assertClose("Softmax(1)", expected, new Softmax(1).forward(x), 1e-15);
    Reference.assertClose("LogSoftmax(-1)", logExpected, new LogSoftmax(-1).forward(x), 1e-15);
    Reference.assertClose(
        "Softmax(0) of a column sums to 1",
        new double[] {1, 1, 1, 1},
        new Softmax(0).forward(x).sum(0),
        1e-15);
  }

  @Test
  void activationsHaveNoState() {
    for (Layer layer :
        new Layer[] {
          new ReLU(),
          new Tanh(),
          new Sigmoid(),
          new GELU(),
          new LeakyReLU(),
          new Softmax(1),
          new LogSoftmax(1)
        }) {
      assertEquals(0, layer.stateDict().size(), layer.getClass().getSimpleName());
    }
  }
}
