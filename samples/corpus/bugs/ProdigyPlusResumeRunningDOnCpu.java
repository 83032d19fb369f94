package corpus.bugs;

import dev.ondevice.Autograd;
import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Parameter;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.io.Checkpoint;
import dev.ondevice.io.MapLocation;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.nn.MseLoss;
import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * prodigy-plus-schedule-free's {@code CoreOptimiser}: to keep Prodigy's step-size estimate on the
 * device during the parameter loop, the constructor puts two 0-dim tensors in the parameter group,
 * {@code group['running_d_numerator']} and {@code group['running_d_denom']}, on the first
 * parameter's device; {@code update_prodigy} adds each parameter's contribution to them, and at
 * the end of the step {@code update_d_and_reset} reads them once and zeroes them. The trainer (kohya
 * sd-scripts through accelerate) saves the optimizer's {@code state_dict()} and, on resume, loads
 * it with {@code map_location="cpu"} and {@code optimizer.load_state_dict}.
 *
 * <p>Source: https://github.com/LoganBooker/prodigy-plus-schedule-free/issues/11 (fixed in commits
 * 25152f7 "Try fix resume error" and 5e98988)
 *
 * <p>Bug: {@code Optimizer.load_state_dict} moves per-parameter state to each parameter's device but
 * restores the parameter groups as loaded, so after a resume the two running tensors are CPU
 * tensors and the first step fails in {@code running_d_numerator.add_(x0_dot, ...)} with "Expected
 * all tensors to be on the same device, cuda:0 and cpu"; the fix checks their device against the
 * parameter's and moves them in {@code get_running_values_for_group}.
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class ProdigyPlusResumeRunningDOnCpu {
  private ProdigyPlusResumeRunningDOnCpu() {}

  /** prodigyplus/core_optimiser.py, with the parts of torch.optim.Optimizer it relies on. */
  static class CoreOptimiser {
    final List<Map<String, Object>> paramGroups = new ArrayList<>();
    final Map<Parameter, Map<String, Tensor>> state = new IdentityHashMap<>();
    final boolean splitGroups = false;
    Integer parametersToProcess;

    CoreOptimiser(List<Parameter> params, double lr, double d0) {
      Map<String, Object> group = new HashMap<>();
      group.put("params", params);
      group.put("lr", lr);
      group.put("d", d0);
      group.put("d0", d0);
      group.put("d_prev", d0);
      group.put("d_coef", 1.0);
      group.put("beta2", 0.99);
      group.put("beta3", Math.sqrt(0.99));
      group.put("eps", 1e-8);
      group.put("k", 0);
      group.put("prodigy_steps", 0);
      group.put("d_numerator", 0.0);
      group.put("d_denom", 0.0);
      paramGroups.add(group);
      // Use tensors to keep everything on device during parameter loop.
      for (Map<String, Object> g : paramGroups) {
        Parameter p = params(g).get(0);
        g.put("running_d_numerator", Tensor.zeros(Shape.scalar(), DType.FLOAT32, p.device()));
        g.put("running_d_denom", Tensor.zeros(Shape.scalar(), DType.FLOAT32, p.device()));
      }
    }

    @SuppressWarnings("unchecked")
    static List<Parameter> params(Map<String, Object> group) {
      return (List<Parameter>) group.get("params");
    }

    static Tensor getSlicedTensor(Tensor tensor) {
      Tensor flat = tensor.flatten();
      return flat.slice(0, 0, flat.size(0), 11);
    }

    Tensor[] getRunningValuesForGroup(Map<String, Object> group) {
      if (!splitGroups) {
        group = paramGroups.get(0);
      }
      return new Tensor[] {(Tensor) group.get("running_d_numerator"), (Tensor) group.get("running_d_denom")}; // bug: training-state
    }

    void updateDAndReset(Map<String, Object> group) {
      double d = (Double) group.get("d");
      double d0 = (Double) group.get("d0");
      double dCoef = (Double) group.get("d_coef");
      double beta3 = (Double) group.get("beta3");
      Tensor[] running = getRunningValuesForGroup(group);
      double dNumerator = (Double) group.get("d_numerator");
      dNumerator *= beta3;
      double dPrev = d;
      double dNumeratorItem = running[0].item(); // costs time: HostSyncInLoop
      double dDenomItem = running[1].item(); // costs time: HostSyncInLoop
      if (dNumeratorItem < 0) {
        if (d > d0) {
          dNumerator = Math.min(dNumerator, dNumeratorItem);
        }
      } else {
        dNumerator += dNumeratorItem;
      }
      double dHat = Math.atan2(dCoef * dNumerator, dDenomItem);
      d = Math.max(d, dHat);
      group.put("d", d);
      group.put("d_prev", dPrev);
      group.put("d_numerator", dNumerator);
      group.put("d_denom", dDenomItem);
      running[0].fill(0.0);
      running[1].fill(0.0);
    }

    void onStartStep() {
      if (parametersToProcess == null || parametersToProcess == 0) {
        parametersToProcess = 0;
        for (Map<String, Object> group : paramGroups) {
          parametersToProcess += params(group).size();
        }
      }
    }

    void onEndStep() {
      parametersToProcess -= 1;
      if (parametersToProcess == 0) {
        Map<String, Object> firstGroup = paramGroups.get(0);
        updateDAndReset(firstGroup);
        for (Map<String, Object> group : paramGroups) {
          group.put("d", firstGroup.get("d"));
          group.put("k", (Integer) group.get("k") + 1);
        }
      }
    }

    double getDlr(Map<String, Object> group) {
      return (Double) group.get("d") * (Double) group.get("lr");
    }

    void updateProdigy(Map<String, Tensor> state, Map<String, Object> group, Tensor grad, Tensor data) {
      double d = (Double) group.get("d");
      double beta3 = (Double) group.get("beta3");
      Tensor slicedGrad = getSlicedTensor(grad);
      Tensor slicedData = getSlicedTensor(data);
      Tensor[] running = getRunningValuesForGroup(group);
      Tensor s = state.get("s");
      Tensor x0Minus = state.get("p0").sub(slicedData);
      Tensor x0Dot = slicedGrad.mul(x0Minus).sum();
      double dUpdate = Math.sqrt(d);
      running[0].addi(x0Dot, dUpdate); // same bug
      s.muli(beta3).addi(slicedGrad, dUpdate);
      running[1].addi(s.abs().sum());
    }

    /** torch.optim.Optimizer.state_dict(): per-parameter state by index, and the groups without their params. */
    Map<String, Object> stateDict() {
      Map<String, Object> out = new LinkedHashMap<>();
      List<Parameter> params = params(paramGroups.get(0));
      for (int i = 0; i < params.size(); i++) {
        Map<String, Tensor> st = state.get(params.get(i));
        if (st != null) {
          for (Map.Entry<String, Tensor> e : st.entrySet()) {
            out.put("state." + i + "." + e.getKey(), e.getValue());
          }
        }
      }
      for (Map.Entry<String, Object> e : paramGroups.get(0).entrySet()) {
        if (!e.getKey().equals("params")) {
          out.put("param_groups.0." + e.getKey(), e.getValue());
        }
      }
      return out;
    }

    /** torch.optim.Optimizer.load_state_dict(): state cast to its parameter's device, groups as saved. */
    void loadStateDict(Map<String, Object> stateDict) {
      List<Parameter> params = params(paramGroups.get(0));
      for (Map.Entry<String, Object> e : stateDict.entrySet()) {
        String[] key = e.getKey().split("\\.", 3);
        if (key[0].equals("state")) {
          Parameter p = params.get(Integer.parseInt(key[1]));
          state.computeIfAbsent(p, k -> new LinkedHashMap<>()).put(key[2], ((Tensor) e.getValue()).to(p.device()));
        } else {
          paramGroups.get(0).put(key[2], e.getValue());
        }
      }
    }
  }

  /** prodigyplus/prodigy_plus_schedulefree.py, the schedule-free averaging reduced to an RMS-scaled step. */
  static final class ProdigyPlusScheduleFree extends CoreOptimiser {
    ProdigyPlusScheduleFree(List<Parameter> params) {
      super(params, 1.0, 1e-6);
    }

    void initialiseState(Parameter p) {
      state.computeIfAbsent(p, k -> {
        Map<String, Tensor> st = new LinkedHashMap<>();
        Tensor slicedData = getSlicedTensor(p.detach());
        st.put("s", Tensor.zerosLike(slicedData));
        st.put("p0", slicedData.clone());
        st.put("exp_avg_sq", Tensor.zerosLike(p));
        return st;
      });
    }

    void stepParam(Parameter p, Map<String, Object> group) {
      onStartStep();
      if (p.grad() != null) {
        initialiseState(p);
        Map<String, Tensor> st = state.get(p);
        Tensor grad = p.grad();
        double beta2 = (Double) group.get("beta2");
        double dlr = getDlr(group);
        updateProdigy(st, group, grad, p.detach());
        Tensor expAvgSq = st.get("exp_avg_sq");
        expAvgSq.muli(beta2).addi(grad.square(), 1 - beta2);
        p.subi(grad.div(expAvgSq.sqrt().add((Double) group.get("eps"))).mul(dlr));
      }
      onEndStep();
    }

    void step() {
      try (Autograd.Scope ignored = Autograd.noGrad()) {
        for (Map<String, Object> group : paramGroups) {
          for (Parameter p : params(group)) {
            stepParam(p, group);
          }
        }
      }
    }

    void zeroGrad() {
      for (Parameter p : params(paramGroups.get(0))) {
        p.setGrad(null);
      }
    }
  }

  static final class LoraNetwork extends Model {
    final Linear down = new Linear(16, 4);
    final Linear up = new Linear(4, 16);

    Tensor forward(Tensor x) {
      return x.add(up.forward(down.forward(x)));
    }
  }

  /** accelerator.save_state: the optimizer's state dict, tensors to a file, the rest beside it. */
  static void saveOptimizerState(Path dir, Map<String, Object> stateDict) throws IOException {
    Map<String, Tensor> tensors = new LinkedHashMap<>();
    Properties values = new Properties();
    for (Map.Entry<String, Object> e : stateDict.entrySet()) {
      if (e.getValue() instanceof Tensor t) {
        tensors.put(e.getKey(), t);
      } else {
        values.setProperty(e.getKey(), e.getValue().getClass().getSimpleName() + ":" + e.getValue());
      }
    }
    Checkpoint.save(dir.resolve("optimizer.safetensors"), tensors, null);
    try (Writer w = Files.newBufferedWriter(dir.resolve("optimizer.properties"))) {
      values.store(w, null);
    }
  }

  /** accelerator.load_state: {@code torch.load(input_optimizer_file, map_location="cpu")}. */
  static Map<String, Object> loadOptimizerState(Path dir) throws IOException {
    Map<String, Object> stateDict = new LinkedHashMap<>(
        Checkpoint.load(dir.resolve("optimizer.safetensors"), MapLocation.to(Device.cpu())).stateDict());
    Properties values = new Properties();
    try (Reader r = Files.newBufferedReader(dir.resolve("optimizer.properties"))) {
      values.load(r);
    }
    for (String key : values.stringPropertyNames()) {
      String[] typed = values.getProperty(key).split(":", 2);
      stateDict.put(key, typed[0].equals("Integer") ? (Object) Integer.valueOf(typed[1]) : Double.valueOf(typed[1]));
    }
    return stateDict;
  }

  static void trainSteps(LoraNetwork network, ProdigyPlusScheduleFree optimizer, Device device, int steps) {
    MseLoss loss = new MseLoss();
    for (int step = 0; step < steps; step++) {
      Tensor latents = Tensor.randn(Shape.of(8, 16), device);
      Tensor target = Tensor.randn(Shape.of(8, 16), device);
      Tensor l = loss.forward(network.forward(latents), target);
      l.backward();
      optimizer.step();
      optimizer.zeroGrad();
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    Path dir = Files.createTempDirectory("prodigy-resume");
    try {
      LoraNetwork network = new LoraNetwork();
      network.toDevice(device);
      ProdigyPlusScheduleFree optimizer = new ProdigyPlusScheduleFree(network.parameters());
      trainSteps(network, optimizer, device, 2);
      Checkpoint.save(dir.resolve("model.safetensors"), network, null);
      saveOptimizerState(dir, optimizer.stateDict());

      LoraNetwork resumed = new LoraNetwork();
      resumed.toDevice(device);
      ProdigyPlusScheduleFree resumedOptimizer = new ProdigyPlusScheduleFree(resumed.parameters());
      resumed.loadStateDict(Checkpoint.load(dir.resolve("model.safetensors"), MapLocation.to(Device.cpu())).stateDict(),
          true);
      resumedOptimizer.loadStateDict(loadOptimizerState(dir));
      trainSteps(resumed, resumedOptimizer, device, 2);
    } finally {
      for (String name : new String[] {"model.safetensors", "optimizer.safetensors", "optimizer.properties"}) {
        Files.deleteIfExists(dir.resolve(name));
      }
      Files.deleteIfExists(dir);
    }
  }
}
