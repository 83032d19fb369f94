package corpus.bugs;

import dev.ondevice.Autograd;
import dev.ondevice.Device;
import dev.ondevice.Parameter;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.optim.Adam;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * OpenRLHF PPO with {@code --enable_ema}: {@code train_ppo.py} makes {@code ema_model =
 * deepcopy(actor)} and passes it through {@code strategy.prepare}, which puts it on the GPU; after
 * each actor update the trainer calls {@code strategy.moving_average(self.actor, self.ema_model,
 * self.ema_beta, "cpu")}, which brings each actor parameter to {@code device} and blends it into the
 * EMA parameter.
 *
 * <p>Source: https://github.com/OpenRLHF/OpenRLHF/issues/245
 *
 * <p>Bug: {@code moving_average} computes {@code (1 - beta) * param.data.to("cpu") + beta *
 * param_ema.data}, but the EMA model is on the GPU: "actor's parameters are fetched to cpu for
 * calculation, but ema model's parameters are still on gpu".
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class OpenRlhfEmaMovingAverage {
  private OpenRlhfEmaMovingAverage() {}

  /** The policy: logits over a small action vocabulary. */
  static final class Actor extends Model {
    final Linear model = new Linear(6, 5);

    Tensor forward(Tensor states) {
      return model.forward(states).logSoftmax(-1);
    }
  }

  static final class DeepspeedStrategy {
    final Device device;
    final Map<String, Integer> timeSteps = new HashMap<>();
    final int accumulatedGradient = 1;

    DeepspeedStrategy(Device device) {
      this.device = device;
    }

    void prepare(Actor model) {
      model.toDevice(device);
    }

    void movingAverage(Actor model, Actor modelEma, double beta, Device device) {
      timeSteps.merge("ema", 1, Integer::sum);
      if (timeSteps.get("ema") % accumulatedGradient == 0) {
        try (Autograd.Scope ignored = Autograd.noGrad()) {
          List<Parameter> params = model.parameters();
          List<Parameter> emaParams = modelEma.parameters();
          for (int i = 0; i < params.size(); i++) {
            if (params.get(i).requiresGrad()) {
              Tensor data = params.get(i).detach().to(device);
              emaParams.get(i).detach().copyFrom(data.mul(1 - beta).add(emaParams.get(i).detach().mul(beta)));
            }
          }
        }
      }
    }
  }

  static final class PpoTrainer {
    final DeepspeedStrategy strategy;
    final Actor actor;
    final Actor emaModel;
    final Adam actorOptim;
    final double emaBeta = 0.992;

    PpoTrainer(DeepspeedStrategy strategy, Actor actor, Actor emaModel, Adam actorOptim) {
      this.strategy = strategy;
      this.actor = actor;
      this.emaModel = emaModel;
      this.actorOptim = actorOptim;
    }

    /** {@code training_step_actor}: the clipped-ratio loss reduced to {@code -(logp * advantages)}. */
    void trainingStepActor(Tensor states, Tensor actions, Tensor advantages) {
      actor.train();
      Tensor actionLogProbs = actor.forward(states).gather(1, actions.unsqueeze(1)).squeeze(1);
      Tensor actorLoss = actionLogProbs.mul(advantages).mean().neg();
      actorOptim.zeroGrad();
      actorLoss.backward();
      actorOptim.step();
      if (emaModel != null) {
        strategy.movingAverage(actor, emaModel, emaBeta, Device.cpu()); // bug: training-state
      }
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    DeepspeedStrategy strategy = new DeepspeedStrategy(device);
    Actor actor = new Actor();
    strategy.prepare(actor);
    Actor emaModel = new Actor();
    emaModel.loadStateDict(actor.stateDict(), true);   // deepcopy(actor)
    strategy.prepare(emaModel);
    PpoTrainer trainer = new PpoTrainer(strategy, actor, emaModel, new Adam(actor.parameters(), 1e-6));
    for (int step = 0; step < 2; step++) {
      Tensor states = Tensor.randn(4, 6, device);
      Tensor actions = Tensor.randint(0, 5, Shape.of(4), device);
      Tensor advantages = Tensor.randn(4, device);
      trainer.trainingStepActor(states, actions, advantages);
    }
  }
}
