package corpus.correct;

import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.data.Batch;
import dev.ondevice.data.DataLoader;
import dev.ondevice.data.TensorDataset;
import dev.ondevice.nn.Conv2d;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.MaxPool2d;
import dev.ondevice.nn.Model;
import dev.ondevice.nn.Sequential;
import dev.ondevice.optim.Adam;
import java.util.ArrayList;
import java.util.List;

/**
 * condor_pytorch's MNIST tutorial after the device fix: integer labels become extended binary
 * levels with {@code levels_from_labelbatch} (each row made on the label's device), the levels move
 * to the device with the features, and {@code condor_negloglikeloss} builds its column of ones with
 * {@code device=labels.device}; after training, {@code logits_to_label} turns the logits back into
 * class labels for an accuracy.
 *
 * <p>Source: https://github.com/GarrettJenkinson/condor_pytorch/blob/a89ba05/src/condor_pytorch/losses.py
 * (with dataset.py and docs/tutorials/mnist.md of the same commit)
 *
 * <p>Ported: label_to_levels and levels_from_labelbatch, condor_negloglikeloss with
 * {@code reduction='mean'}, logits_to_label, the tutorial's ConvNet and training loop (cost printed
 * every 200 batches). Left out: the MNIST download (random images), the other reductions, and the
 * tutorial's compute_mae_and_acc with the library's metrics (an accuracy from logits_to_label
 * instead). {@code torch.tensor(levels, device=label.device)} for a CPU label is a CPU array.
 *
 * <p>Outcome: completes
 */
public final class CondorTutorialTrainFixedLoss {
  private CondorTutorialTrainFixedLoss() {}

  static final int NUM_CLASSES = 10;

  /** condor_pytorch.dataset */
  static final class Dataset {
    static Tensor labelToLevels(long intLabel, int numClasses) {
      float[] levels = new float[numClasses - 1];
      for (int i = 0; i < intLabel; i++) {
        levels[i] = 1;
      }
      return Tensor.of(levels);
    }

    static Tensor levelsFromLabelbatch(Tensor labels, int numClasses) {
      List<Tensor> levels = new ArrayList<>();
      for (long label : labels.toLongArray()) {
        levels.add(labelToLevels(label, numClasses));
      }
      return Tensor.stack(levels);
    }
  }

  /** condor_pytorch.losses */
  static final class Losses {
    static Tensor condorNegloglikeloss(Tensor logits, Tensor labels) {
      Tensor piLab = Tensor.cat(List.of(Tensor.ones(Shape.of(labels.size(0), 1), labels.device()), labels.slice(1, 0, labels.size(1) - 1)), 1);
      Tensor zeros = Tensor.zerosLike(logits);
      Tensor cond = logits.ge(zeros);
      Tensor cond2 = piLab.gt(zeros);
      Tensor reluLogits = Tensor.where(cond, logits, zeros);
      Tensor negAbsLogits = Tensor.where(cond, logits.neg(), logits);
      Tensor temp = reluLogits.sub(logits.mul(labels)).add(negAbsLogits.exp().log1p());
      Tensor val = Tensor.where(cond2, temp, zeros).sum(1);
      return val.mean();
    }
  }

  static final class ConvNet extends Model {
    final Sequential features = new Sequential(new Conv2d(1, 3, 3, 1, 1, true), new MaxPool2d(2),
        new Conv2d(3, 6, 3, 1, 1, true), new MaxPool2d(2));
    final Linear fc = new Linear(294, NUM_CLASSES - 1);

    Tensor forward(Tensor x) {
      x = features.forward(x);
      x = x.view(x.size(0), -1);
      return fc.forward(x);
    }
  }

  static Tensor logitsToLabel(Tensor logits) {
    Tensor probas = logits.sigmoid();
    Tensor cum = probas.select(1, 0).unsqueeze(1);
    List<Tensor> cols = new ArrayList<>(List.of(cum));
    for (long j = 1; j < logits.size(1); j++) {
      cum = cum.mul(probas.select(1, j).unsqueeze(1));
      cols.add(cum);
    }
    return Tensor.cat(cols, 1).gt(0.5).to(dev.ondevice.DType.INT64).sum(1);
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    TensorDataset train = new TensorDataset(Tensor.rand(Shape.of(64, 1, 28, 28)), Tensor.randint(0, NUM_CLASSES, Shape.of(64)));
    DataLoader trainLoader = DataLoader.builder(train).batchSize(16).shuffle(123).dropLast(true).build();
    ConvNet model = new ConvNet();
    model.toDevice(device);
    Adam optimizer = new Adam(model.parameters());
    for (int epoch = 0; epoch < 2; epoch++) {
      model.train();
      int batchIdx = 0;
      for (Batch b : trainLoader) {
        Tensor levels = Dataset.levelsFromLabelbatch(b.targets(), NUM_CLASSES);
        Tensor features = b.inputs().to(device);
        levels = levels.to(device);
        Tensor logits = model.forward(features);
        Tensor cost = Losses.condorNegloglikeloss(logits, levels);
        optimizer.zeroGrad();
        cost.backward();
        optimizer.step();
        if (batchIdx % 200 == 0) {
          System.out.printf("Epoch: %03d | Batch %03d | Cost: %.4f%n", epoch + 1, batchIdx, cost.item());
        }
        batchIdx++;
      }
    }
    model.eval();
    Tensor correct = Tensor.zeros(Shape.scalar(), device);
    try (dev.ondevice.Autograd.Scope ignored = dev.ondevice.Autograd.noGrad()) {
      for (Batch b : trainLoader) {
        Tensor predicted = logitsToLabel(model.forward(b.inputs().to(device)));
        correct = correct.add(predicted.eq(b.targets().to(device)).sum());
      }
    }
    System.out.printf("train accuracy %.3f%n", correct.item() / 64);
  }
}
