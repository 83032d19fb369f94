package corpus.bugs;

import dev.ondevice.Autograd;
import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.data.Batch;
import dev.ondevice.data.DataLoader;
import dev.ondevice.data.TensorDataset;
import dev.ondevice.nn.CrossEntropyLoss;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * code2seq's {@code Code2Class} LightningModule: each validation step returns its loss and a
 * confusion matrix in a dict; {@code _general_epoch_end(outputs, loss_key, group)} sums the
 * matrices of the epoch's outputs into one and logs the accuracy.
 *
 * <p>Source: https://github.com/JetBrains-Research/code2seq/pull/52
 *
 * <p>Bug: {@code accumulated_conf_matrix = torch.zeros(self.num_classes, self.num_classes)} is made
 * on the CPU, and {@code accumulated_conf_matrix[:k, :k] += _conf_matrix} adds the per-step
 * matrices, which are on the GPU; fixed with {@code device=self.device} (commit 9e16999).
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class Code2seqConfusionMatrixEpochEnd {
  private Code2seqConfusionMatrixEpochEnd() {}

  /** pytorch_lightning.metrics.functional.confusion_matrix: rows are targets, columns predictions. */
  static Tensor confusionMatrix(Tensor pred, Tensor target) {
    int numClasses = (int) Math.max(pred.max().itemAsLong(), target.max().itemAsLong()) + 1; // costs time: HostSyncInLoop
    Tensor t = Tensor.oneHot(target, numClasses).to(DType.FLOAT32);
    Tensor p = Tensor.oneHot(pred, numClasses).to(DType.FLOAT32);
    return t.t().matmul(p);
  }

  static final class Code2Class extends Model {
    final Linear encoder = new Linear(12, 16);
    final Linear classifier = new Linear(16, 5);
    final int numClasses = 5;

    Tensor forward(Tensor context) {
      return classifier.forward(encoder.forward(context).relu());
    }

    Map<String, Object> generalEpochEnd(List<Map<String, Tensor>> outputs, String lossKey, String group) {
      List<Tensor> stepLosses = new ArrayList<>();
      for (Map<String, Tensor> out : outputs) {
        stepLosses.add(out.get(lossKey));
      }
      Map<String, Tensor> logs = new LinkedHashMap<>();
      logs.put(group + "/loss", Tensor.stack(stepLosses).mean());
      Tensor accumulatedConfMatrix = Tensor.zeros(numClasses, numClasses); // bug: held-outside-models
      for (Map<String, Tensor> out : outputs) {
        Tensor confMatrix = out.get(group + "/confusion_matrix");
        long maxClassIndex = confMatrix.size(0);
        accumulatedConfMatrix.slice(0, 0, maxClassIndex).slice(1, 0, maxClassIndex).addi(confMatrix);
      }
      Tensor diagonal = accumulatedConfMatrix.mul(Tensor.eye(numClasses, accumulatedConfMatrix.device())).sum();
      logs.put(group + "/accuracy", diagonal.div(accumulatedConfMatrix.sum()));
      Map<String, Object> result = new LinkedHashMap<>();
      result.put("val_loss", logs.get(group + "/loss"));
      result.put("log", logs);
      return result;
    }

    Map<String, Tensor> validationStep(Tensor context, Tensor labels) {
      Tensor logits = forward(context);
      Tensor loss = new CrossEntropyLoss().forward(logits, labels);
      Tensor confMatrix;
      try (Autograd.Scope ignored = Autograd.noGrad()) {
        confMatrix = confusionMatrix(logits.argmax(-1), labels);
      }
      Map<String, Tensor> out = new LinkedHashMap<>();
      out.put("val_loss", loss);
      out.put("val/confusion_matrix", confMatrix);
      return out;
    }

    Map<String, Object> validationEpochEnd(List<Map<String, Tensor>> outputs) {
      return generalEpochEnd(outputs, "val_loss", "val");
    }
  }

  /** Runs the program with small random data on {@code device}: Lightning's validation loop. */
  public static void run(Device device) throws Exception {
    Code2Class model = new Code2Class();
    model.toDevice(device);
    TensorDataset val = new TensorDataset(Tensor.randn(12, 12), Tensor.randint(0, 5, Shape.of(12)));
    List<Map<String, Tensor>> outputs = new ArrayList<>();
    model.eval();
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      for (Batch b : DataLoader.builder(val).batchSize(4).build()) {
        outputs.add(model.validationStep(b.inputs().to(device), b.targets().to(device)));
      }
    }
    model.validationEpochEnd(outputs);
  }
}
