package corpus.correct;

import dev.ondevice.Autograd;
import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.data.Batch;
import dev.ondevice.data.DataLoader;
import dev.ondevice.data.TensorDataset;
import dev.ondevice.nn.CrossEntropyLoss;
import dev.ondevice.nn.Embedding;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.optim.AdamW;
import dev.ondevice.optim.LambdaLr;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The Hugging Face course's "full training loop": batches are dicts of tensors moved with
 * {@code batch = {k: v.to(device) for k, v in batch.items()}}, the model computes its own loss from
 * {@code labels}, a linear schedule is stepped per batch, and the evaluation loop hands each batch's
 * predictions and labels to {@code metric.add_batch}.
 *
 * <p>Source: https://github.com/huggingface/course/blob/068d132ce889a883e50a7cdf7431d52527622079/chapters/en/chapter3/4.mdx
 *
 * <p>Ported: the device setup, the training loop and the evaluation loop as written, AdamW and
 * get_scheduler("linear") (LambdaLR with the same factor). {@code model(**batch)} becomes a call
 * passing the dict's entries by name. Left out: datasets, the tokenizer and DataCollatorWithPadding
 * (a loader of random padded ids whose batches are turned into the collator's dict), BERT (a small
 * embedding classifier with the same inputs and a loss from labels), tqdm, Accelerate. evaluate's
 * metric is a small accuracy metric that copies each batch to the host, as add_batch does.
 *
 * <p>Outcome: completes
 */
public final class HfCourseFullTrainingLoop {
  private HfCourseFullTrainingLoop() {}

  record SequenceClassifierOutput(Tensor loss, Tensor logits) {}

  static final class TinyForSequenceClassification extends Model {
    final Embedding wordEmbeddings = new Embedding(100, 16);
    final Embedding tokenTypeEmbeddings = new Embedding(2, 16);
    final Linear classifier = new Linear(16, 2);

    SequenceClassifierOutput forward(Tensor inputIds, Tensor attentionMask, Tensor tokenTypeIds, Tensor labels) {
      Tensor h = wordEmbeddings.forward(inputIds).add(tokenTypeEmbeddings.forward(tokenTypeIds));
      Tensor m = attentionMask.unsqueeze(2).to(DType.FLOAT32);
      Tensor pooled = h.mul(m).sum(1).div(m.sum(1));
      Tensor logits = classifier.forward(pooled);
      Tensor loss = labels == null ? null : new CrossEntropyLoss().forward(logits, labels);
      return new SequenceClassifierOutput(loss, logits);
    }
  }

  /** What DataCollatorWithPadding yields: a dict of CPU tensors. */
  static Map<String, Tensor> collate(Batch b) {
    Map<String, Tensor> batch = new LinkedHashMap<>();
    batch.put("attention_mask", b.tensor(1));
    batch.put("input_ids", b.tensor(0));
    batch.put("labels", b.tensor(2));
    batch.put("token_type_ids", b.tensor(3));
    return batch;
  }

  /** An accuracy metric that, as evaluate's add_batch, keeps each batch on the host. */
  static final class Metric {
    final List<long[]> predictions = new ArrayList<>();
    final List<long[]> references = new ArrayList<>();

    void addBatch(Tensor predictions, Tensor references) {
      this.predictions.add(predictions.cpu().toLongArray()); // costs time: HostSyncInLoop
      this.references.add(references.cpu().toLongArray()); // costs time: HostSyncInLoop
    }

    Map<String, Double> compute() {
      long right = 0;
      long total = 0;
      for (int i = 0; i < predictions.size(); i++) {
        for (int j = 0; j < predictions.get(i).length; j++) {
          right += predictions.get(i)[j] == references.get(i)[j] ? 1 : 0;
          total++;
        }
      }
      return Map.of("accuracy", (double) right / total);
    }
  }

  static DataLoader loader(int n, boolean shuffle) {
    Tensor ids = Tensor.randint(1, 100, Shape.of(n, 12));
    Tensor mask = Tensor.arange(12).unsqueeze(0).lt(Tensor.randint(4, 13, Shape.of(n, 1))).to(DType.INT64);
    DataLoader.Builder b = DataLoader.builder(new TensorDataset(ids.mul(mask), mask,
        Tensor.randint(0, 2, Shape.of(n)), Tensor.zeros(Shape.of(n, 12), DType.INT64, Device.cpu()))).batchSize(8);
    return (shuffle ? b.shuffle(0) : b).build();
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    DataLoader trainDataloader = loader(32, true);
    DataLoader evalDataloader = loader(16, false);
    TinyForSequenceClassification model = new TinyForSequenceClassification();
    AdamW optimizer = new AdamW(model.parameters(), 5e-5);
    int numEpochs = 3;
    int numTrainingSteps = numEpochs * trainDataloader.numBatches();
    LambdaLr lrScheduler = new LambdaLr(optimizer,
        step -> Math.max(0.0, (double) (numTrainingSteps - step) / Math.max(1, numTrainingSteps)));

    model.toDevice(device);

    model.train();
    for (int epoch = 0; epoch < numEpochs; epoch++) {
      for (Batch b : trainDataloader) {
        Map<String, Tensor> batch = collate(b);
        Map<String, Tensor> moved = new LinkedHashMap<>();
        batch.forEach((k, v) -> moved.put(k, v.to(device)));
        batch = moved;
        SequenceClassifierOutput outputs = model.forward(batch.get("input_ids"), batch.get("attention_mask"),
            batch.get("token_type_ids"), batch.get("labels"));
        Tensor loss = outputs.loss();
        loss.backward();

        optimizer.step();
        lrScheduler.step();
        optimizer.zeroGrad();
      }
    }

    Metric metric = new Metric();
    model.eval();
    for (Batch b : evalDataloader) {
      Map<String, Tensor> batch = collate(b);
      Map<String, Tensor> moved = new LinkedHashMap<>();
      batch.forEach((k, v) -> moved.put(k, v.to(device)));
      batch = moved;
      SequenceClassifierOutput outputs;
      try (Autograd.Scope ignored = Autograd.noGrad()) {
        outputs = model.forward(batch.get("input_ids"), batch.get("attention_mask"), batch.get("token_type_ids"),
            batch.get("labels"));
      }
      Tensor logits = outputs.logits();
      Tensor predictions = logits.argmax(-1);
      metric.addBatch(predictions, batch.get("labels")); // costs time: HostSyncInLoop
    }
    System.out.println(metric.compute());
  }
}
