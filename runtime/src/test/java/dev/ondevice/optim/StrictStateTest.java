package dev.ondevice.optim;

import static dev.ondevice.optim.OptimFixtures.THETA;
import static dev.ondevice.optim.OptimFixtures.message;
import static dev.ondevice.optim.OptimFixtures.parameter;
import static dev.ondevice.optim.OptimFixtures.setGrad;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Parameter;
import dev.ondevice.Tensor;
import dev.ondevice.io.Checkpoint;
import dev.ondevice.io.MapLocation;
import dev.ondevice.nn.Linear;
import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A strict optimizer load: missing, unexpected and mistyped state tensors are rejected, and every
 * hyper-parameter, the learning rate included, must be a finite number.
 */
class StrictStateTest {
  private static final Device CPU = Device.cpu();
  private static final double[] GRAD = {0.1, -0.2, 0.3, 1.0};

  /** An Adam of one float64 parameter after two steps, and its state dict. */
  private static OptimizerState trainedAdam(boolean amsgrad) {
    Parameter p = parameter(THETA, CPU);
    Adam adam = new Adam(List.of(p), 0.01).amsgrad(amsgrad);
    for (int i = 0; i < 2; i++) {
      setGrad(p, GRAD);
      adam.step();
    }
    return adam.stateDict();
  }

  private static OptimizerState with(OptimizerState s, Map<String, Tensor> tensors) {
    return new OptimizerState(tensors, s.metadata());
  }

  @Test
  void aMissingMomentIsAnErrorNotARestartAtZero() {
    OptimizerState saved = trainedAdam(false);
    Map<String, Tensor> tensors = new LinkedHashMap<>(saved.tensors());
    tensors.remove("state.0.exp_avg");
    Parameter p = parameter(THETA, CPU);
    Adam adam = new Adam(List.of(p), 0.5);
    message(
        IllegalArgumentException.class,
        () -> adam.loadStateDict(with(saved, tensors)),
        "loadStateDict: the saved state does not fit this Adam (each updated parameter has state [exp_avg,"
            + " exp_avg_sq] under the saved hyper-parameters):\n\t1 missing state tensor(s): state.0.exp_avg");
    assertEquals(0.5, adam.learningRate(), "nothing changed");
    assertTrue(adam.state(0).isEmpty(), "nothing changed");
  }

  @Test
  void aCheckpointWhoseOptimizerStateLacksAMomentIsNotRestored(@TempDir Path dir)
      throws IOException {
    Linear fc = new Linear(2, 2);
    Adam adam = new Adam(fc.parameters(), 0.01);
    for (Parameter p : fc.parameters()) {
      p.setGrad(Tensor.onesLike(p));
    }
    adam.step();
    Map<String, Tensor> tensors = new LinkedHashMap<>(adam.stateDict().tensors());
    tensors.remove("state.0.exp_avg");
    Path file = dir.resolve("ckpt.safetensors");
    Checkpoint.save(file, fc.stateDict(), with(adam.stateDict(), tensors));

    Linear restored = new Linear(2, 2);
    Adam fresh = new Adam(restored.parameters(), 0.5);
    message(
        IllegalArgumentException.class,
        () -> Checkpoint.restore(file, restored, fresh, MapLocation.to(CPU)),
        file
            + ": the optimizer's state does not fit Adam (the model was restored): loadStateDict: the saved state"
            + " does not fit this Adam",
        "1 missing state tensor(s): state.0.exp_avg");
    assertTrue(fresh.state(0).isEmpty(), "the optimizer is unchanged");
    assertEquals(0.5, fresh.learningRate());
  }

  @Test
  void anUnknownStateNameIsAnErrorNotKeptAndSavedAgain() {
    OptimizerState saved = trainedAdam(false);
    Map<String, Tensor> tensors = new LinkedHashMap<>(saved.tensors());
    tensors.put("state.0.exp_avgX", tensors.get("state.0.exp_avg"));
    tensors.put("state.7.exp_avg", tensors.get("state.0.exp_avg"));
    Adam adam = new Adam(List.of(parameter(THETA, CPU)));
    message(
        IllegalArgumentException.class,
        () -> adam.loadStateDict(with(saved, tensors)),
        "2 unexpected state tensor(s): state.0.exp_avgX, state.7.exp_avg");
  }

  @Test
  void theExpectedNamesFollowTheSavedHyperParameters() {
    OptimizerState saved = trainedAdam(true);
    Adam adam = new Adam(List.of(parameter(THETA, CPU)));
    adam.loadStateDict(saved);
    assertTrue(adam.amsgrad());
    assertEquals(
        List.of("exp_avg", "exp_avg_sq", "max_exp_avg_sq"), List.copyOf(adam.state(0).keySet()));

    Map<String, Tensor> tensors = new LinkedHashMap<>(saved.tensors());
    tensors.remove("state.0.max_exp_avg_sq");
    Adam other = new Adam(List.of(parameter(THETA, CPU)));
    message(
        IllegalArgumentException.class,
        () -> other.loadStateDict(with(saved, tensors)),
        "missing state tensor(s): state.0.max_exp_avg_sq");
    assertEquals(
        false, other.amsgrad(), "the hyper-parameters are put back when the tensors do not fit");
  }

  @Test
  void aStateBeforeTheFirstStepHasNoTensors() {
    Adam fresh = new Adam(List.of(parameter(THETA, CPU)));
    OptimizerState saved = fresh.stateDict();
    Adam adam = new Adam(List.of(parameter(THETA, CPU)));
    adam.loadStateDict(saved);
    assertTrue(adam.state(0).isEmpty());
    message(
        IllegalArgumentException.class,
        () ->
            adam.loadStateDict(
                with(saved, Map.of("state.0.exp_avg", Tensor.zeros(4).to(DType.FLOAT64)))),
        "unexpected state tensor(s): state.0.exp_avg");
  }

  @Test
  void aStateTensorOfAnotherDtypeIsAnError() {
    OptimizerState saved = trainedAdam(false);
    Map<String, Tensor> tensors = new LinkedHashMap<>(saved.tensors());
    tensors.put("state.0.exp_avg_sq", tensors.get("state.0.exp_avg_sq").to(DType.INT64));
    Adam adam = new Adam(List.of(parameter(THETA, CPU)));
    message(
        IllegalArgumentException.class,
        () -> adam.loadStateDict(with(saved, tensors)),
        "state tensor(s) whose dtype or shape is not their parameter's: state.0.exp_avg_sq: int64 [4], but parameter"
            + " 0 is float64 [4]");
  }

  @Test
  void longListsAreCapped() {
    OptimizerState saved = trainedAdam(false);
    Map<String, Tensor> tensors = new LinkedHashMap<>(saved.tensors());
    for (int i = 0; i < 200_000; i++) {
      tensors.put("state.0.x" + i, tensors.get("state.0.exp_avg"));
    }
    Adam adam = new Adam(List.of(parameter(THETA, CPU)));
    String m =
        message(
            IllegalArgumentException.class,
            () -> adam.loadStateDict(with(saved, tensors)),
            "200000 unexpected state tensor(s): state.0.x0, state.0.x1,",
            "state.0.x9, ... (199990 more)");
    assertTrue(m.length() < 1000, m.length() + " characters");
  }

  @Test
  void anInfiniteLearningRateIsRejected() {
    Parameter p = parameter(THETA, CPU);
    Adam adam = new Adam(List.of(p));
    message(
        IllegalArgumentException.class,
        () -> adam.setLearningRate(Double.POSITIVE_INFINITY),
        "Adam: the learning rate must be a finite number >= 0, got Infinity");
    message(
        IllegalArgumentException.class,
        () -> new Sgd(List.of(p), Double.NaN),
        "Sgd: the learning rate must be a finite number >= 0, got NaN");
    assertEquals(1e-3, adam.learningRate());

    Map<String, String> metadata = new LinkedHashMap<>(adam.stateDict().metadata());
    metadata.put("lr", "1e309");
    message(
        IllegalArgumentException.class,
        () -> adam.loadStateDict(new OptimizerState(Map.of(), metadata)),
        "loadStateDict: Adam: the saved learning rate must be a finite number >= 0, got Infinity");
    setGrad(p, GRAD);
    adam.step();
    for (double v : p.toDoubleArray()) {
      assertTrue(Double.isFinite(v), "parameters stay finite");
    }
  }

  @Test
  void everyHyperParameterIsFinite() {
    Parameter p = parameter(THETA, CPU);
    message(
        IllegalArgumentException.class,
        () -> new Adam(List.of(p)).weightDecay(Double.POSITIVE_INFINITY),
        "Adam: weight decay must be a finite number >= 0, got Infinity");
    message(
        IllegalArgumentException.class,
        () -> new Sgd(List.of(p), 0.1).momentum(Double.POSITIVE_INFINITY),
        "Sgd: momentum must be a finite number >= 0, got Infinity");
    message(
        IllegalArgumentException.class,
        () -> new RmsProp(List.of(p), 0.1).alpha(Double.parseDouble("1e309")),
        "RmsProp: alpha must be a finite number >= 0, got Infinity");
    message(
        IllegalArgumentException.class,
        () ->
            new ReduceLrOnPlateau(
                new Sgd(List.of(p), 0.1),
                ReduceLrOnPlateau.Mode.MIN,
                0.5,
                1,
                Double.POSITIVE_INFINITY,
                0,
                0),
        "ReduceLrOnPlateau: patience, threshold, cooldown and minLearningRate must be finite and not negative");
    Sgd sgd = new Sgd(List.of(p), 0.1);
    StepLr schedule = new StepLr(sgd, 1, 0.5);
    Map<String, String> state = new LinkedHashMap<>(schedule.stateDict());
    state.put("base_lr", "Infinity");
    message(
        IllegalArgumentException.class,
        () -> schedule.loadStateDict(state),
        "needs a finite base_lr >= 0");
    assertArrayEquals(THETA, p.toDoubleArray());
  }
}
