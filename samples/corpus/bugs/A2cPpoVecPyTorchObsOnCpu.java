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
 * ikostrikov's pytorch-a2c-ppo-acktr-gail: {@code envs.py}'s {@code VecPyTorch} wraps the vector
 * environments and turns their numpy observations into tensors; {@code main.py} copies them into the
 * rollout storage (moved to the device) for training, and every {@code eval_interval} updates feeds
 * the evaluation environments' observations straight to {@code actor_critic.act}.
 *
 * <p>Source: https://github.com/ikostrikov/pytorch-a2c-ppo-acktr-gail/issues/117 (fixed by commit
 * 3df9dca, "Fix observation not being copied to GPU in evaluation")
 *
 * <p>Bug: {@code VecPyTorch.reset} and {@code step_wait} return {@code
 * torch.from_numpy(obs).float()} on the CPU; training never notices (the storage's {@code copy_}
 * moves them) but evaluation runs the CUDA policy on them. The fix gives {@code VecPyTorch} the
 * device and returns {@code obs.to(self.device)}.
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class A2cPpoVecPyTorchObsOnCpu {
  private A2cPpoVecPyTorchObsOnCpu() {}

  /** {@code MLPBase} with {@code recurrent=False}: the masks are not used. */
  static final class MlpBase extends Model {
    final Sequential actor;
    final Sequential critic;
    final Linear criticLinear;

    MlpBase(int numInputs, int hiddenSize) {
      actor = new Sequential(new Linear(numInputs, hiddenSize), new Tanh(), new Linear(hiddenSize, hiddenSize), new Tanh());
      critic = new Sequential(new Linear(numInputs, hiddenSize), new Tanh(), new Linear(hiddenSize, hiddenSize), new Tanh());
      criticLinear = new Linear(hiddenSize, 1);
    }

    Tensor[] forward(Tensor inputs, Tensor rnnHxs, Tensor masks) {
      Tensor x = inputs;
      Tensor hiddenCritic = critic.forward(x); // same bug
      Tensor hiddenActor = actor.forward(x);
      return new Tensor[] {criticLinear.forward(hiddenCritic), hiddenActor, rnnHxs};
    }
  }

  static final class Policy extends Model {
    final MlpBase base;
    final Linear distLinear;

    Policy(int obsSize, int numActions) {
      base = new MlpBase(obsSize, 64);
      distLinear = new Linear(64, numActions);
    }

    Tensor[] act(Tensor inputs, Tensor rnnHxs, Tensor masks, boolean deterministic) {
      Tensor[] out = base.forward(inputs, rnnHxs, masks);
      Tensor logits = distLinear.forward(out[1]).logSoftmax(-1);
      Tensor action = deterministic ? logits.argmax(-1, true)
          : logits.exp().add(Tensor.randLike(logits).log().neg().log().neg()).argmax(-1, true);
      return new Tensor[] {out[0], action, logits.gather(1, action), out[2]};
    }
  }

  /** {@code VecPyTorch(VecEnvWrapper)} over a toy vector environment of 4-dimensional observations. */
  static final class VecPyTorch {
    final int numProcesses;
    final Random rng = new Random(5);
    final int[] t;

    VecPyTorch(int numProcesses) {
      this.numProcesses = numProcesses;
      this.t = new int[numProcesses];
    }

    float[] venvObs() {
      float[] o = new float[numProcesses * 4];
      for (int i = 0; i < o.length; i++) {
        o[i] = (float) rng.nextGaussian();
      }
      return o;
    }

    Tensor reset() {
      Tensor obs = Tensor.of(venvObs(), numProcesses, 4); // bug: across-methods
      return obs;
    }

    /** {@code step_async(actions.squeeze(1).cpu().numpy())} then {@code step_wait()}. */
    Tensor step(Tensor actions, boolean[] done, List<Double> episodeRewards) {
      long[] a = actions.squeeze(1).cpu().toLongArray(); // costs time: HostSyncInLoop
      for (int i = 0; i < numProcesses; i++) {
        t[i]++;
        done[i] = t[i] % 4 == 0 || a[i] < 0;
        if (done[i]) {
          episodeRewards.add(rng.nextDouble());
        }
      }
      Tensor obs = Tensor.of(venvObs(), numProcesses, 4); // bug: across-methods
      return obs;
    }
  }

  static final class RolloutStorage {
    Tensor obs;

    RolloutStorage(int numSteps, int numProcesses) {
      obs = Tensor.zeros(Shape.of(numSteps + 1, numProcesses, 4), Device.cpu());
    }

    void to(Device device) {
      obs = obs.to(device);
    }

    void insert(int step, Tensor obs) {
      this.obs.select(0, step + 1).copyFrom(obs);
    }
  }

  public static void run(Device device) {
    int numProcesses = 2;
    int numSteps = 5;
    VecPyTorch envs = new VecPyTorch(numProcesses);
    Policy actorCritic = new Policy(4, 3);
    actorCritic.toDevice(device);
    RolloutStorage rollouts = new RolloutStorage(numSteps, numProcesses);

    Tensor obs = envs.reset();
    rollouts.obs.select(0, 0).copyFrom(obs);
    rollouts.to(device);
    Tensor hidden = Tensor.zeros(Shape.of(numProcesses, 1), device);
    Tensor masks = Tensor.ones(Shape.of(numProcesses, 1), device);
    List<Double> episodeRewards = new ArrayList<>();
    boolean[] done = new boolean[numProcesses];
    for (int step = 0; step < numSteps; step++) {
      Tensor action;
      try (Autograd.Scope ignored = Autograd.noGrad()) {
        action = actorCritic.act(rollouts.obs.select(0, step), hidden, masks, false)[1];
      }
      obs = envs.step(action, done, episodeRewards);
      rollouts.insert(step, obs);
    }

    // evaluation
    VecPyTorch evalEnvs = new VecPyTorch(numProcesses);
    List<Double> evalEpisodeRewards = new ArrayList<>();
    obs = evalEnvs.reset();
    Tensor evalRecurrentHiddenStates = Tensor.zeros(Shape.of(numProcesses, 1), device);
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
      evalMasks = Tensor.of(evalMaskValues, Shape.of(numProcesses, 1), device);
    }
    System.out.printf(" Evaluation using %d episodes: mean reward %.5f%n", evalEpisodeRewards.size(),
        evalEpisodeRewards.stream().mapToDouble(Double::doubleValue).average().orElse(0));
  }
}
