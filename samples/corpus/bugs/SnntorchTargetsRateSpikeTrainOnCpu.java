package corpus.bugs;

import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.nn.MseLoss;
import dev.ondevice.optim.Adam;
import java.util.ArrayList;
import java.util.List;

/**
 * snntorch's {@code spikegen.targets_rate}: it rate-codes class targets into spike trains over
 * {@code num_steps} for training a spiking network's membrane potential; it one-hot encodes the
 * targets (on the targets' device, in {@code to_one_hot}), repeats them along time, asks {@code
 * target_rate_code} for the spike train of the correct and of the incorrect classes, and multiplies
 * the two.
 *
 * <p>Source: https://github.com/jeshraghian/snntorch/commit/b3f880cfb0192eedab1e68171f0da61eff204c91
 * ("device/cuda loading fixes for targets_rate"; the code before it:
 * https://github.com/jeshraghian/snntorch/blob/91911ea0bebfaa07cf37f952e6037dd810454341/snntorch/spikegen.py)
 *
 * <p>Bug: {@code target_rate_code} builds its spike train with {@code torch.zeros(num_steps)
 * .scatter(0, spike_times.long(), 1)}, on the CPU, so with CUDA targets {@code one_hot_targets *
 * correct_spike_targets.unsqueeze(-1).unsqueeze(-1)} mixes devices; the fix computes {@code device}
 * from the targets in {@code targets_rate} and moves each spike train there.
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class SnntorchTargetsRateSpikeTrainOnCpu {
  private SnntorchTargetsRateSpikeTrainOnCpu() {}

  /** snntorch/spikegen.py. */
  static final class Spikegen {
    private Spikegen() {}

    static Tensor toOneHot(Tensor targets, int numOutputs) {
      Device device = targets.device();
      Tensor oneHot = Tensor.zeros(Shape.of(targets.size(0), numOutputs), DType.FLOAT32, device);
      return oneHot.add(Tensor.oneHot(targets.to(DType.INT64), numOutputs).to(DType.FLOAT32));
    }

    static Tensor toOneHotInverse(Tensor oneHotTargets) {
      return oneHotTargets.eq(0).to(DType.FLOAT32);
    }

    static Tensor repeatAlongTime(Tensor t, int numSteps) {
      return t.unsqueeze(0).expand(numSteps, t.size(0), t.size(1));
    }

    /** Returns the spike train over {@code num_steps} and the spike times. */
    static Tensor[] targetRateCode(int numSteps, int firstSpikeTime, double rate, String firingPattern) {
      if (firingPattern.equals("regular")) {
        Tensor spikeTimes = Tensor.arange(firstSpikeTime, numSteps, 1 / rate, DType.FLOAT32, Device.cpu());
        Tensor spikeTrain = Tensor.zeros(numSteps)
            .add(Tensor.oneHot(spikeTimes.to(DType.INT64), numSteps).sum(0)).clampMax(1); // .scatter(0, spike_times.long(), 1)
        return new Tensor[] {spikeTrain, spikeTimes};
      }
      throw new IllegalArgumentException("firing_pattern must be either 'regular', 'uniform' or 'poisson'.");
    }

    static Tensor targetsRate(Tensor targets, int numClasses, int numSteps, int firstSpikeTime, double correctRate,
        double incorrectRate, double onTarget, double offTarget, String firingPattern) {
      if (incorrectRate > correctRate) {
        throw new IllegalArgumentException("correct_rate must be greater than incorrect_rate.");
      }
      if (correctRate == 1 && incorrectRate == 0 && firstSpikeTime == 0) {
        return toOneHot(targets, numClasses).mul(onTarget).clampMin(offTarget);
      }
      Tensor oneHotTargets = toOneHot(targets, numClasses);
      Tensor oneHotInverse = toOneHotInverse(oneHotTargets);
      oneHotTargets = repeatAlongTime(oneHotTargets, numSteps);
      oneHotInverse = repeatAlongTime(oneHotInverse, numSteps);
      Tensor correctSpikesOneHot = oneHotTargets;
      Tensor incorrectSpikesOneHot = Tensor.zerosLike(oneHotInverse);
      if (correctRate != 1) {
        Tensor correctSpikeTargets = targetRateCode(numSteps, firstSpikeTime, correctRate, firingPattern)[0];
        correctSpikesOneHot = oneHotTargets.mul(correctSpikeTargets.unsqueeze(-1).unsqueeze(-1)); // bug: across-methods
      }
      if (incorrectRate != 0) {
        Tensor incorrectSpikeTargets = targetRateCode(numSteps, firstSpikeTime, incorrectRate, firingPattern)[0];
        incorrectSpikesOneHot = oneHotInverse.mul(incorrectSpikeTargets.unsqueeze(-1).unsqueeze(-1)); // same bug
      }
      return incorrectSpikesOneHot.add(correctSpikesOneHot).mul(onTarget).clampMin(offTarget);
    }
  }

  /** A two-layer leaky integrate-and-fire network recording its output membrane over time. */
  static final class Net extends Model {
    final Linear fc1 = new Linear(64, 32);
    final Linear fc2 = new Linear(32, 10);
    final double beta = 0.9;

    Tensor forward(Tensor x, int numSteps) {
      Tensor mem1 = Tensor.zeros(Shape.of(x.size(0), 32), x.device());
      Tensor mem2 = Tensor.zeros(Shape.of(x.size(0), 10), x.device());
      List<Tensor> mem2Rec = new ArrayList<>();
      for (int step = 0; step < numSteps; step++) {
        mem1 = mem1.mul(beta).add(fc1.forward(x));
        Tensor spk1 = mem1.sub(1.0).sigmoid();
        mem1 = mem1.sub(spk1);
        mem2 = mem2.mul(beta).add(fc2.forward(spk1));
        mem2Rec.add(mem2);
      }
      return Tensor.stack(mem2Rec);
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    int numSteps = 10;
    Net net = new Net();
    net.toDevice(device);
    Adam optimizer = new Adam(net.parameters(), 2e-3);
    MseLoss lossFn = new MseLoss();
    for (int step = 0; step < 3; step++) {
      Tensor data = Tensor.rand(Shape.of(16, 64), device);
      Tensor targets = Tensor.randint(0, 10, Shape.of(16), device);
      Tensor spikeTargets = Spikegen.targetsRate(targets, 10, numSteps, 0, 0.8, 0.2, 1.0, 0.0, "regular");
      Tensor memRec = net.forward(data, numSteps);
      Tensor loss = lossFn.forward(memRec, spikeTargets);
      optimizer.zeroGrad();
      loss.backward();
      optimizer.step();
    }
  }
}
