package corpus.bugs;

import dev.ondevice.Autograd;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.data.Batch;
import dev.ondevice.data.DataLoader;
import dev.ondevice.data.TensorDataset;
import dev.ondevice.nn.CrossEntropyLoss;
import dev.ondevice.nn.Embedding;
import dev.ondevice.nn.Model;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * OpenBookQA's {@code evaluate_predictions_qa_mc} command: {@code evaluate_from_args} loads the
 * archived multiple-choice model on {@code --cuda_device} and calls {@code evaluate(model,
 * instances, data_iterator, output_file, eval_type)}, which runs {@code model(**batch)} on every
 * batch (a dict of tensors) and shows the running metrics.
 *
 * <p>Source: https://github.com/allenai/OpenBookQA/pull/5
 *
 * <p>Bug: {@code evaluate} never moves the batch ("the model is set up for Cuda but not the input
 * tensors"); the fix adds {@code batch = move_to_device(batch, cuda_device)} and passes the device
 * to {@code evaluate}.
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class OpenBookQaEvaluateBatch {
  private OpenBookQaEvaluateBatch() {}

  /** allennlp's {@code CategoricalAccuracy}, a plain metric object owned by the model. */
  static final class CategoricalAccuracy {
    Tensor correctCount;
    double totalCount;

    void update(Tensor logits, Tensor label) {
      Tensor correct = logits.argmax(-1).eq(label).sum();
      correctCount = correctCount == null ? correct : correctCount.add(correct);
      totalCount += label.size(0);
    }

    double getMetric(boolean reset) {
      double accuracy = correctCount == null ? 0 : correctCount.item() / totalCount; // costs time: HostSyncInLoop
      if (reset) {
        correctCount = null;
        totalCount = 0;
      }
      return accuracy;
    }
  }

  /** A bag-of-words multiple-choice QA model: scores each choice against the question. */
  static final class QaMultiChoice extends Model {
    final Embedding embedder = new Embedding(40, 8);
    final CategoricalAccuracy accuracy = new CategoricalAccuracy();

    Map<String, Tensor> forward(Tensor question, Tensor choicesList, Tensor label) {
      Tensor q = embedder.forward(question).mean(1);                  // [B, d]
      Tensor c = embedder.forward(choicesList).mean(2);               // [B, C, d]
      Tensor labelLogits = c.matmul(q.unsqueeze(-1)).squeeze(-1);     // [B, C]
      Map<String, Tensor> output = new LinkedHashMap<>();
      output.put("label_logits", labelLogits);
      output.put("loss", new CrossEntropyLoss().forward(labelLogits, label));
      accuracy.update(labelLogits, label);
      return output;
    }

    Map<String, Double> getMetrics(boolean reset) {
      Map<String, Double> metrics = new LinkedHashMap<>();
      metrics.put("accuracy", accuracy.getMetric(reset));
      return metrics;
    }
  }

  static Map<String, Double> evaluate(QaMultiChoice model, DataLoader dataIterator) {
    model.eval();
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      for (Batch b : dataIterator) {
        Map<String, Tensor> batch = new LinkedHashMap<>();
        batch.put("question", b.tensor(0));
        batch.put("choices_list", b.tensor(1));
        batch.put("label", b.tensor(2));
        Map<String, Tensor> modelOutput = model.forward(batch.get("question"), batch.get("choices_list"), batch.get("label")); // bug: across-methods
        Map<String, Double> metrics = model.getMetrics(false);
        System.out.println(metrics + " ||");
      }
    }
    return model.getMetrics(true);
  }

  /** {@code evaluate_from_args}: load the archive on the device, read the data, evaluate. */
  public static void run(Device device) throws Exception {
    QaMultiChoice model = new QaMultiChoice();
    model.toDevice(device);
    TensorDataset dataset = new TensorDataset(Tensor.randint(0, 40, Shape.of(8, 5)),
        Tensor.randint(0, 40, Shape.of(8, 4, 3)), Tensor.randint(0, 4, Shape.of(8)));
    Map<String, Double> metrics = evaluate(model, DataLoader.builder(dataset).batchSize(4).build());
    System.out.println("Final metrics: " + metrics);
  }
}
