package corpus.bugs;

import dev.ondevice.Autograd;
import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.annotations.Buffer;
import dev.ondevice.data.Batch;
import dev.ondevice.data.DataLoader;
import dev.ondevice.data.TensorDataset;
import dev.ondevice.nn.Conv2d;
import dev.ondevice.nn.Model;

/**
 * Evaluating a segmentation network with torchmetrics' {@code MulticlassConfusionMatrix}: the
 * metric is a module whose state ({@code confmat}) is registered with {@code add_state}; the loop
 * calls {@code metric.update(preds, target)} on every batch and {@code metric.compute()} at the end.
 *
 * <p>Source: https://github.com/Lightning-AI/torchmetrics/issues/1865
 *
 * <p>Bug: the metric is never moved to the GPU ({@code metric.to(device)}); its CPU state meets the
 * batch's confusion matrix, computed from GPU predictions, in {@code self.confmat += confmat} inside
 * {@code update} (the maintainers: metrics are modules and must be moved like the model).
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class TorchmetricsConfusionMatrixNotMoved {
  private TorchmetricsConfusionMatrixNotMoved() {}

  /** torchmetrics' {@code MulticlassConfusionMatrix(num_classes)}. */
  static final class MulticlassConfusionMatrix extends Model {
    final int numClasses;
    @Buffer Tensor confmat;

    MulticlassConfusionMatrix(int numClasses) {
      this.numClasses = numClasses;
      this.confmat = Tensor.zeros(Shape.of(numClasses, numClasses), DType.INT64, Device.cpu());
    }

    /** {@code _multiclass_confusion_matrix_update}: a bincount of {@code target * C + preds}. */
    static Tensor confusionMatrixUpdate(Tensor preds, Tensor target, int numClasses) {
      Tensor uniqueMapping = target.flatten().mul((long) numClasses).add(preds.flatten());
      Tensor bins = Tensor.oneHot(uniqueMapping, numClasses * numClasses).sum(0);
      return bins.reshape(numClasses, numClasses);
    }

    void update(Tensor preds, Tensor target) {
      if (preds.dim() == target.dim() + 1) {
        preds = preds.argmax(1);
      }
      Tensor batchConfmat = confusionMatrixUpdate(preds, target, numClasses);
      confmat.addi(batchConfmat); // bug: across-methods
    }

    Tensor compute() {
      return confmat;
    }
  }

  /** A one-layer segmentation head: per-pixel class scores. */
  static final class SegNet extends Model {
    final Conv2d head = new Conv2d(3, 4, 3, 1, 1, true);

    Tensor forward(Tensor x) {
      return head.forward(x);
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    SegNet model = new SegNet();
    model.toDevice(device);
    MulticlassConfusionMatrix metric = new MulticlassConfusionMatrix(4);
    TensorDataset val = new TensorDataset(Tensor.randn(6, 3, 5, 5), Tensor.randint(0, 4, Shape.of(6, 5, 5)));
    model.eval();
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      for (Batch b : DataLoader.builder(val).batchSize(2).build()) {
        Tensor images = b.inputs().to(device);
        Tensor labels = b.targets().to(device);
        Tensor preds = model.forward(images);
        metric.update(preds, labels);
      }
    }
    System.out.println(metric.compute());
  }
}
