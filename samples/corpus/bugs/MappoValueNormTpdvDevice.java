package corpus.bugs;

import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Parameter;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.nn.ReLU;
import dev.ondevice.nn.Sequential;
import dev.ondevice.optim.Adam;
import java.util.Random;

/**
 * MAPPO from marlbenchmark/on-policy with {@code use_valuenorm}: the trainer {@code R_MAPPO} keeps
 * a {@code ValueNorm} of the returns, the runner's {@code compute()} turns the critic's values into
 * GAE returns through {@code value_normalizer.denormalize} in the numpy {@code SharedReplayBuffer},
 * and {@code cal_value_loss} updates the normalizer and normalizes the return batch.
 *
 * <p>Source: https://github.com/marlbenchmark/on-policy/pull/107 (commit f674d2e; the crash is
 * issue #89, onpolicy/utils/valuenorm.py and onpolicy/algorithms/r_mappo/r_mappo.py)
 *
 * <p>Bug: {@code self.value_normalizer = ValueNorm(1).to(self.device)} moves the normalizer's
 * running statistics to the GPU, but its {@code self.tpdv = dict(dtype=torch.float32,
 * device=device)} keeps the default {@code cpu}, and every {@code update}/{@code normalize}/{@code
 * denormalize} moves its input there with {@code input_vector.to(**self.tpdv)} before combining it
 * with the GPU statistics. The fix constructs it with {@code ValueNorm(1, device=self.device)}.
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class MappoValueNormTpdvDevice {
  private MappoValueNormTpdvDevice() {}

  /** {@code dict(dtype=torch.float32, device=device)}. */
  record Tpdv(DType dtype, Device device) {}

  /** Normalize a vector of observations - across the first norm_axes dimensions. */
  static final class ValueNorm extends Model {
    final int inputShape;
    final double epsilon = 1e-5;
    final double beta = 0.99999;
    final Tpdv tpdv;
    final Parameter runningMean;
    final Parameter runningMeanSq;
    final Parameter debiasingTerm;

    ValueNorm(int inputShape) {
      this(inputShape, Device.cpu());
    }

    ValueNorm(int inputShape, Device device) {
      this.inputShape = inputShape;
      this.tpdv = new Tpdv(DType.FLOAT32, device);
      runningMean = new Parameter(Tensor.zeros(Shape.of(inputShape), tpdv.dtype(), tpdv.device()));
      runningMeanSq = new Parameter(Tensor.zeros(Shape.of(inputShape), tpdv.dtype(), tpdv.device()));
      debiasingTerm = new Parameter(Tensor.zeros(Shape.scalar(), tpdv.dtype(), tpdv.device()));
      runningMean.requiresGrad(false);
      runningMeanSq.requiresGrad(false);
      debiasingTerm.requiresGrad(false);
    }

    Tensor[] runningMeanVar() {
      Tensor debiasedMean = runningMean.div(debiasingTerm.clampMin(epsilon));
      Tensor debiasedMeanSq = runningMeanSq.div(debiasingTerm.clampMin(epsilon));
      Tensor debiasedVar = debiasedMeanSq.sub(debiasedMean.pow(2)).clampMin(1e-2);
      return new Tensor[] {debiasedMean, debiasedVar};
    }

    void update(Tensor inputVector) {
      inputVector = inputVector.to(tpdv.device()).to(tpdv.dtype());
      Tensor batchMean = inputVector.mean(0);
      Tensor batchSqMean = inputVector.pow(2).mean(0);
      double weight = beta;
      try (var ignored = dev.ondevice.Autograd.noGrad()) {
        runningMean.muli(weight).addi(batchMean.mul(1.0 - weight)); // same bug
        runningMeanSq.muli(weight).addi(batchSqMean.mul(1.0 - weight));
        debiasingTerm.muli(weight).addi(1.0 * (1.0 - weight));
      }
    }

    Tensor normalize(Tensor inputVector) {
      inputVector = inputVector.to(tpdv.device()).to(tpdv.dtype());
      Tensor[] mv = runningMeanVar();
      return inputVector.sub(mv[0].unsqueeze(0)).div(mv[1].sqrt().unsqueeze(0));
    }

    /** Transform normalized data back into original distribution; returns numpy ({@code out.cpu().numpy()}). */
    float[] denormalize(float[] values) {
      Tensor inputVector = Tensor.of(values, values.length, 1); // torch.from_numpy
      inputVector = inputVector.to(tpdv.device()).to(tpdv.dtype());
      Tensor[] mv = runningMeanVar();
      Tensor out = inputVector.mul(mv[1].sqrt().unsqueeze(0)).add(mv[0].unsqueeze(0)); // same bug
      return out.cpu().toFloatArray(); // costs time: HostSyncInLoop
    }
  }

  /** The critic of {@code R_MAPPOPolicy}: an MLP to one value. */
  static final class Critic extends Model {
    final Sequential base = new Sequential(new Linear(6, 32), new ReLU(), new Linear(32, 32), new ReLU());
    final Linear vOut = new Linear(32, 1);

    Tensor forward(Tensor obs) {
      return vOut.forward(base.forward(obs));
    }
  }

  /** {@code R_MAPPO}: the trainer; only the value loss of {@code cal_value_loss} is kept. */
  static final class RMappo {
    final Critic critic;
    final Adam criticOptimizer;
    final Device device;
    final double clipParam = 0.2;
    final ValueNorm valueNormalizer;

    RMappo(Critic critic, Device device) {
      this.critic = critic;
      this.device = device;
      this.criticOptimizer = new Adam(critic.parameters(), 5e-4);
      ValueNorm normalizer = new ValueNorm(1); // bug: across-methods
      normalizer.toDevice(device);
      this.valueNormalizer = normalizer;
    }

    Tensor calValueLoss(Tensor values, Tensor valuePredsBatch, Tensor returnBatch) {
      Tensor valuePredClipped = valuePredsBatch.add(values.sub(valuePredsBatch).clamp(-clipParam, clipParam));
      valueNormalizer.update(returnBatch);
      Tensor errorClipped = valueNormalizer.normalize(returnBatch).sub(valuePredClipped);
      Tensor errorOriginal = valueNormalizer.normalize(returnBatch).sub(values);
      return errorClipped.pow(2).mul(0.5).maximum(errorOriginal.pow(2).mul(0.5)).mean();
    }

    void train(SharedReplayBuffer buffer) {
      Tensor obs = Tensor.of(buffer.obs, buffer.obs.length / 6, 6).to(device); // costs time: CreateThenMove
      Tensor valuePreds = Tensor.of(buffer.valuePreds, buffer.valuePreds.length, 1).narrow(0, 0, buffer.steps).to(device); // costs time: CreateThenMove
      Tensor returns = Tensor.of(buffer.returns, buffer.returns.length, 1).narrow(0, 0, buffer.steps).to(device); // costs time: CreateThenMove
      Tensor values = critic.forward(obs);
      Tensor valueLoss = calValueLoss(values, valuePreds, returns);
      criticOptimizer.zeroGrad();
      valueLoss.backward();
      criticOptimizer.step();
    }
  }

  /** The numpy {@code SharedReplayBuffer} (one rollout thread, one agent). */
  static final class SharedReplayBuffer {
    final int steps;
    final float[] obs;
    final float[] rewards;
    final float[] valuePreds;
    final float[] returns;
    final float[] masks;
    final double gamma = 0.99;
    final double gaeLambda = 0.95;

    SharedReplayBuffer(int steps) {
      this.steps = steps;
      obs = new float[steps * 6];
      rewards = new float[steps];
      valuePreds = new float[steps + 1];
      returns = new float[steps + 1];
      masks = new float[steps + 1];
      java.util.Arrays.fill(masks, 1f);
    }

    void computeReturns(float nextValue, ValueNorm valueNormalizer) {
      valuePreds[steps] = nextValue;
      double gae = 0;
      for (int step = steps - 1; step >= 0; step--) {
        float[] next = valueNormalizer.denormalize(new float[] {valuePreds[step + 1]});
        float[] cur = valueNormalizer.denormalize(new float[] {valuePreds[step]});
        double delta = rewards[step] + gamma * next[0] * masks[step + 1] - cur[0];
        gae = delta + gamma * gaeLambda * masks[step + 1] * gae;
        returns[step] = (float) (gae + cur[0]);
      }
    }
  }

  public static void run(Device device) {
    Critic critic = new Critic();
    critic.toDevice(device);
    RMappo trainer = new RMappo(critic, device);
    int episodeLength = 6;
    SharedReplayBuffer buffer = new SharedReplayBuffer(episodeLength);
    Random env = new Random(1);
    for (int episode = 0; episode < 2; episode++) {
      // collect
      for (int step = 0; step < episodeLength; step++) {
        float[] o = new float[6];
        for (int k = 0; k < 6; k++) {
          o[k] = (float) env.nextGaussian();
        }
        Tensor value = critic.forward(Tensor.of(o, Shape.of(1, 6), device));
        buffer.valuePreds[step] = value.detach().cpu().toFloatArray()[0]; // costs time: HostSyncInLoop
        System.arraycopy(o, 0, buffer.obs, step * 6, 6);
        buffer.rewards[step] = (float) env.nextDouble();
      }
      // compute
      float[] last = new float[6];
      Tensor nextValues = critic.forward(Tensor.of(last, Shape.of(1, 6), device));
      buffer.computeReturns(nextValues.detach().cpu().toFloatArray()[0], trainer.valueNormalizer); // costs time: HostSyncInLoop
      // train
      trainer.train(buffer);
    }
    System.out.println("2 episodes");
  }
}
