package corpus.bugs;

import dev.ondevice.Autograd;
import dev.ondevice.Device;
import dev.ondevice.Parameter;
import dev.ondevice.Tensor;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.nn.MseLoss;
import dev.ondevice.optim.Adam;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * OpenRLHF's PPO training with {@code --enable_ema}: the EMA model is a deep copy of the actor that
 * also goes through {@code strategy.prepare} (which puts it on the GPU), and after each actor step
 * the trainer calls {@code strategy.moving_average(actor, ema_model, ema_beta, "cpu")}.
 *
 * <p>Source: https://github.com/OpenRLHF/OpenRLHF/issues/245
 *
 * <p>Bug: {@code moving_average} fetches each actor parameter to {@code device} ("cpu":
 * {@code data = param.data.to(device)}) and computes {@code (1 - beta) * data + beta * param_ema.data}
 * while the EMA model's parameters are on the GPU.
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class OpenRlhfEmaMovingAverageCpu {
  private OpenRlhfEmaMovingAverageCpu() {}

  static final class Actor extends Model {
    final Linear body = new Linear(8, 16);
    final Linear head = new Linear(16, 4);

    Tensor forward(Tensor x) {
      return head.forward(body.forward(x).tanh());
    }
  }

  static final class DeepspeedStrategy {
    final Device device;
    final int accumulatedGradient = 1;
    final Map<String, Integer> timeSteps = new HashMap<>();

    DeepspeedStrategy(Device device) {
      this.device = device;
    }

    /** Puts the model on this rank's GPU (deepspeed.initialize). */
    <M extends Model> M prepare(M model) {
      model.toDevice(device);
      return model;
    }

    void movingAverage(Model model, Model modelEma, double beta, Device device) {
      int t = timeSteps.merge("ema", 1, Integer::sum);
      if (t % accumulatedGradient == 0) {
        try (Autograd.Scope ignored = Autograd.noGrad()) {
          List<Parameter> params = model.parameters();
          List<Parameter> emaParams = modelEma.parameters();
          for (int i = 0; i < params.size(); i++) {
            Parameter param = params.get(i);
            Parameter paramEma = emaParams.get(i);
            if (param.requiresGrad()) {
              Tensor data = param.detach().to(device);
              paramEma.copyFrom(data.mul(1 - beta).add(paramEma.detach().mul(beta)));   // bug: training-state
            }
          }
        }
      }
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    DeepspeedStrategy strategy = new DeepspeedStrategy(device);
    Actor actor = strategy.prepare(new Actor());          // actor is on the GPU
    Actor emaModel = new Actor();
    emaModel.loadStateDict(actor.stateDict(), true);      // deepcopy(actor)
    emaModel = strategy.prepare(emaModel);                // this puts the EMA on the GPU too
    Adam optimizer = new Adam(actor.parameters(), 1e-4);
    for (int step = 0; step < 3; step++) {
      Tensor states = Tensor.randn(4, 8, device);
      Tensor returns = Tensor.randn(4, 4, device);
      optimizer.zeroGrad();
      new MseLoss().forward(actor.forward(states), returns).backward();
      optimizer.step();
      strategy.movingAverage(actor, emaModel, 0.992, Device.cpu());
    }
  }
}
