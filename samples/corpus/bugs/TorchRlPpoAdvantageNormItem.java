package corpus.bugs;

import dev.ondevice.Autograd;
import dev.ondevice.Device;
import dev.ondevice.Parameter;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.data.Batch;
import dev.ondevice.data.DataLoader;
import dev.ondevice.data.TensorDataset;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.nn.Tanh;
import dev.ondevice.optim.Adam;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * TorchRL's clipped PPO loss: a loss module holding the actor and the critic; its forward
 * normalizes the advantage of the sub-batch when {@code normalize_advantage} is set, computes the
 * importance weights from the new and old log-probabilities, the clipped surrogate, the entropy
 * bonus and the critic loss, and returns them in a dict that the training loop sums.
 *
 * <p>Source: https://github.com/pytorch/rl/issues/1783
 *
 * <p>Bug: the advantage normalization reads the mean and the standard deviation back to the host
 * ({@code loc = advantage.mean().item()}, {@code scale = advantage.std().clamp_min(1e-6).item()}) in
 * the loss's forward, two device syncs for every sub-batch of every PPO epoch; later versions of
 * {@code ppo.py} keep both as tensors ({@code loc = advantage.mean()}).
 *
 * <p>Outcome: completes (two host syncs per loss call)
 */
public final class TorchRlPpoAdvantageNormItem {
  private TorchRlPpoAdvantageNormItem() {}

  /** A Gaussian policy: the mean from an MLP, a learned state-independent log-std. */
  static final class Actor extends Model {
    final Linear l1 = new Linear(4, 32);
    final Tanh act = new Tanh();
    final Linear l2 = new Linear(32, 2);
    final Parameter logStd = new Parameter(Tensor.zeros(2));

    Tensor logProb(Tensor obs, Tensor action) {
      Tensor mean = l2.forward(act.forward(l1.forward(obs)));
      Tensor var = logStd.mul(2).exp();
      return action.sub(mean).square().div(var).add(logStd.mul(2)).add(Math.log(2 * Math.PI)).mul(-0.5).sum(-1, true);
    }

    Tensor entropy() {
      return logStd.add(0.5 * (1 + Math.log(2 * Math.PI))).sum();
    }
  }

  static final class Critic extends Model {
    final Linear l1 = new Linear(4, 32);
    final Tanh act = new Tanh();
    final Linear l2 = new Linear(32, 1);

    Tensor forward(Tensor obs) {
      return l2.forward(act.forward(l1.forward(obs)));
    }
  }

  static final class ClipPPOLoss extends Model {
    final Actor actor;
    final Critic critic;
    final double clipEpsilon = 0.2;
    final double entropyCoef = 0.01;
    final double criticCoef = 1.0;
    final boolean normalizeAdvantage = true;

    ClipPPOLoss(Actor actor, Critic critic) {
      this.actor = actor;
      this.critic = critic;
    }

    Map<String, Tensor> forward(Map<String, Tensor> tensordict) {
      Tensor advantage = tensordict.get("advantage");
      if (normalizeAdvantage && advantage.numel() > 1) {
        double loc = advantage.mean().item(); // bug: per-step
        double scale = advantage.std().clampMin(1e-6).item(); // bug: per-step
        advantage = advantage.sub(loc).div(scale);
      }
      Tensor logWeight = actor.logProb(tensordict.get("observation"), tensordict.get("action"))
          .sub(tensordict.get("sample_log_prob"));
      Tensor gain1 = logWeight.exp().mul(advantage);
      Tensor logWeightClip = logWeight.clamp(Math.log1p(-clipEpsilon), Math.log1p(clipEpsilon));
      Tensor gain2 = logWeightClip.exp().mul(advantage);
      Tensor gain = Tensor.stack(List.of(gain1, gain2), -1).min(-1).values();
      Map<String, Tensor> tdOut = new HashMap<>();
      tdOut.put("loss_objective", gain.mean().neg());
      Tensor entropy = actor.entropy();
      tdOut.put("entropy", entropy.detach());
      tdOut.put("loss_entropy", entropy.mul(-entropyCoef));
      Tensor lossCritic = critic.forward(tensordict.get("observation")).sub(tensordict.get("value_target")).square().mean();
      tdOut.put("loss_critic", lossCritic.mul(criticCoef));
      return tdOut;
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    Actor actor = new Actor();
    Critic critic = new Critic();
    ClipPPOLoss lossModule = new ClipPPOLoss(actor, critic);
    lossModule.toDevice(device);
    Adam optim = new Adam(lossModule.parameters(), 3e-4);
    // one collected batch of 64 transitions: observation, action, old log-prob, advantage, value target
    TensorDataset replayBuffer = new TensorDataset(Tensor.randn(Shape.of(64, 4)), Tensor.randn(Shape.of(64, 2)),
        Tensor.randn(Shape.of(64, 1)).sub(2), Tensor.randn(Shape.of(64, 1)), Tensor.randn(Shape.of(64, 1)));
    DataLoader loader = DataLoader.builder(replayBuffer).batchSize(16).shuffle(0).build();
    Tensor total = Tensor.zeros(Shape.scalar(), device);
    for (int epoch = 0; epoch < 2; epoch++) {
      for (Batch b : loader) {
        Map<String, Tensor> subdata = new HashMap<>();
        subdata.put("observation", b.tensor(0).to(device));
        subdata.put("action", b.tensor(1).to(device));
        subdata.put("sample_log_prob", b.tensor(2).to(device));
        subdata.put("advantage", b.tensor(3).to(device));
        subdata.put("value_target", b.tensor(4).to(device));
        Map<String, Tensor> lossVals = lossModule.forward(subdata);
        Tensor lossValue = lossVals.get("loss_objective").add(lossVals.get("loss_critic")).add(lossVals.get("loss_entropy"));
        lossValue.backward();
        optim.step();
        optim.zeroGrad();
        total = total.add(lossValue.detach());
      }
    }
    System.out.printf("loss %.4f%n", total.item());
  }
}
