package corpus.bugs;

import dev.ondevice.Device;
import dev.ondevice.Parameter;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.io.Checkpoint;
import dev.ondevice.io.MapLocation;
import dev.ondevice.nn.CrossEntropyLoss;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.ReLU;
import dev.ondevice.nn.Sequential;
import dev.ondevice.optim.Optimizer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * facebookresearch/optimizers' Shampoo: each parameter's preconditioner is a {@code
 * ShampooPreconditioner} object holding its Kronecker factor statistics; the optimizer state refers
 * to these objects. Training scripts such as timm's resume with the checkpoint mapped to the CPU
 * ({@code map_location='cpu'}), counting on {@code load_state_dict} to put optimizer state on each
 * parameter's device.
 *
 * <p>Source: https://github.com/facebookresearch/optimizers/issues/3
 *
 * <p>Bug: torch's device cast in {@code load_state_dict} reaches only tensors stored directly in the
 * state, not those held inside the preconditioner objects, so "the preconditioners end up with
 * tensors on the CPU after loading the state dict"; fixed by overriding {@code load_state_dict} to
 * move them to the parameter's device.
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class ShampooPreconditionerResumeOnCpu {
  private ShampooPreconditionerResumeOnCpu() {}

  /** shampoo_utils.py ShampooPreconditioner, with the factor roots reduced to diagonal factors. */
  static final class ShampooPreconditioner {
    Tensor leftFactor;
    Tensor rightFactor;
    final double epsilon = 1e-12;

    ShampooPreconditioner(Parameter param) {
      this.leftFactor = Tensor.zeros(Shape.of(param.size(0)), param.device());
      this.rightFactor = Tensor.zeros(Shape.of(param.size(1)), param.device());
    }

    void updatePreconditioners(Tensor grad) {
      leftFactor = leftFactor.add(grad.square().sum(1)); // same bug
      rightFactor = rightFactor.add(grad.square().sum(0));
    }

    Tensor precondition(Tensor grad) {
      Tensor left = leftFactor.add(epsilon).pow(-0.25).unsqueeze(1);
      Tensor right = rightFactor.add(epsilon).pow(-0.25).unsqueeze(0);
      return grad.mul(left).mul(right);
    }

    void loadStateDict(Tensor left, Tensor right) {
      this.leftFactor = left; // bug: training-state
      this.rightFactor = right;
    }
  }

  static final class Shampoo extends Optimizer {
    final Map<Parameter, ShampooPreconditioner> preconditioners = new IdentityHashMap<>();

    Shampoo(List<Parameter> params, double lr) {
      super(params, lr);
      for (Parameter p : params) {
        if (p.dim() == 2) {
          preconditioners.put(p, new ShampooPreconditioner(p));
        }
      }
    }

    @Override
    protected void update(Parameter p, Tensor grad, Map<String, Tensor> state, long step) {
      ShampooPreconditioner preconditioner = preconditioners.get(p);
      Tensor searchDirection = grad;
      if (preconditioner != null) {
        preconditioner.updatePreconditioners(grad);
        searchDirection = preconditioner.precondition(grad);
      }
      p.detach().addi(searchDirection, -learningRate());
    }

    @Override
    protected Set<String> stateNames() {
      return Set.of(); // its state lives in its preconditioners
    }

    @Override
    protected Map<String, String> hyperParameters() {
      return Map.of();
    }

    @Override
    protected void setHyperParameters(Map<String, String> values) {}

    Map<String, Tensor> preconditionerStateDict() {
      Map<String, Tensor> out = new LinkedHashMap<>();
      List<Parameter> params = parameters();
      for (int i = 0; i < params.size(); i++) {
        ShampooPreconditioner pre = preconditioners.get(params.get(i));
        if (pre != null) {
          out.put("precond." + i + ".left", pre.leftFactor);
          out.put("precond." + i + ".right", pre.rightFactor);
        }
      }
      return out;
    }

    void loadPreconditionerStateDict(Map<String, Tensor> state) {
      List<Parameter> params = parameters();
      for (int i = 0; i < params.size(); i++) {
        ShampooPreconditioner pre = preconditioners.get(params.get(i));
        if (pre != null) {
          pre.loadStateDict(state.get("precond." + i + ".left"), state.get("precond." + i + ".right"));
        }
      }
    }
  }

  static void trainSteps(Sequential model, Shampoo optimizer, Device device, int steps) {
    CrossEntropyLoss lossFn = new CrossEntropyLoss();
    for (int i = 0; i < steps; i++) {
      Tensor x = Tensor.randn(8, 12, device);
      Tensor y = Tensor.randint(0, 4, Shape.of(8), device);
      Tensor loss = lossFn.forward(model.forward(x), y);
      optimizer.zeroGrad();
      loss.backward();
      optimizer.step();
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    Sequential model = new Sequential(new Linear(12, 16), new ReLU(), new Linear(16, 4));
    model.toDevice(device);
    Shampoo optimizer = new Shampoo(model.parameters(), 0.01);
    trainSteps(model, optimizer, device, 2);
    Path path = Files.createTempDirectory("shampoo").resolve("checkpoint.safetensors");
    Map<String, Tensor> state = new LinkedHashMap<>(model.stateDict());
    optimizer.preconditionerStateDict().forEach((k, v) -> state.put("optimizer." + k, v));
    Checkpoint.save(path, state, optimizer.stateDict());

    // resume: the checkpoint is mapped to the CPU, the model is built and moved, then loaded
    Checkpoint checkpoint = Checkpoint.load(path, MapLocation.to(Device.cpu()));
    Sequential resumed = new Sequential(new Linear(12, 16), new ReLU(), new Linear(16, 4));
    resumed.toDevice(device);
    Map<String, Tensor> modelState = new LinkedHashMap<>();
    Map<String, Tensor> precondState = new LinkedHashMap<>();
    checkpoint.stateDict().forEach((k, v) -> {
      if (k.startsWith("optimizer.")) {
        precondState.put(k.substring("optimizer.".length()), v);
      } else {
        modelState.put(k, v);
      }
    });
    resumed.loadStateDict(modelState, true);
    Shampoo resumedOptimizer = new Shampoo(resumed.parameters(), 0.01);
    resumedOptimizer.loadStateDict(checkpoint.optimizerState().orElseThrow());
    resumedOptimizer.loadPreconditionerStateDict(precondState);
    trainSteps(resumed, resumedOptimizer, device, 2);
  }
}
