package dev.ondevice.optim;

import static dev.ondevice.optim.OptimFixtures.GRADS;
import static dev.ondevice.optim.OptimFixtures.THETA;
import static dev.ondevice.optim.OptimFixtures.assertClose;
import static dev.ondevice.optim.OptimFixtures.message;
import static dev.ondevice.optim.OptimFixtures.parameter;
import static dev.ondevice.optim.OptimFixtures.setGrad;
import static org.junit.jupiter.api.Assertions.assertEquals;
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
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Optimizer state across devices: following a moved model, saving and loading (onto the parameters'
 * devices), the errors of a mismatched state, and steps that never wait for the device.
 */
class OptimizerStateTest {
  private static final Device CPU = Device.cpu();
  private static final Device CUDA = Device.cuda(0);

  /** An optimizer kind: configured with every option, and with defaults (to load a state into). */
  enum Kind {
    SGD,
    ADAM,
    ADAMW;

    Optimizer configured(List<Parameter> ps) {
      return switch (this) {
        case SGD -> new Sgd(ps, 0.05).momentum(0.9).weightDecay(0.01).nesterov(true);
        case ADAM -> new Adam(ps, 0.05).betas(0.8, 0.5).weightDecay(0.1).amsgrad(true);
        case ADAMW -> new AdamW(ps, 0.05).betas(0.85, 0.9).eps(1e-6).amsgrad(true);
      };
    }

    Optimizer defaults(List<Parameter> ps) {
      return switch (this) {
        case SGD -> new Sgd(ps, 1);
        case ADAM -> new Adam(ps);
        case ADAMW -> new AdamW(ps);
      };
    }
  }

  static Stream<Device> devices() {
    return OptimFixtures.devices();
  }

  /** Every kind, saved on one device and loaded on another (or the same). */
  static Stream<Arguments> transfers() {
    List<Arguments> out = new ArrayList<>();
    for (Kind kind : Kind.values()) {
      for (Device from : List.of(CPU, CUDA)) {
        for (Device to : List.of(CPU, CUDA)) {
          out.add(Arguments.of(kind, from, to));
        }
      }
    }
    return out.stream();
  }

  private static List<Parameter> twoParameters(Device device) {
    return List.of(parameter(THETA, device), parameter(new double[] {3, -2}, device));
  }

  private static void step(Optimizer optimizer, double[] grad) {
    setGrad(optimizer.parameters().get(0), grad);
    setGrad(optimizer.parameters().get(1), new double[] {grad[0] - grad[1], grad[2] * grad[3]});
    optimizer.step();
  }

  @ParameterizedTest(name = "{0} saved on {1}, loaded on {2}")
  @MethodSource("transfers")
  void aLoadedStateLandsOnTheParametersDeviceAndContinuesExactly(
      Kind kind, Device from, Device to) {
    Optimizer saving = kind.configured(twoParameters(from));
    step(saving, GRADS[0]);
    step(saving, GRADS[1]);
    OptimizerState saved = saving.stateDict();

    List<Parameter> copies = new ArrayList<>();
    for (Parameter p : saving.parameters()) {
      copies.add(parameter(p.toDoubleArray(), to));
    }
    Optimizer loading = kind.defaults(copies);
    loading.loadStateDict(saved);
    assertEquals(
        saved.metadata(),
        loading.stateDict().metadata(),
        "type, learning rate, hyper-parameters, steps");
    for (int i = 0; i < 2; i++) {
      assertEquals(saving.state(i).keySet(), loading.state(i).keySet());
      for (Map.Entry<String, Tensor> e : loading.state(i).entrySet()) {
        assertEquals(to, e.getValue().device(), e.getKey() + " on the parameter's device");
        assertClose(
            saving.state(i).get(e.getKey()).toDoubleArray(),
            e.getValue().toDoubleArray(),
            0,
            e.getKey());
      }
    }
    double[] loadedBuffer = loading.state(0).values().iterator().next().toDoubleArray();
    step(saving, GRADS[2]);
    assertClose(
        loadedBuffer,
        loading.state(0).values().iterator().next().toDoubleArray(),
        0,
        "a loaded state is a copy: later steps of the saving optimizer leave it alone");
    step(loading, GRADS[2]);

    for (int t = 3; t < GRADS.length; t++) {
      step(saving, GRADS[t]);
      step(loading, GRADS[t]);
    }
    for (int i = 0; i < 2; i++) {
      assertClose(
          saving.parameters().get(i).toDoubleArray(),
          loading.parameters().get(i).toDoubleArray(),
          0,
          "parameter " + i + " after resuming");
    }
  }

  @Test
  void theStateDictNamesTensorsByParameterAndHyperParametersAsPyTorch() {
    Sgd sgd = new Sgd(twoParameters(CPU), 0.05, 0.9, 0.1, 0.01, false);
    step(sgd, GRADS[0]);
    OptimizerState saved = sgd.stateDict();
    assertEquals(
        List.of("state.0.momentum_buffer", "state.1.momentum_buffer"),
        List.copyOf(saved.tensors().keySet()));
    Map<String, String> expected = new LinkedHashMap<>();
    expected.put("type", "Sgd");
    expected.put("lr", "0.05");
    expected.put("momentum", "0.9");
    expected.put("dampening", "0.1");
    expected.put("weight_decay", "0.01");
    expected.put("nesterov", "false");
    expected.put("state.0.steps", "1");
    expected.put("state.1.steps", "1");
    assertEquals(expected, saved.metadata());
    assertTrue(!saved.tensors().get("state.0.momentum_buffer").requiresGrad());
  }

  @Test
  void theSameOptimizerFollowsALinearModelToTheDevice() {
    Generator.manualSeed(5);
    Linear model = new Linear(3, 2);
    Linear twin = new Linear(3, 2);
    twin.loadStateDict(model.stateDict(), true);
    Adam adam = new Adam(model.parameters(), 0.01).amsgrad(true);
    Adam twinAdam = new Adam(twin.parameters(), 0.01).amsgrad(true);
    Tensor x = Tensor.randn(Shape.of(5, 3), DType.FLOAT32, CPU, new Generator(9));
    Tensor y = Tensor.randn(Shape.of(5, 2), DType.FLOAT32, CPU, new Generator(10));
    for (int t = 0; t < 2; t++) {
      trainStep(model, adam, x, y);
      trainStep(twin, twinAdam, x, y);
    }
    List<Parameter> before = model.parameters();

    model.toDevice(CUDA);
    assertSame(before.get(0), adam.parameters().get(0));
    assertSame(before.get(1), adam.parameters().get(1));
    assertSame(model.weight(), adam.parameters().get(0));
    assertEquals(CUDA, adam.parameters().get(0).device());
    assertEquals(CPU, adam.state(0).get(Adam.EXP_AVG).device(), "the state stays until followed");
    Tensor xd = x.to(CUDA);
    Tensor yd = y.to(CUDA);
    double[] weightBefore = model.weight().toDoubleArray();
    double[] biasBefore = model.bias().toDoubleArray();
    message(
        IllegalStateException.class,
        () -> trainStep(model, adam, xd, yd),
        "Adam",
        "exp_avg",
        "cpu",
        "cuda:0",
        "followParameters()");
    assertClose(
        weightBefore, model.weight().toDoubleArray(), 0, "nothing updated by the failed step");
    assertClose(biasBefore, model.bias().toDoubleArray(), 0, "nothing updated by the failed step");
    assertEquals("2", adam.stateDict().metadata().get("state.0.steps"), "nor counted");
    assertEquals("2", adam.stateDict().metadata().get("state.1.steps"), "nor counted");

    adam.followParameters();
    for (int i = 0; i < 2; i++) {
      for (Tensor s : adam.state(i).values()) {
        assertEquals(CUDA, s.device());
      }
    }
    for (int t = 0; t < 3; t++) {
      trainStep(model, adam, xd, yd);
      trainStep(twin, twinAdam, x, y);
    }
    assertEquals(CUDA, model.weight().device());
    assertClose(
        twin.weight().toDoubleArray(),
        model.weight().toDoubleArray(),
        1e-6,
        "weight as on the cpu");
    assertClose(
        twin.bias().toDoubleArray(), model.bias().toDoubleArray(), 1e-6, "bias as on the cpu");

    model.toDevice(CPU);
    adam.followParameters();
    assertEquals(CPU, adam.state(1).get(Adam.MAX_EXP_AVG_SQ).device());
    trainStep(model, adam, x, y);
  }

  private static void trainStep(Linear model, Optimizer optimizer, Tensor x, Tensor y) {
    optimizer.zeroGrad();
    Tensor loss = model.forward(x).sub(y).square().mean();
    loss.backward();
    optimizer.step();
  }

  @ParameterizedTest
  @MethodSource("devices")
  void stepsNeverWaitForTheDevice(Device device) {
    for (Kind kind : Kind.values()) {
      Parameter w = new Parameter(Tensor.randn(Shape.of(64, 32), device));
      Parameter b = new Parameter(Tensor.randn(Shape.of(32), device));
      Optimizer optimizer = kind.configured(List.of(w, b));
      LrScheduler schedule = new CosineAnnealingLr(optimizer, 10);
      w.setGrad(Tensor.randn(Shape.of(64, 32), device));
      b.setGrad(Tensor.randn(Shape.of(32), device));
      DeviceStats before = DeviceStats.of(device);
      for (int t = 0; t < 4; t++) {
        optimizer.step();
        schedule.step();
      }
      DeviceStats after = DeviceStats.of(device);
      assertEquals(before.syncs(), after.syncs(), kind + ": host synchronisations during step()");
      assertEquals(
          before.hostToDeviceCopies(),
          after.hostToDeviceCopies(),
          kind + ": host-to-device copies");
      assertEquals(
          before.deviceToHostCopies(),
          after.deviceToHostCopies(),
          kind + ": device-to-host copies");
      assertTrue(!optimizer.state(0).isEmpty());
    }
  }

  @Test
  void aStateOfAnotherTypeIsRejected() {
    OptimizerState sgdState = new Sgd(twoParameters(CPU), 0.1).stateDict();
    Adam adam = new Adam(twoParameters(CPU));
    message(IllegalArgumentException.class, () -> adam.loadStateDict(sgdState), "Sgd", "Adam");
    OptimizerState adamState = adam.stateDict();
    message(
        IllegalArgumentException.class,
        () -> new AdamW(twoParameters(CPU)).loadStateDict(adamState),
        "Adam",
        "AdamW");
  }

  @ParameterizedTest
  @MethodSource("devices")
  void aStateOfAnotherParameterCountIsRejected(Device device) {
    Adam two = new Adam(twoParameters(device));
    step(two, GRADS[0]);
    OptimizerState ofTwo = two.stateDict();
    Adam one = new Adam(List.of(parameter(THETA, device)));
    message(
        IllegalArgumentException.class,
        () -> one.loadStateDict(ofTwo),
        "the state has more parameters than the 1 of this optimizer");

    Adam three =
        new Adam(
            List.of(
                parameter(THETA, device),
                parameter(new double[] {3, -2}, device),
                parameter(new double[] {1}, device)));
    message(
        IllegalArgumentException.class,
        () -> three.loadStateDict(ofTwo),
        "no entry for parameter 2 of 3");

    Sgd plain = new Sgd(twoParameters(device), 0.1);
    OptimizerState noTensors = plain.stateDict();
    message(
        IllegalArgumentException.class,
        () -> new Sgd(List.of(parameter(THETA, device)), 0.1).loadStateDict(noTensors),
        "more parameters");
  }

  @ParameterizedTest
  @MethodSource("devices")
  void aStateOfOtherShapesIsRejectedAndNothingChanges(Device device) {
    Sgd saving = new Sgd(List.of(parameter(new double[] {1, 2, 3}, device)), 0.1).momentum(0.9);
    setGrad(saving.parameters().get(0), new double[] {1, 1, 1});
    saving.step();
    OptimizerState ofThree = saving.stateDict();

    Parameter p = parameter(THETA, device);
    Sgd sgd = new Sgd(List.of(p), 0.2).momentum(0.5);
    setGrad(p, GRADS[0]);
    sgd.step();
    Tensor buffer = sgd.state(0).get(Sgd.MOMENTUM_BUFFER);
    message(
        IllegalArgumentException.class,
        () -> sgd.loadStateDict(ofThree),
        "state.0.momentum_buffer",
        "[3]",
        "[4]");
    assertSame(buffer, sgd.state(0).get(Sgd.MOMENTUM_BUFFER));
    assertEquals(0.2, sgd.learningRate());
    assertEquals(0.5, sgd.momentum());
  }

  @Test
  void missingOrInvalidHyperParametersAreRejectedAndNothingChanges() {
    Sgd sgd = new Sgd(twoParameters(CPU), 0.2).momentum(0.5);
    Map<String, String> valid =
        new Sgd(twoParameters(CPU), 0.1).momentum(0.9).stateDict().metadata();
    assertInvalid(sgd, valid, "momentum", null, "Sgd", "'momentum'");
    assertInvalid(sgd, valid, "nesterov", "yes", "Sgd", "'nesterov'", "true or false", "yes");
    assertInvalid(sgd, valid, "dampening", "0.5x", "Sgd", "'dampening'", "0.5x");
    assertInvalid(sgd, valid, "momentum", "-1", "Sgd", "momentum", "-1.0");
    Map<String, String> nesterovWithoutMomentum = new LinkedHashMap<>(valid);
    nesterovWithoutMomentum.put("nesterov", "true");
    assertInvalid(sgd, nesterovWithoutMomentum, "momentum", "0.0", "Nesterov");
    assertInvalid(sgd, valid, "lr", "-0.5", "learning rate", "-0.5");
    assertInvalid(sgd, valid, "lr", null, "'lr'");
    assertInvalid(sgd, valid, "state.1.steps", "-3", "'state.1.steps'", "-3");
    assertEquals(0.2, sgd.learningRate());
    assertEquals(0.5, sgd.momentum());

    Adam adam = new Adam(twoParameters(CPU));
    Map<String, String> adamValid = adam.stateDict().metadata();
    assertInvalid(adam, adamValid, "betas", "0.9", "Adam", "'betas'", "two numbers");
    assertInvalid(adam, adamValid, "betas", "0.9,1.0", "Adam", "beta2", "1.0");
    assertInvalid(adam, adamValid, "eps", null, "Adam", "'eps'");
    assertEquals(0.9, adam.beta1());
  }

  private static void assertInvalid(
      Optimizer optimizer, Map<String, String> valid, String key, String value, String... parts) {
    Map<String, String> metadata = new LinkedHashMap<>(valid);
    if (value == null) {
      metadata.remove(key);
    } else {
      metadata.put(key, value);
    }
    OptimizerState state = new OptimizerState(Map.of(), metadata);
    message(IllegalArgumentException.class, () -> optimizer.loadStateDict(state), parts);
  }

  @ParameterizedTest
  @MethodSource("devices")
  void zeroGradClearsEveryGradient(Device device) {
    Sgd sgd = new Sgd(twoParameters(device), 0.1);
    step(sgd, GRADS[0]);
    sgd.zeroGrad();
    assertNull(sgd.parameters().get(0).grad());
    assertNull(sgd.parameters().get(1).grad());
  }
}
