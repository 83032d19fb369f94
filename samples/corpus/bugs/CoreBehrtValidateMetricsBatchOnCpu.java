package corpus.bugs;

import dev.ondevice.Autograd;
import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.nn.BceWithLogitsLoss;
import dev.ondevice.nn.Embedding;
import dev.ondevice.nn.LayerNorm;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.optim.AdamW;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;

/**
 * CORE-BEHRT's {@code EHRTrainer} (src/trainer/trainer.py): batches are dicts of tensors ({@code
 * concept}, {@code segment}, {@code attention_mask}, {@code target}); {@code forward_pass} moves the
 * batch with {@code batch = self.to_device(batch)}, where {@code to_device} returns a new dict
 * {@code {key: value.to(self.device) ...}}, and calls the model; {@code validate} runs {@code
 * forward_pass} on each validation batch and then the configured metrics, {@code func(outputs,
 * batch)}, here {@code src.evaluation.metrics.binary_hit} for fine-tuning.
 *
 * <p>Source: https://github.com/mikkelfo/CORE-BEHRT/issues/1 ("main/tree: Batch on wrong device";
 * the code:
 * https://github.com/mikkelfo/CORE-BEHRT/blob/8bb5489001cf6ededf603c4049e5639da7bf333c/src/trainer/trainer.py)
 *
 * <p>Bug: {@code forward_pass} rebinds its own local {@code batch} to the moved copy, so the dict that
 * {@code validate} passes to the metrics still holds the CPU tensors, and {@code binary_hit} compares
 * the model's predictions on the GPU with {@code batch["target"]} on the CPU; the fix made {@code
 * to_device} move the batch in place ({@code batch[key] = value.to(self.device)}) and {@code
 * forward_pass} call it without reassigning.
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class CoreBehrtValidateMetricsBatchOnCpu {
  private CoreBehrtValidateMetricsBatchOnCpu() {}

  record ModelOutput(Tensor loss, Tensor logits) {}

  /** A BERT fine-tuning head over the EHR embeddings (concept, segment), reduced to one block. */
  static final class BertForFineTuning extends Model {
    final Embedding conceptEmbeddings = new Embedding(50, 16);
    final Embedding segmentEmbeddings = new Embedding(2, 16);
    final LayerNorm layerNorm = new LayerNorm(16);
    final Linear dense = new Linear(16, 16);
    final Linear classifier = new Linear(16, 1);
    final BceWithLogitsLoss lossFct = new BceWithLogitsLoss();

    ModelOutput forward(Tensor inputIds, Tensor attentionMask, Tensor tokenTypeIds, Tensor labels) {
      Tensor h = conceptEmbeddings.forward(inputIds).add(segmentEmbeddings.forward(tokenTypeIds));
      h = dense.forward(layerNorm.forward(h)).tanh();
      Tensor mask = attentionMask.unsqueeze(2);
      Tensor pooled = h.mul(mask).sum(1).div(mask.sum(1));
      Tensor logits = classifier.forward(pooled);
      Tensor loss = labels == null ? null : lossFct.forward(logits.view(-1), labels);
      return new ModelOutput(loss, logits);
    }
  }

  /** src/evaluation/metrics.py. */
  static final class Metrics {
    private Metrics() {}

    static double binaryHit(ModelOutput outputs, Map<String, Tensor> batch) {
      Tensor logits = outputs.logits();
      Tensor target = batch.get("target");
      Tensor probs = logits.sigmoid();
      Tensor predictions = probs.gt(0.5).to(DType.INT64).view(-1);
      return predictions.eq(target).to(DType.FLOAT32).mean().item(); // same bug
    }
  }

  static final class EhrTrainer {
    final Device device;
    final BertForFineTuning model;
    final List<Map<String, Tensor>> trainDataset;
    final List<Map<String, Tensor>> valDataset;
    final AdamW optimizer;
    final Map<String, BiFunction<ModelOutput, Map<String, Tensor>, Double>> metrics;

    EhrTrainer(BertForFineTuning model, List<Map<String, Tensor>> trainDataset, List<Map<String, Tensor>> valDataset,
        AdamW optimizer, Map<String, BiFunction<ModelOutput, Map<String, Tensor>, Double>> metrics, Device device) {
      this.device = device;
      this.model = model;
      model.toDevice(device);
      this.trainDataset = trainDataset;
      this.valDataset = valDataset;
      this.optimizer = optimizer;
      this.metrics = metrics;
    }

    void train(int epochs) {
      for (int epoch = 0; epoch < epochs; epoch++) {
        model.train();
        double stepLoss = 0;
        for (Map<String, Tensor> batch : trainDataset) {
          stepLoss += trainStep(batch).item(); // costs time: HostSyncInLoop
          optimizer.step();
          optimizer.zeroGrad();
        }
        Object[] val = validate();
        System.out.println("Epoch " + epoch + " train loss: " + stepLoss / trainDataset.size() + " val loss: " + val[0] + " metrics: " + val[1]);
      }
    }

    Tensor trainStep(Map<String, Tensor> batch) {
      ModelOutput outputs = forwardPass(batch);
      backwardPass(outputs.loss());
      return outputs.loss();
    }

    ModelOutput forwardPass(Map<String, Tensor> batch) {
      batch = toDevice(batch); // bug: held-outside-models
      return model.forward(batch.get("concept"), batch.get("attention_mask"), batch.get("segment"),
          batch.containsKey("target") ? batch.get("target") : null);
    }

    void backwardPass(Tensor loss) {
      loss.backward();
    }

    Object[] validate() {
      model.eval();
      double valLoss = 0;
      Map<String, List<Double>> metricValues = new LinkedHashMap<>();
      metrics.keySet().forEach(name -> metricValues.put(name, new ArrayList<>()));
      try (Autograd.Scope ignored = Autograd.noGrad()) {
        for (Map<String, Tensor> batch : valDataset) {
          ModelOutput outputs = forwardPass(batch);
          valLoss += outputs.loss().item(); // costs time: HostSyncInLoop
          for (Map.Entry<String, BiFunction<ModelOutput, Map<String, Tensor>, Double>> m : metrics.entrySet()) {
            metricValues.get(m.getKey()).add(m.getValue().apply(outputs, batch)); // same bug
          }
        }
      }
      model.train();
      Map<String, Double> averaged = new LinkedHashMap<>();
      metricValues.forEach((name, values) -> averaged.put(name,
          values.stream().mapToDouble(Double::doubleValue).sum() / values.size()));
      return new Object[] {valLoss / valDataset.size(), averaged};
    }

    Map<String, Tensor> toDevice(Map<String, Tensor> batch) {
      Map<String, Tensor> moved = new LinkedHashMap<>();
      batch.forEach((key, value) -> moved.put(key, value.to(device)));
      return moved;
    }
  }

  /** dynamic_padding's output: a dict of CPU tensors. */
  static Map<String, Tensor> batch(int size, int length) {
    Map<String, Tensor> b = new LinkedHashMap<>();
    b.put("concept", Tensor.randint(0, 50, Shape.of(size, length)));
    b.put("segment", Tensor.randint(0, 2, Shape.of(size, length)));
    b.put("attention_mask", Tensor.ones(size, length));
    b.put("target", Tensor.randint(0, 2, Shape.of(size)).to(DType.FLOAT32));
    return b;
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    List<Map<String, Tensor>> train = new ArrayList<>();
    List<Map<String, Tensor>> val = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      train.add(batch(8, 10));
      val.add(batch(8, 10));
    }
    BertForFineTuning model = new BertForFineTuning();
    AdamW optimizer = new AdamW(model.parameters(), 1e-3);
    Map<String, BiFunction<ModelOutput, Map<String, Tensor>, Double>> metrics = new LinkedHashMap<>();
    metrics.put("accuracy", Metrics::binaryHit);
    EhrTrainer trainer = new EhrTrainer(model, train, val, optimizer, metrics, device);
    trainer.train(1);
  }
}
