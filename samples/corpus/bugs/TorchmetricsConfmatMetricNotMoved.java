package corpus.bugs;

import dev.ondevice.Autograd;
import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.annotations.Buffer;
import dev.ondevice.nn.Conv2d;
import dev.ondevice.nn.Model;

/**
 * Validation of a segmentation network with torchmetrics' MulticlassConfusionMatrix, a metric
 * module whose state ({@code confmat}) is registered with {@code add_state} and accumulated over
 * the validation batches.
 *
 * <p>Source: https://github.com/Lightning-AI/torchmetrics/issues/1865
 *
 * <p>Bug: the metric was created and used without {@code metric.to(device)}; its {@code confmat}
 * state stayed on the CPU while {@code update} computed the batch's bins from predictions on
 * cuda:0, so {@code self.confmat += confmat} failed (the maintainers: metrics are modules and must
 * be moved like one).
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class TorchmetricsConfmatMetricNotMoved {
  private TorchmetricsConfmatMetricNotMoved() {}

  /** torchmetrics.classification.MulticlassConfusionMatrix */
  static final class MulticlassConfusionMatrix extends Model {
    final int numClasses;
    @Buffer Tensor confmat;

    MulticlassConfusionMatrix(int numClasses) {
      this.numClasses = numClasses;
      this.confmat = Tensor.zeros(Shape.of(numClasses, numClasses), DType.INT64, Device.cpu());
    }

    /** _multiclass_confusion_matrix_update: bincount of target * C + preds, as a C x C matrix. */
    static Tensor confusionMatrixUpdate(Tensor preds, Tensor target, int numClasses) {
      Tensor uniqueMapping = target.to(DType.INT64).mul(numClasses).add(preds.to(DType.INT64));
      Tensor bins = Tensor.oneHot(uniqueMapping, numClasses * numClasses).sum(0);
      return bins.reshape(numClasses, numClasses);
    }

    void update(Tensor preds, Tensor target) {
      if (preds.dim() == target.dim() + 1) {
        preds = preds.argmax(1);                 // _multiclass_confusion_matrix_format
      }
      Tensor update = confusionMatrixUpdate(preds.flatten(), target.flatten(), numClasses);
      confmat.addi(update);
    }

    Tensor compute() {
      return confmat;
    }
  }

  static final class SegNet extends Model {
    final Conv2d conv1 = new Conv2d(3, 8, 3, 1, 1, true);
    final Conv2d classifier = new Conv2d(8, 4, 1, 1, 0, true);

    Tensor forward(Tensor x) {
      return classifier.forward(conv1.forward(x).relu());
    }
  }

  static Tensor validate(SegNet model, Tensor[][] valBatches, Device device) {
    MulticlassConfusionMatrix metric = new MulticlassConfusionMatrix(4); // bug: across-methods
    model.eval();
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      for (Tensor[] batch : valBatches) {
        Tensor images = batch[0].to(device);
        Tensor labels = batch[1].to(device);
        Tensor preds = model.forward(images);          // (N, C, H, W)
        metric.update(preds, labels);                  // labels (N, H, W) // same bug
      }
    }
    return metric.compute();
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    SegNet model = new SegNet();
    model.toDevice(device);
    Tensor[][] valBatches = new Tensor[3][];
    for (int i = 0; i < valBatches.length; i++) {
      valBatches[i] = new Tensor[] {Tensor.randn(Shape.of(2, 3, 6, 6)), Tensor.randint(0, 4, Shape.of(2, 6, 6))};
    }
    validate(model, valBatches, device);
  }
}
