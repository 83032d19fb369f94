package corpus.bugs;

import dev.ondevice.Autograd;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.nn.Sequential;
import dev.ondevice.nn.Tanh;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * ikostrikov's pytorch-a2c-ppo-acktr-gail {@code main.py} with {@code --recurrent-policy}: rollouts
 * are collected into a {@code RolloutStorage} on the device, and every {@code eval_interval} updates
 * the policy is evaluated on fresh environments, feeding back the hidden states and the masks
 * built from the {@code done} flags.
 *
 * <p>Source: https://github.com/ikostrikov/pytorch-a2c-ppo-acktr-gail/pull/165 (commit 89f7d3f)
 *
 * <p>Bug: in the evaluation loop {@code eval_masks = torch.FloatTensor([[0.0] if done_ else [1.0]
 * for done_ in done])} is a CPU tensor passed straight to {@code actor_critic.act}, whose recurrent
 * base multiplies the CUDA hidden states by it ({@code hxs * masks} in {@code _forward_gru}); the
 * training loop's masks, made the same way, are copied into the device's rollout storage. The fix
 * creates {@code eval_masks} with {@code device=device}.
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class A2cPpoEvalMasksOnCpu {
  private A2cPpoEvalMasksOnCpu() {}

  /** {@code NNBase} with {@code recurrent=True}: one GRU step, {@code nn.GRU}'s equations. */
  static final class MlpBase extends Model {
    final int hiddenSize;
    final Linear weightIh;
    final Linear weightHh;
    final Sequential actor;
    final Sequential critic;
    final Linear criticLinear;

    MlpBase(int numInputs, int hiddenSize) {
      this.hiddenSize = hiddenSize;
      weightIh = new Linear(numInputs, 3 * hiddenSize);
      weightHh = new Linear(hiddenSize, 3 * hiddenSize);
      actor = new Sequential(new Linear(hiddenSize, hiddenSize), new Tanh(), new Linear(hiddenSize, hiddenSize), new Tanh());
      critic = new Sequential(new Linear(hiddenSize, hiddenSize), new Tanh(), new Linear(hiddenSize, hiddenSize), new Tanh());
      criticLinear = new Linear(hiddenSize, 1);
    }

    Tensor[] forwardGru(Tensor x, Tensor hxs, Tensor masks) {
      Tensor h = hxs.mul(masks); // same bug
      Tensor gi = weightIh.forward(x);
      Tensor gh = weightHh.forward(h);
      Tensor r = gi.narrow(1, 0, hiddenSize).add(gh.narrow(1, 0, hiddenSize)).sigmoid();
      Tensor z = gi.narrow(1, hiddenSize, hiddenSize).add(gh.narrow(1, hiddenSize, hiddenSize)).sigmoid();
      Tensor n = gi.narrow(1, 2 * hiddenSize, hiddenSize).add(r.mul(gh.narrow(1, 2 * hiddenSize, hiddenSize))).tanh();
      Tensor hNew = z.rsub(1).mul(n).add(z.mul(h));
      return new Tensor[] {hNew, hNew};
    }

    Tensor[] forward(Tensor inputs, Tensor rnnHxs, Tensor masks) {
      Tensor[] xh = forwardGru(inputs, rnnHxs, masks);
      Tensor x = xh[0];
      return new Tensor[] {criticLinear.forward(critic.forward(x)), actor.forward(x), xh[1]};
    }
  }

  static final class Policy extends Model {
    final MlpBase base;
    final Linear distLinear;

    Policy(int obsSize, int numActions) {
      base = new MlpBase(obsSize, 64);
      distLinear = new Linear(64, numActions);
    }

    int recurrentHiddenStateSize() {
      return base.hiddenSize;
    }

    /** {@code act}: value, action, log-prob, hidden states; the Categorical's mode when deterministic. */
    Tensor[] act(Tensor inputs, Tensor rnnHxs, Tensor masks, boolean deterministic) {
      Tensor[] out = base.forward(inputs, rnnHxs, masks);
      Tensor logits = distLinear.forward(out[1]).logSoftmax(-1);
      Tensor action = deterministic ? logits.argmax(-1, true)
          : logits.exp().add(Tensor.randLike(logits).log().neg().log().neg()).argmax(-1, true);
      return new Tensor[] {out[0], action, logits.gather(1, action), out[2]};
    }
  }

  /** {@code VecPyTorch} over a toy vector env: observations are moved to the device (issue #117's fix). */
  static final class VecPyTorch {
    final int numProcesses;
    final Device device;
    final Random rng = new Random(3);
    final int[] t;

    VecPyTorch(int numProcesses, Device device) {
      this.numProcesses = numProcesses;
      this.device = device;
      this.t = new int[numProcesses];
    }

    Tensor reset() {
      return Tensor.randn(Shape.of(numProcesses, 4)).to(device); // costs time: CreateThenMove
    }

    /** Returns the observations; fills {@code done} and {@code episodeRewards} on the host. */
    Tensor step(Tensor action, boolean[] done, List<Double> episodeRewards) {
      for (int i = 0; i < numProcesses; i++) {
        t[i]++;
        done[i] = t[i] % 5 == 0;
        if (done[i]) {
          episodeRewards.add(rng.nextDouble());
        }
      }
      return Tensor.randn(Shape.of(numProcesses, 4)).to(device); // costs time: CreateThenMove
    }
  }

  static final class RolloutStorage {
    final Tensor masks;

    RolloutStorage(int numSteps, int numProcesses, Device device) {
      masks = Tensor.ones(Shape.of(numSteps + 1, numProcesses, 1), device);
    }

    void insert(int step, Tensor masks) {
      this.masks.select(0, step + 1).copyFrom(masks);
    }
  }

  public static void run(Device device) {
    int numProcesses = 2;
    int numSteps = 5;
    VecPyTorch envs = new VecPyTorch(numProcesses, device);
    Policy actorCritic = new Policy(4, 3);
    actorCritic.toDevice(device);
    RolloutStorage rollouts = new RolloutStorage(numSteps, numProcesses, device);

    Tensor obs = envs.reset();
    Tensor recurrentHiddenStates = Tensor.zeros(Shape.of(numProcesses, actorCritic.recurrentHiddenStateSize()), device);
    List<Double> episodeRewards = new ArrayList<>();
    boolean[] done = new boolean[numProcesses];
    for (int step = 0; step < numSteps; step++) {
      try (Autograd.Scope ignored = Autograd.noGrad()) {
        Tensor[] out = actorCritic.act(obs, recurrentHiddenStates, rollouts.masks.select(0, step), false);
        recurrentHiddenStates = out[3];
        obs = envs.step(out[1], done, episodeRewards);
      }
      // If done then clean the history of observations.
      float[] maskValues = new float[numProcesses];
      for (int i = 0; i < numProcesses; i++) {
        maskValues[i] = done[i] ? 0f : 1f;
      }
      Tensor masks = Tensor.of(maskValues, numProcesses, 1);
      rollouts.insert(step, masks);
    }

    // evaluation
    VecPyTorch evalEnvs = new VecPyTorch(numProcesses, device);
    List<Double> evalEpisodeRewards = new ArrayList<>();
    obs = evalEnvs.reset();
    Tensor evalRecurrentHiddenStates = Tensor.zeros(Shape.of(numProcesses, actorCritic.recurrentHiddenStateSize()), device);
    Tensor evalMasks = Tensor.zeros(Shape.of(numProcesses, 1), device);
    while (evalEpisodeRewards.size() < 10) {
      Tensor action;
      try (Autograd.Scope ignored = Autograd.noGrad()) {
        Tensor[] out = actorCritic.act(obs, evalRecurrentHiddenStates, evalMasks, true); // same bug
        action = out[1];
        evalRecurrentHiddenStates = out[3];
      }
      obs = evalEnvs.step(action, done, evalEpisodeRewards);
      float[] evalMaskValues = new float[numProcesses];
      for (int i = 0; i < numProcesses; i++) {
        evalMaskValues[i] = done[i] ? 0f : 1f;
      }
      evalMasks = Tensor.of(evalMaskValues, numProcesses, 1); // bug: across-methods
    }
    System.out.printf(" Evaluation using %d episodes: mean reward %.5f%n", evalEpisodeRewards.size(),
        evalEpisodeRewards.stream().mapToDouble(Double::doubleValue).average().orElse(0));
  }
}
