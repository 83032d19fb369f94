package dev.ondevice.optim;

import static dev.ondevice.optim.OptimFixtures.GRADS;
import static dev.ondevice.optim.OptimFixtures.THETA;
import static dev.ondevice.optim.OptimFixtures.assertClose;
import static dev.ondevice.optim.OptimFixtures.message;
import static dev.ondevice.optim.OptimFixtures.parameter;
import static dev.ondevice.optim.OptimFixtures.setGrad;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.DeviceStats;
import dev.ondevice.Generator;
import dev.ondevice.Parameter;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.nn.Linear;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link Sgd} against PyTorch's algorithm computed in doubles, on the CPU and the emulated cuda:0.
 */
class SgdTest {
  static Stream<Device> devices() {
    return OptimFixtures.devices();
  }

  /**
   * Every device with every configuration: name, lr, momentum, dampening, weight decay, nesterov.
   */
  static Stream<Arguments> cases() {
    return devices()
        .flatMap(
            d ->
                Stream.of(
                    Arguments.of(d, "plain", 0.1, 0.0, 0.0, 0.0, false),
                    Arguments.of(d, "momentum", 0.1, 0.9, 0.0, 0.0, false),
                    Arguments.of(d, "momentum and dampening", 0.05, 0.8, 0.3, 0.0, false),
                    Arguments.of(d, "nesterov", 0.1, 0.9, 0.0, 0.0, true),
                    Arguments.of(d, "weight decay", 0.1, 0.0, 0.0, 0.05, false),
                    Arguments.of(
                        d, "momentum, dampening and weight decay", 0.2, 0.5, 0.5, 0.1, false),
                    Arguments.of(d, "nesterov and weight decay", 0.07, 0.95, 0.0, 0.01, true)));
  }

  /** PyTorch's SGD in doubles: the parameter after each step. */
  static double[][] reference(
      double[] theta0,
      double[][] grads,
      double lr,
      double momentum,
      double dampening,
      double weightDecay,
      boolean nesterov) {
    double[] theta = theta0.clone();
    double[] buffer = null;
    double[][] out = new double[grads.length][];
    for (int t = 0; t < grads.length; t++) {
      double[] d = new double[theta.length];
      for (int i = 0; i < d.length; i++) {
        d[i] = grads[t][i] + weightDecay * theta[i];
      }
      if (momentum != 0) {
        if (buffer == null) {
          buffer = d.clone();
        } else {
          for (int i = 0; i < d.length; i++) {
            buffer[i] = momentum * buffer[i] + (1 - dampening) * d[i];
          }
        }
        for (int i = 0; i < d.length; i++) {
          d[i] = nesterov ? d[i] + momentum * buffer[i] : buffer[i];
        }
      }
      for (int i = 0; i < d.length; i++) {
        theta[i] -= lr * d[i];
      }
      out[t] = theta.clone();
    }
    return out;
  }

  @ParameterizedTest(name = "{1} on {0}")
  @MethodSource("cases")
  void followsPyTorchsAlgorithmStepByStep(
      Device device,
      String name,
      double lr,
      double momentum,
      double dampening,
      double weightDecay,
      boolean nesterov) {
    Parameter p = parameter(THETA, device);
    Tensor view = p.detach();
    Sgd sgd = new Sgd(List.of(p), lr, momentum, dampening, weightDecay, nesterov);
    double[][] expected = reference(THETA, GRADS, lr, momentum, dampening, weightDecay, nesterov);
    for (int t = 0; t < GRADS.length; t++) {
      setGrad(p, GRADS[t]);
      sgd.step();
      assertClose(expected[t], p.toDoubleArray(), 1e-13, name + ", step " + (t + 1));
      assertClose(GRADS[t], p.grad().toDoubleArray(), 0, "the gradient is left as it was");
    }
    assertSame(p, sgd.parameters().get(0));
    assertClose(
        p.toDoubleArray(), view.toDoubleArray(), 0, "updated in place: a view sees the update");
    assertEquals(device, p.device());
    if (momentum == 0) {
      assertTrue(sgd.state(0).isEmpty(), "no state without momentum");
    } else {
      Tensor buffer = sgd.state(0).get(Sgd.MOMENTUM_BUFFER);
      assertEquals(device, buffer.device());
      assertEquals(DType.FLOAT64, buffer.dtype());
      assertEquals(Shape.of(THETA.length), buffer.shape());
    }
  }

  @ParameterizedTest
  @MethodSource("devices")
  void theMomentumBufferStartsAsACopyOfTheDecayedGradient(Device device) {
    Parameter p = parameter(THETA, device);
    Sgd sgd = new Sgd(List.of(p), 0.1).momentum(0.9).weightDecay(0.5);
    setGrad(p, GRADS[0]);
    sgd.step();
    double[] decayed = new double[THETA.length];
    for (int i = 0; i < decayed.length; i++) {
      decayed[i] = GRADS[0][i] + 0.5 * THETA[i];
    }
    Tensor buffer = sgd.state(0).get(Sgd.MOMENTUM_BUFFER);
    assertClose(decayed, buffer.toDoubleArray(), 1e-15, "buffer after the first step");

    Parameter q = parameter(THETA, device);
    Sgd plain = new Sgd(List.of(q), 0.1).momentum(0.9);
    setGrad(q, GRADS[0]);
    plain.step();
    Tensor copy = plain.state(0).get(Sgd.MOMENTUM_BUFFER);
    assertNotSame(q.grad(), copy);
    q.grad().fill(7);
    assertClose(
        GRADS[0], copy.toDoubleArray(), 0, "the buffer does not share the gradient's memory");
  }

  @ParameterizedTest
  @MethodSource("devices")
  void float32ParametersFollowTheAlgorithmToFloatPrecision(Device device) {
    Parameter p = OptimFixtures.parameter32(THETA, device);
    Sgd sgd = new Sgd(List.of(p), 0.1).momentum(0.9).weightDecay(0.01).nesterov(true);
    double[][] expected = reference(THETA, GRADS, 0.1, 0.9, 0, 0.01, true);
    for (int t = 0; t < GRADS.length; t++) {
      setGrad(p, GRADS[t]);
      sgd.step();
    }
    assertEquals(DType.FLOAT32, p.dtype());
    assertEquals(DType.FLOAT32, sgd.state(0).get(Sgd.MOMENTUM_BUFFER).dtype());
    assertClose(expected[GRADS.length - 1], p.toDoubleArray(), 1e-6, "float32");
  }

  @ParameterizedTest
  @MethodSource("devices")
  void parametersWithoutAGradientAreSkipped(Device device) {
    Parameter a = parameter(THETA, device);
    Parameter b = parameter(new double[] {1, 2}, device);
    Sgd sgd = new Sgd(List.of(a, b), 0.1).momentum(0.9);
    setGrad(a, GRADS[0]);
    sgd.step();
    assertClose(new double[] {1, 2}, b.toDoubleArray(), 0, "untouched");
    assertTrue(sgd.state(1).isEmpty());
    assertEquals("1", sgd.stateDict().metadata().get("state.0.steps"));
    assertEquals("0", sgd.stateDict().metadata().get("state.1.steps"));
    sgd.zeroGrad();
    assertNull(a.grad());
  }

  @ParameterizedTest
  @MethodSource("devices")
  void fitsALinearRegressionWithMomentumReadingTheLossOncePerEpoch(Device device) {
    Generator data = new Generator(11);
    Tensor x = Tensor.randn(Shape.of(64, 3), DType.FLOAT32, device, data);
    Tensor trueWeight = Tensor.of(new float[] {2, -3, 0.5f}, Shape.of(1, 3), device);
    Tensor y = x.matmul(trueWeight.t()).add(0.7);

    Generator.manualSeed(3);
    Linear model = new Linear(3, 1);
    Sgd sgd = new Sgd(model.parameters(), 0.05).momentum(0.9);
    model.toDevice(device);
    assertSame(model.weight(), sgd.parameters().get(0));

    double epochLoss = Double.NaN;
    for (int epoch = 0; epoch < 60; epoch++) {
      long syncs = DeviceStats.of(device).syncs();
      Tensor total = Tensor.zeros(Shape.scalar(), device);
      for (int start = 0; start < 64; start += 16) {
        Tensor xb = x.slice(0, start, start + 16);
        Tensor yb = y.slice(0, start, start + 16);
        sgd.zeroGrad();
        Tensor loss = model.forward(xb).sub(yb).square().mean();
        loss.backward();
        sgd.step();
        total = total.add(loss.detach());
      }
      epochLoss = total.item() / 4;
      assertEquals(syncs + 1, DeviceStats.of(device).syncs(), "one host read per epoch");
    }
    assertTrue(epochLoss < 1e-6, "converged: mean loss " + epochLoss);
    assertClose(new double[] {2, -3, 0.5}, model.weight().toDoubleArray(), 1e-4, "weight");
    assertClose(new double[] {0.7}, model.bias().toDoubleArray(), 1e-4, "bias");
    assertEquals(device, model.weight().device());
  }

  @ParameterizedTest
  @MethodSource("devices")
  void invalidHyperParametersAreRejectedNamingTheOptimizerAndValue(Device device) {
    List<Parameter> ps = List.of(parameter(THETA, device));
    message(
        IllegalArgumentException.class, () -> new Sgd(ps, -0.1), "Sgd", "learning rate", "-0.1");
    message(IllegalArgumentException.class, () -> new Sgd(ps, Double.NaN), "Sgd", "NaN");
    message(
        IllegalArgumentException.class,
        () -> new Sgd(ps, 0.1).momentum(-0.5),
        "Sgd",
        "momentum",
        "-0.5");
    message(
        IllegalArgumentException.class,
        () -> new Sgd(ps, 0.1).dampening(-1),
        "Sgd",
        "dampening",
        "-1.0");
    message(
        IllegalArgumentException.class,
        () -> new Sgd(ps, 0.1).weightDecay(-1e-4),
        "Sgd",
        "weight decay",
        "-1.0E-4");
    message(
        IllegalArgumentException.class,
        () -> new Sgd(ps, 0.1).nesterov(true),
        "Sgd",
        "Nesterov",
        "momentum 0.0",
        "set the momentum before nesterov");
    message(
        IllegalArgumentException.class,
        () -> new Sgd(ps, 0.1, 0.9, 0.1, 0, true),
        "Sgd",
        "Nesterov",
        "dampening 0.1");
    message(IllegalArgumentException.class, () -> new Sgd(List.of(), 0.1), "Sgd", "empty");
    Parameter p = ps.get(0);
    message(
        IllegalArgumentException.class, () -> new Sgd(List.of(p, p), 0.1), "Sgd", "more than once");

    Sgd sgd = new Sgd(ps, 0.1).momentum(0.9).nesterov(true);
    message(IllegalArgumentException.class, () -> sgd.momentum(0), "Nesterov");
    message(IllegalArgumentException.class, () -> sgd.dampening(0.5), "Nesterov");
    assertEquals(0.9, sgd.momentum());
    assertEquals(0, sgd.dampening());
    assertTrue(sgd.nesterov());
    sgd.nesterov(false).dampening(0.5).weightDecay(1e-4);
    assertFalse(sgd.nesterov());
    assertEquals(0.5, sgd.dampening());
    assertEquals(1e-4, sgd.weightDecay());
    assertEquals(0.1, sgd.learningRate());
  }
}
