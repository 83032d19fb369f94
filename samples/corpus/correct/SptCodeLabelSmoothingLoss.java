package corpus.correct;

import dev.ondevice.Autograd;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.data.Batch;
import dev.ondevice.data.DataLoader;
import dev.ondevice.data.TensorDataset;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.optim.Adam;

/**
 * A label-smoothing cross-entropy: the smoothed target distribution is made with
 * {@code torch.zeros_like(pred)} (so on the prediction's device, with its dtype), filled with
 * {@code smoothing / (n_class - 1)} and given {@code confidence} at each target class, without
 * gradient.
 *
 * <p>Source: https://github.com/NougatCA/SPT-Code/blob/4d289af337b9fc5ff7799eb3b6be1a99562cec75/sources/utils/label_smoothing.py
 *
 * <p>Ported: LabelSmoothingCrossEntropyLoss as written (log-softmax, the no-grad target built from
 * {@code zeros_like(pred)}, mean over the batch of the summed products). Left out: the SPT-Code
 * models and trainer (a small classifier trained on random batches stands in). The module has no
 * state, so it is a plain class here (the runtime's losses are not models); {@code scatter_} is a
 * {@code maskedFill} with a one-hot mask of the targets, on the target's device.
 *
 * <p>Outcome: completes
 */
public final class SptCodeLabelSmoothingLoss {
  private SptCodeLabelSmoothingLoss() {}

  static final class LabelSmoothingCrossEntropyLoss {
    final double confidence, smoothing;
    final int nClass, dim;

    LabelSmoothingCrossEntropyLoss(int nClass, double smoothing, int dim) {
      this.confidence = 1.0 - smoothing;
      this.smoothing = smoothing;
      this.nClass = nClass;
      this.dim = dim;
    }

    Tensor forward(Tensor pred, Tensor target) {
      if (!(0 <= smoothing && smoothing < 1)) {
        throw new IllegalArgumentException("smoothing must be in [0, 1)");
      }
      pred = pred.logSoftmax(dim);
      Tensor trueDist;
      try (Autograd.Scope s = Autograd.noGrad()) {
        trueDist = Tensor.zerosLike(pred);
        trueDist.fill(smoothing / (nClass - 1));
        trueDist = trueDist.maskedFill(Tensor.oneHot(target, nClass).eq(1), confidence);
      }
      return trueDist.neg().mul(pred).sum(dim).mean();
    }
  }

  static final class Classifier extends Model {
    final Linear fc1 = new Linear(12, 32);
    final Linear fc2 = new Linear(32, 5);

    Tensor forward(Tensor x) {
      return fc2.forward(fc1.forward(x).relu());
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    TensorDataset data = new TensorDataset(Tensor.randn(Shape.of(40, 12)), Tensor.randint(0, 5, Shape.of(40)));
    DataLoader loader = DataLoader.builder(data).batchSize(10).shuffle(1).build();
    Classifier model = new Classifier();
    model.toDevice(device);
    LabelSmoothingCrossEntropyLoss criterion = new LabelSmoothingCrossEntropyLoss(5, 0.1, -1);
    Adam optimizer = new Adam(model.parameters(), 1e-3);
    Tensor total = Tensor.zeros(Shape.of(), device);
    for (Batch batch : loader) {
      Tensor x = batch.inputs().to(device);
      Tensor y = batch.targets().to(device);
      Tensor loss = criterion.forward(model.forward(x), y);
      optimizer.zeroGrad();
      loss.backward();
      optimizer.step();
      total = total.add(loss.detach());
    }
    System.out.printf("mean loss %.4f%n", total.item() / loader.numBatches());
  }
}
