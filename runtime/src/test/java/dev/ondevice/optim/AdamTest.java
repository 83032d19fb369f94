package dev.ondevice.optim;

import static dev.ondevice.optim.OptimFixtures.GRADS;
import static dev.ondevice.optim.OptimFixtures.THETA;
import static dev.ondevice.optim.OptimFixtures.assertClose;
import static dev.ondevice.optim.OptimFixtures.message;
import static dev.ondevice.optim.OptimFixtures.parameter;
import static dev.ondevice.optim.OptimFixtures.setGrad;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Parameter;
import dev.ondevice.Tensor;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link Adam} against PyTorch's algorithm computed in doubles, on the CPU and the emulated cuda:0.
 */
class AdamTest {
  static Stream<Device> devices() {
    return OptimFixtures.devices();
  }

  /** Every device with every configuration: name, lr, beta1, beta2, eps, weight decay, amsgrad. */
  static Stream<Arguments> cases() {
    return devices()
        .flatMap(
            d ->
                Stream.of(
                    Arguments.of(d, "defaults", 1e-3, 0.9, 0.999, 1e-8, 0.0, false),
                    Arguments.of(d, "large steps", 0.1, 0.9, 0.999, 1e-8, 0.0, false),
                    Arguments.of(d, "weight decay", 0.05, 0.9, 0.999, 1e-8, 0.1, false),
                    Arguments.of(d, "amsgrad", 0.05, 0.9, 0.5, 1e-8, 0.0, true),
                    Arguments.of(d, "amsgrad and weight decay", 0.05, 0.8, 0.5, 1e-6, 0.2, true),
                    Arguments.of(
                        d, "custom betas and a large eps", 0.2, 0.5, 0.8, 1e-2, 0.0, false)));
  }

  /**
   * PyTorch's Adam in doubles: the parameter after each step. {@code decoupled} applies the weight
   * decay as AdamW does.
   */
  static double[][] reference(
      double[] theta0,
      double[][] grads,
      double lr,
      double beta1,
      double beta2,
      double eps,
      double weightDecay,
      boolean amsgrad,
      boolean decoupled) {
    int n = theta0.length;
    double[] theta = theta0.clone();
    double[] m = new double[n];
    double[] v = new double[n];
    double[] vMax = new double[n];
    double[][] out = new double[grads.length][];
    for (int t = 1; t <= grads.length; t++) {
      double[] g = grads[t - 1].clone();
      for (int i = 0; i < n; i++) {
        if (decoupled) {
          theta[i] *= 1 - lr * weightDecay;
        } else {
          g[i] += weightDecay * theta[i];
        }
        m[i] = beta1 * m[i] + (1 - beta1) * g[i];
        v[i] = beta2 * v[i] + (1 - beta2) * g[i] * g[i];
        vMax[i] = Math.max(vMax[i], v[i]);
        double mHat = m[i] / (1 - Math.pow(beta1, t));
        double vHat = (amsgrad ? vMax[i] : v[i]) / (1 - Math.pow(beta2, t));
        theta[i] -= lr * mHat / (Math.sqrt(vHat) + eps);
      }
      out[t - 1] = theta.clone();
    }
    return out;
  }

  @ParameterizedTest(name = "{1} on {0}")
  @MethodSource("cases")
  void followsPyTorchsAlgorithmStepByStep(
      Device device,
      String name,
      double lr,
      double beta1,
      double beta2,
      double eps,
      double weightDecay,
      boolean amsgrad) {
    Parameter p = parameter(THETA, device);
    Tensor view = p.detach();
    Adam adam = new Adam(List.of(p), lr, beta1, beta2, eps, weightDecay, amsgrad);
    double[][] expected =
        reference(THETA, GRADS, lr, beta1, beta2, eps, weightDecay, amsgrad, false);
    for (int t = 0; t < GRADS.length; t++) {
      setGrad(p, GRADS[t]);
      adam.step();
      assertClose(expected[t], p.toDoubleArray(), 1e-12, name + ", step " + (t + 1));
      assertClose(GRADS[t], p.grad().toDoubleArray(), 0, "the gradient is left as it was");
    }
    assertSame(p, adam.parameters().get(0));
    assertClose(p.toDoubleArray(), view.toDoubleArray(), 0, "updated in place");
    Set<String> names =
        amsgrad
            ? Set.of(Adam.EXP_AVG, Adam.EXP_AVG_SQ, Adam.MAX_EXP_AVG_SQ)
            : Set.of(Adam.EXP_AVG, Adam.EXP_AVG_SQ);
    assertEquals(names, adam.state(0).keySet());
    for (Tensor s : adam.state(0).values()) {
      assertEquals(device, s.device());
      assertEquals(DType.FLOAT64, s.dtype());
      assertEquals(p.shape(), s.shape());
    }
  }

  @Test
  void amsgradMattersForTheseGradients() {
    double[][] with = reference(THETA, GRADS, 0.05, 0.9, 0.5, 1e-8, 0, true, false);
    double[][] without = reference(THETA, GRADS, 0.05, 0.9, 0.5, 1e-8, 0, false, false);
    assertTrue(
        Math.abs(with[4][3] - without[4][3]) > 1e-3, "the test data exercises the running maximum");
  }

  @ParameterizedTest
  @MethodSource("devices")
  void biasCorrectionCountsEachParametersOwnSteps(Device device) {
    Parameter a = parameter(THETA, device);
    Parameter b = parameter(new double[] {1, -1}, device);
    Adam adam = new Adam(List.of(a, b), 0.1);
    double[][] bGrads = {{0.3, -0.1}, {0.2, 0.4}, {-0.5, 0.1}};
    for (int t = 0; t < GRADS.length; t++) {
      setGrad(a, GRADS[t]);
      b.setGrad(null);
      if (t >= 2) {
        setGrad(b, bGrads[t - 2]);
      }
      adam.step();
    }
    double[][] expectedA = reference(THETA, GRADS, 0.1, 0.9, 0.999, 1e-8, 0, false, false);
    double[][] expectedB =
        reference(new double[] {1, -1}, bGrads, 0.1, 0.9, 0.999, 1e-8, 0, false, false);
    assertClose(expectedA[4], a.toDoubleArray(), 1e-12, "a, 5 steps");
    assertClose(expectedB[2], b.toDoubleArray(), 1e-12, "b, its own 3 steps");
    Map<String, String> metadata = adam.stateDict().metadata();
    assertEquals("5", metadata.get("state.0.steps"));
    assertEquals("3", metadata.get("state.1.steps"));
  }

  @ParameterizedTest
  @MethodSource("devices")
  void float32ParametersFollowTheAlgorithmToFloatPrecision(Device device) {
    Parameter p = OptimFixtures.parameter32(THETA, device);
    Adam adam = new Adam(List.of(p), 0.05).weightDecay(0.1).amsgrad(true).betas(0.9, 0.5);
    for (double[] g : GRADS) {
      setGrad(p, g);
      adam.step();
    }
    double[][] expected = reference(THETA, GRADS, 0.05, 0.9, 0.5, 1e-8, 0.1, true, false);
    assertClose(expected[GRADS.length - 1], p.toDoubleArray(), 1e-6, "float32");
    assertEquals(DType.FLOAT32, adam.state(0).get(Adam.EXP_AVG).dtype());
  }

  @Test
  void defaultsAreTorchs() {
    Adam adam = new Adam(List.of(parameter(THETA, Device.cpu())));
    assertEquals(1e-3, adam.learningRate());
    assertEquals(0.9, adam.beta1());
    assertEquals(0.999, adam.beta2());
    assertEquals(1e-8, adam.eps());
    assertEquals(0, adam.weightDecay());
    assertFalse(adam.amsgrad());
    Map<String, String> metadata = adam.stateDict().metadata();
    assertEquals("Adam", metadata.get("type"));
    assertEquals("0.001", metadata.get("lr"));
    assertEquals("0.9,0.999", metadata.get("betas"));
    assertEquals("1.0E-8", metadata.get("eps"));
    assertEquals("0.0", metadata.get("weight_decay"));
    assertEquals("false", metadata.get("amsgrad"));
  }

  @Test
  void invalidHyperParametersAreRejectedNamingTheOptimizerAndValue() {
    List<Parameter> ps = List.of(parameter(THETA, Device.cpu()));
    message(
        IllegalArgumentException.class,
        () -> new Adam(ps, -1e-3),
        "Adam",
        "learning rate",
        "-0.001");
    message(
        IllegalArgumentException.class,
        () -> new Adam(ps).betas(1.0, 0.999),
        "Adam",
        "beta1",
        "[0, 1)",
        "1.0");
    message(
        IllegalArgumentException.class,
        () -> new Adam(ps).betas(0.9, -0.1),
        "Adam",
        "beta2",
        "-0.1");
    message(
        IllegalArgumentException.class, () -> new Adam(ps).eps(-1e-8), "Adam", "eps", "-1.0E-8");
    message(
        IllegalArgumentException.class,
        () -> new Adam(ps).weightDecay(Double.NaN),
        "Adam",
        "weight decay",
        "NaN");
    message(
        IllegalArgumentException.class,
        () -> new Adam(ps, 1e-3, 0.9, 1.5, 1e-8, 0, false),
        "Adam",
        "beta2",
        "1.5");
    Adam adam = new Adam(ps).betas(0.8, 0.9).eps(1e-6).weightDecay(0.01).amsgrad(true);
    message(IllegalArgumentException.class, () -> adam.betas(0.5, 1), "beta2");
    assertEquals(0.8, adam.beta1());
    assertEquals(0.9, adam.beta2());
    assertEquals(1e-6, adam.eps());
    assertEquals(0.01, adam.weightDecay());
    assertTrue(adam.amsgrad());
  }
}
