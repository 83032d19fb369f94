package corpus.bugs;

import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.optim.AdamW;
import dev.ondevice.optim.OptimizerState;
import java.util.Map;

/**
 * Resuming with Lightning Fabric: a run on the CPU took an optimizer step (the issue's
 * reproduction: {@code m(x).backward(); optimizer.step()}) and its model and {@code AdamW} states
 * were checkpointed; the resumed run builds the model and the optimizer, restores both states, and
 * then calls {@code fabric.setup(model, optimizer)}, which moves the model to the accelerator,
 * before training on.
 *
 * <p>Source: https://github.com/Lightning-AI/pytorch-lightning/issues/19225 ("Move optimizer state
 * to device in Fabric.setup")
 *
 * <p>Bug: {@code Fabric.setup} moves the parameters to {@code cuda:0} but not the optimizer state
 * restored before it ({@code exp_avg} stays on the CPU: "state device after setup: cpu"), so the
 * next {@code optimizer.step()} mixes devices. The resolution in the thread: load the checkpoint
 * into the optimizer after {@code fabric.setup}, where {@code load_state_dict} casts each state
 * tensor to its parameter's device.
 *
 * <p>Outcome: throws IllegalStateException (the optimizer's own check for state left on another
 * device than its parameter; PyTorch fails in the step with a device mismatch)
 */
public final class FabricResumeOptimizerStateOnCpu {
  private FabricResumeOptimizerStateOnCpu() {}

  /** The part of {@code lightning.fabric.Fabric} used here. */
  static final class Fabric {
    final Device device;

    Fabric(Device device) {
      this.device = device;
    }

    /** {@code setup(module, optimizer)}: moves the module to the device; the optimizer is wrapped as is. */
    void setup(Model module, AdamW optimizer) {
      module.toDevice(device);
    }

    void backward(Tensor loss) {
      loss.backward();
    }
  }

  public static void run(Device device) {
    // The previous run, on the CPU: one step, then a checkpoint of the model and the optimizer.
    Linear m = new Linear(10, 1);
    AdamW previous = new AdamW(m.parameters());
    Tensor x = Tensor.randn(Shape.of(1, 10));
    m.forward(x).sum().backward();
    previous.step();
    Map<String, Tensor> modelState = m.stateDict();
    OptimizerState optimizerState = previous.stateDict();

    // The resumed run.
    Fabric fabric = new Fabric(device);
    Linear model = new Linear(10, 1);
    AdamW optimizer = new AdamW(model.parameters());
    model.loadStateDict(modelState, true);
    optimizer.loadStateDict(optimizerState); // bug: training-state
    fabric.setup(model, optimizer);
    System.out.println("state device after setup: " + optimizer.state(0).get("exp_avg").device());

    for (int step = 0; step < 3; step++) {
      Tensor batch = Tensor.randn(Shape.of(4, 10), fabric.device);
      optimizer.zeroGrad();
      fabric.backward(model.forward(batch).square().mean());
      optimizer.step(); // same bug
    }
    System.out.println("resumed 3 steps");
  }
}
