package corpus.bugs;

import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.optim.Adam;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * torchebm's {@code BaseTrainer}: each training step draws negative samples for a contrastive
 * divergence loss from a replay buffer refreshed with short Langevin chains, computes the loss from
 * the positive and negative energies, steps the optimizer, and returns the step's metrics (loss,
 * positive energy, negative energy) for logging; the replay buffer keeps its write pointer as a
 * tensor.
 *
 * <p>Source: https://github.com/soran-ghaderi/torchebm/issues/239
 *
 * <p>Bug: "{@code BaseTrainer} syncs {@code .item()} three times per training step (loss, positive
 * energy, negative energy)" and "the replay-buffer pointer calls {@code .item()} per step": every
 * step blocks on the GPU four times; the fix returns device tensors, syncs only at the logging
 * boundary and keeps the pointer as a host int.
 *
 * <p>Outcome: completes (costs time)
 */
public final class TorchebmTrainerItemPerStep {
  private TorchebmTrainerItemPerStep() {}

  static final class EnergyModel extends Model {
    final Linear fc1 = new Linear(2, 32);
    final Linear fc2 = new Linear(32, 1);

    Tensor forward(Tensor x) {
      return fc2.forward(fc1.forward(x).tanh()).squeeze(-1);
    }
  }

  static final class ReplayBuffer {
    final Tensor buffer;
    Tensor ptr;
    final int capacity;

    ReplayBuffer(int capacity, int dim, Device device) {
      this.capacity = capacity;
      this.buffer = Tensor.randn(Shape.of(capacity, dim), device);
      this.ptr = Tensor.zeros(Shape.of(), dev.ondevice.DType.INT64, device);
    }

    Tensor sample(int n) {
      long start = ptr.itemAsLong(); // same bug
      long s = start % (capacity - n);
      return buffer.narrow(0, s, n).clone();
    }

    void push(Tensor samples) {
      long start = ptr.itemAsLong() % (capacity - samples.size(0)); // same bug
      buffer.narrow(0, start, samples.size(0)).copyFrom(samples.detach());
      ptr = ptr.add(samples.size(0));
    }
  }

  static final class ContrastiveDivergence {
    final EnergyModel model;
    final ReplayBuffer replay;
    final int kSteps;
    final double stepSize;

    ContrastiveDivergence(EnergyModel model, ReplayBuffer replay, int kSteps, double stepSize) {
      this.model = model;
      this.replay = replay;
      this.kSteps = kSteps;
      this.stepSize = stepSize;
    }

    Tensor[] forward(Tensor x) {
      Tensor xNeg = replay.sample((int) x.size(0));
      for (int k = 0; k < kSteps; k++) {
        xNeg = xNeg.detach().requiresGrad(true);
        Tensor energy = model.forward(xNeg).sum();
        energy.backward();
        xNeg = xNeg.detach().sub(xNeg.grad().mul(stepSize)).add(Tensor.randnLike(xNeg).mul(0.01));
      }
      model.zeroGrad();
      replay.push(xNeg);
      Tensor posEnergy = model.forward(x);
      Tensor negEnergy = model.forward(xNeg.detach());
      Tensor loss = posEnergy.mean().sub(negEnergy.mean());
      return new Tensor[] {loss, posEnergy, negEnergy};
    }
  }

  static final class BaseTrainer {
    final EnergyModel model;
    final ContrastiveDivergence lossFn;
    final Adam optimizer;
    final Device device;

    BaseTrainer(EnergyModel model, ContrastiveDivergence lossFn, Adam optimizer, Device device) {
      this.model = model;
      this.lossFn = lossFn;
      this.optimizer = optimizer;
      this.device = device;
    }

    Map<String, Double> trainStep(Tensor batch) {
      batch = batch.to(device);
      optimizer.zeroGrad();
      Tensor[] out = lossFn.forward(batch);
      Tensor loss = out[0];
      loss.backward();
      optimizer.step();
      Map<String, Double> metrics = new LinkedHashMap<>();
      metrics.put("loss", loss.item()); // bug: per-step
      metrics.put("pos_energy", out[1].mean().item()); // same bug
      metrics.put("neg_energy", out[2].mean().item()); // same bug
      return metrics;
    }

    void train(Tensor data, int nEpochs, int batchSize) {
      for (int epoch = 0; epoch < nEpochs; epoch++) {
        Map<String, Double> last = null;
        for (long start = 0; start + batchSize <= data.size(0); start += batchSize) {
          last = trainStep(data.narrow(0, start, batchSize));
        }
        System.out.println("epoch " + epoch + " " + last);
      }
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    EnergyModel model = new EnergyModel();
    model.toDevice(device);
    ReplayBuffer replay = new ReplayBuffer(256, 2, device);
    ContrastiveDivergence cd = new ContrastiveDivergence(model, replay, 3, 0.1);
    BaseTrainer trainer = new BaseTrainer(model, cd, new Adam(model.parameters(), 1e-3), device);
    trainer.train(Tensor.randn(Shape.of(64, 2)), 2, 16);
  }
}
