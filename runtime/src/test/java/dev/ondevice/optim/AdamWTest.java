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
import dev.ondevice.OptimizerSteps.AdamStep;
import dev.ondevice.Parameter;
import dev.ondevice.Tensor;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link AdamW} against PyTorch's algorithm computed in doubles, on the CPU and the emulated
 * cuda:0.
 */
class AdamWTest {
  static Stream<Device> devices() {
    return OptimFixtures.devices();
  }

  /** Every device with every configuration: name, lr, beta1, beta2, eps, weight decay, amsgrad. */
  static Stream<Arguments> cases() {
    return devices()
        .flatMap(
            d ->
                Stream.of(
                    Arguments.of(d, "default decay", 0.01, 0.9, 0.999, 1e-8, 1e-2, false),
                    Arguments.of(d, "strong decay", 0.1, 0.9, 0.999, 1e-8, 0.5, false),
                    Arguments.of(d, "no decay", 0.1, 0.9, 0.999, 1e-8, 0.0, false),
                    Arguments.of(d, "amsgrad and decay", 0.05, 0.8, 0.5, 1e-6, 0.2, true)));
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
    AdamW adamW = new AdamW(List.of(p), lr, beta1, beta2, eps, weightDecay, amsgrad);
    double[][] expected =
        AdamTest.reference(THETA, GRADS, lr, beta1, beta2, eps, weightDecay, amsgrad, true);
    for (int t = 0; t < GRADS.length; t++) {
      setGrad(p, GRADS[t]);
      adamW.step();
      assertClose(expected[t], p.toDoubleArray(), 1e-12, name + ", step " + (t + 1));
      assertClose(GRADS[t], p.grad().toDoubleArray(), 0, "the gradient is left as it was");
    }
    assertSame(p, adamW.parameters().get(0));
    assertClose(p.toDoubleArray(), view.toDoubleArray(), 0, "updated in place");
    Set<String> names =
        amsgrad
            ? Set.of(Adam.EXP_AVG, Adam.EXP_AVG_SQ, Adam.MAX_EXP_AVG_SQ)
            : Set.of(Adam.EXP_AVG, Adam.EXP_AVG_SQ);
    assertEquals(names, adamW.state(0).keySet());
    for (Tensor s : adamW.state(0).values()) {
      assertEquals(device, s.device());
      assertEquals(DType.FLOAT64, s.dtype());
    }
  }

  @Test
  void decoupledDecayDiffersFromAdamsL2() {
    double[][] decoupled =
        AdamTest.reference(THETA, GRADS, 0.1, 0.9, 0.999, 1e-8, 0.5, false, true);
    double[][] l2 = AdamTest.reference(THETA, GRADS, 0.1, 0.9, 0.999, 1e-8, 0.5, false, false);
    assertTrue(Math.abs(decoupled[4][2] - l2[4][2]) > 1e-3, "the test data tells AdamW from Adam");
  }

  @ParameterizedTest
  @MethodSource("devices")
  void withoutDecayItIsAdam(Device device) {
    Parameter a = parameter(THETA, device);
    Parameter b = parameter(THETA, device);
    Adam adam = new Adam(List.of(a), 0.1).amsgrad(true);
    AdamW adamW = new AdamW(List.of(b), 0.1).weightDecay(0).amsgrad(true);
    for (double[] g : GRADS) {
      setGrad(a, g);
      setGrad(b, g);
      adam.step();
      adamW.step();
    }
    assertClose(a.toDoubleArray(), b.toDoubleArray(), 0, "AdamW without decay");
  }

  @ParameterizedTest
  @MethodSource("devices")
  void float32ParametersFollowTheAlgorithmToFloatPrecision(Device device) {
    Parameter p = OptimFixtures.parameter32(THETA, device);
    AdamW adamW = new AdamW(List.of(p), 0.05).weightDecay(0.2);
    for (double[] g : GRADS) {
      setGrad(p, g);
      adamW.step();
    }
    double[][] expected =
        AdamTest.reference(THETA, GRADS, 0.05, 0.9, 0.999, 1e-8, 0.2, false, true);
    assertClose(expected[GRADS.length - 1], p.toDoubleArray(), 1e-6, "float32");
  }

  @Test
  void defaultsAreTorchs() {
    AdamW adamW = new AdamW(List.of(parameter(THETA, Device.cpu())));
    assertEquals(1e-3, adamW.learningRate());
    assertEquals(0.9, adamW.beta1());
    assertEquals(0.999, adamW.beta2());
    assertEquals(1e-8, adamW.eps());
    assertEquals(1e-2, adamW.weightDecay());
    assertFalse(adamW.amsgrad());
    Map<String, String> metadata = adamW.stateDict().metadata();
    assertEquals("AdamW", metadata.get("type"));
    assertEquals("0.01", metadata.get("weight_decay"));
    assertEquals("0.9,0.999", metadata.get("betas"));
  }

  @Test
  void invalidHyperParametersAreRejectedNamingTheOptimizerAndValue() {
    List<Parameter> ps = List.of(parameter(THETA, Device.cpu()));
    message(
        IllegalArgumentException.class, () -> new AdamW(ps, -1), "AdamW", "learning rate", "-1.0");
    message(
        IllegalArgumentException.class,
        () -> new AdamW(ps).betas(-0.1, 0.9),
        "AdamW",
        "beta1",
        "-0.1");
    message(
        IllegalArgumentException.class, () -> new AdamW(ps).eps(Double.NaN), "AdamW", "eps", "NaN");
    message(
        IllegalArgumentException.class,
        () -> new AdamW(ps).weightDecay(-0.01),
        "AdamW",
        "weight decay",
        "-0.01");
    message(
        IllegalArgumentException.class,
        () -> new AdamW(ps, 1e-3, 0.9, 0.999, 1e-8, -1, true),
        "AdamW",
        "weight decay");
  }

  /**
   * One step from θ = 1 with g = 0.5, lr 0.1, λ 0.5, worked by hand. Adam: g = 0.5 + 0.5·1 = 1, m =
   * 0.1, v = 0.001, so m̂ = v̂ = 1 and θ = 1 − 0.1/(1 + 1e-8) = 0.900000001. AdamW: θ = 1·(1 −
   * 0.1·0.5) = 0.95, m = 0.05, v = 0.00025, m̂ = 0.5, √v̂ = 0.5, θ = 0.95 − 0.1·0.5/(0.5 + 1e-8) =
   * 0.850000002.
   */
  @ParameterizedTest
  @MethodSource("devices")
  void oneStepOfEachMatchesTheHandComputedValue(Device device) {
    Parameter a = parameter(new double[] {1}, device);
    Parameter b = parameter(new double[] {1}, device);
    Adam adam = new Adam(List.of(a), 0.1).weightDecay(0.5);
    AdamW adamW = new AdamW(List.of(b), 0.1).weightDecay(0.5);
    setGrad(a, new double[] {0.5});
    setGrad(b, new double[] {0.5});
    adam.step();
    adamW.step();
    assertClose(new double[] {0.900000001}, a.toDoubleArray(), 1e-15, "Adam, L2 decay");
    assertClose(new double[] {0.850000002}, b.toDoubleArray(), 1e-15, "AdamW, decoupled decay");
    assertClose(
        new double[] {0.05}, adamW.state(0).get(Adam.EXP_AVG).toDoubleArray(), 1e-16, "AdamW's m");
    assertClose(
        new double[] {0.00025},
        adamW.state(0).get(Adam.EXP_AVG_SQ).toDoubleArray(),
        1e-18,
        "AdamW's v");
  }

  @Test
  void theBackendsGetTheSameFusedStepRecordsAsBefore() {
    List<Parameter> ps = List.of(parameter(THETA, Device.cpu()));
    assertEquals(
        new AdamStep(0.1, 0.8, 0.9, 1e-6, 0.25, false, true, 3),
        new Adam(ps, 0.1, 0.8, 0.9, 1e-6, 0.25, true).stepAt(3));
    assertEquals(
        new AdamStep(0.1, 0.8, 0.9, 1e-6, 0.25, true, true, 3),
        new AdamW(ps, 0.1, 0.8, 0.9, 1e-6, 0.25, true).stepAt(3));
    assertEquals(new AdamStep(1e-3, 0.9, 0.999, 1e-8, 0, false, false, 1), new Adam(ps).stepAt(1));
    assertEquals(
        new AdamStep(1e-3, 0.9, 0.999, 1e-8, 1e-2, true, false, 1), new AdamW(ps).stepAt(1));
    AdamW tuned = new AdamW(ps).betas(0.5, 0.6).eps(1e-4).weightDecay(0).amsgrad(true);
    tuned.setLearningRate(0.2);
    assertEquals(new AdamStep(0.2, 0.5, 0.6, 1e-4, 0, true, true, 7), tuned.stepAt(7));
  }

  @Test
  void bothStateDictsNameTensorsAndHyperParametersAsBefore() {
    for (boolean decoupled : new boolean[] {false, true}) {
      Parameter p = parameter(THETA, Device.cpu());
      Optimizer optimizer =
          decoupled
              ? new AdamW(List.of(p), 0.05, 0.8, 0.9, 1e-6, 0.3, true)
              : new Adam(List.of(p), 0.05, 0.8, 0.9, 1e-6, 0.3, true);
      setGrad(p, GRADS[0]);
      optimizer.step();
      OptimizerState saved = optimizer.stateDict();
      assertEquals(
          List.of("state.0.exp_avg", "state.0.exp_avg_sq", "state.0.max_exp_avg_sq"),
          List.copyOf(saved.tensors().keySet()));
      Map<String, String> expected = new LinkedHashMap<>();
      expected.put("type", decoupled ? "AdamW" : "Adam");
      expected.put("lr", "0.05");
      expected.put("betas", "0.8,0.9");
      expected.put("eps", "1.0E-6");
      expected.put("weight_decay", "0.3");
      expected.put("amsgrad", "true");
      expected.put("state.0.steps", "1");
      assertEquals(expected, saved.metadata());
    }
  }
}
