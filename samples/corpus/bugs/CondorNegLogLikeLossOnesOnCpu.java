package corpus.bugs;

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
 * condor_pytorch's MNIST tutorial: a CNN whose last layer has {@code num_classes - 1} outputs, the
 * integer labels converted to extended binary levels with {@code levels_from_labelbatch} and moved
 * to the device, and the CONDOR negative log-likelihood loss {@code condor_negloglikeloss(logits,
 * levels)} from the library's losses module.
 *
 * <p>Source: https://github.com/GarrettJenkinson/condor_pytorch/pull/2 (commit 444e098)
 *
 * <p>Bug: {@code condor_negloglikeloss} builds the shifted label matrix with
 * {@code torch.cat([torch.ones((labels.shape[0],1)), labels[:,:-1]], dim=1)}: the column of ones is
 * made on the default device (the CPU) and meets the labels on the GPU; the fix passes
 * {@code device=labels.device} (and {@code device=logits.device} to the {@code zeros_like}).
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class CondorNegLogLikeLossOnesOnCpu {
  private CondorNegLogLikeLossOnesOnCpu() {}

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
      Tensor piLab = Tensor.cat(List.of(Tensor.ones(labels.size(0), 1), labels.slice(1, 0, labels.size(1) - 1)), 1); // bug: in-method
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
  }
}
