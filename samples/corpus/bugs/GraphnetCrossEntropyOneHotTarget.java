package corpus.bugs;

import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.nn.ReLU;
import dev.ondevice.nn.Sequential;
import dev.ondevice.optim.Adam;
import java.util.Map;
import java.util.TreeSet;

/**
 * GraphNeT's classification loss: {@code LossFunction.forward} weights and averages the
 * elementwise terms that {@code CrossEntropyLoss._forward} computes; with a dict of options the
 * particle ids in the target ({@code 1, -1, 12, -12, ...}) are mapped to class indices, one-hot
 * encoded and compared with the predicted class probabilities of a multiclass task, trained by a
 * {@code StandardModel} (a GNN, here an MLP over pooled features, and the task head) on the GPU.
 *
 * <p>Source: https://github.com/graphnet-team/graphnet/issues/328 (fixed by commit ddb5ebc, "added
 * device to target", src/graphnet/training/loss_functions.py)
 *
 * <p>Bug: {@code target_integer = torch.tensor([self._options[int(value)] for value in target])}
 * and {@code one_hot(target_integer, nb_classes)} are on the CPU, and {@code
 * nn.CrossEntropyLoss(reduction="none")(prediction.float(), target_new.float())} meets the GPU
 * predictions. The fix moves the one-hot target: {@code one_hot(...).to(prediction.device)}.
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class GraphnetCrossEntropyOneHotTarget {
  private GraphnetCrossEntropyOneHotTarget() {}

  /** Base class for loss functions in graphnet (a {@code Model}, i.e. an {@code nn.Module}). */
  abstract static class LossFunction extends Model {
    /** Forward pass for all loss functions: elementwise terms, weighted, averaged. */
    final Tensor forward(Tensor prediction, Tensor target, Tensor weights, boolean returnElements) {
      Tensor elements = forwardElements(prediction, target);
      if (weights != null) {
        elements = elements.mul(weights);
      }
      if (elements.size(0) != target.size(0)) {
        throw new IllegalStateException("`_forward` should return elementwise loss terms.");
      }
      return returnElements ? elements : elements.mean();
    }

    abstract Tensor forwardElements(Tensor prediction, Tensor target);
  }

  /** Negative log likelihood for classification; options map particle ids to classes. */
  static final class CrossEntropyLoss extends LossFunction {
    final Map<Integer, Integer> options;

    CrossEntropyLoss(Map<Integer, Integer> options) {
      this.options = options;
    }

    @Override
    Tensor forwardElements(Tensor prediction, Tensor target) {
      int nbClasses = new TreeSet<>(options.values()).size();
      // encodes the target according dict rules; (1,-1,12,-12,..,N,-N) -> (0,1,..,N)
      long[] targetIntegers = new long[(int) target.size(0)];
      for (int i = 0; i < targetIntegers.length; i++) {
        targetIntegers[i] = options.get((int) target.select(0, i).item()); // costs time: HostSyncInLoop
      }
      Tensor targetInteger = Tensor.of(targetIntegers); // same bug

      // pid_transform = {1:0,12:2,13:1,14:2,16:2}
      Tensor targetNew = Tensor.oneHot(targetInteger, nbClasses); // bug: in-method
      // nn.CrossEntropyLoss(reduction="none") with class probabilities as the target
      return prediction.to(DType.FLOAT32).logSoftmax(-1).mul(targetNew.to(DType.FLOAT32)).sum(-1).neg(); // same bug
    }
  }

  /** {@code MulticlassClassificationTask}: a linear head and a softmax over the classes. */
  static final class MulticlassClassificationTask extends Model {
    final Linear affine;
    final CrossEntropyLoss lossFunction;

    MulticlassClassificationTask(int hiddenSize, int nbOutputs, CrossEntropyLoss lossFunction) {
      affine = new Linear(hiddenSize, nbOutputs);
      this.lossFunction = lossFunction;
    }

    Tensor forward(Tensor x) {
      return affine.forward(x).softmax(-1);
    }

    Tensor computeLoss(Tensor pred, Tensor target) {
      return lossFunction.forward(pred, target, null, false);
    }
  }

  /** {@code StandardModel}: the GNN (here an MLP over pooled node features) and one task. */
  static final class StandardModel extends Model {
    final Sequential gnn;
    final MulticlassClassificationTask task;

    StandardModel(int features, int hidden, MulticlassClassificationTask task) {
      gnn = new Sequential(new Linear(features, hidden), new ReLU(), new Linear(hidden, hidden), new ReLU());
      this.task = task;
    }

    Tensor forward(Tensor x) {
      return task.forward(gnn.forward(x));
    }

    Tensor trainingStep(Tensor x, Tensor pid) {
      Tensor preds = forward(x);
      return task.computeLoss(preds, pid);
    }
  }

  public static void run(Device device) {
    Map<Integer, Integer> options = Map.of(1, 0, -1, 0, 13, 1, -13, 1, 12, 2, -12, 2, 14, 2, -14, 2, 16, 2, -16, 2);
    StandardModel model = new StandardModel(8, 16, new MulticlassClassificationTask(16, 3, new CrossEntropyLoss(options)));
    model.toDevice(device);
    Adam optimizer = new Adam(model.parameters(), 1e-3);
    double[] pids = {1, -1, 13, -13, 12, -12, 14, 16};
    for (int step = 0; step < 3; step++) {
      Tensor x = Tensor.randn(Shape.of(8, 8), device);
      Tensor pid = Tensor.of(pids, Shape.of(8, 1), device);
      optimizer.zeroGrad();
      Tensor loss = model.trainingStep(x, pid);
      loss.backward();
      optimizer.step();
    }
    System.out.println("trained 3 steps");
  }
}
