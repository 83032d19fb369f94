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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The VAND 2025 challenge evaluation script: for each category it moves the submitted few-shot model
 * to the device, passes it the few-shot images ({@code model.setup}), runs it on the test set, packs
 * each output with the batch's ground truth into an anomalib {@code ImageBatch}, and updates two
 * {@code F1Max} metrics (image level: {@code pred_score} against {@code gt_label}; pixel level:
 * {@code anomaly_map} against {@code gt_mask}) that keep the fields of every batch and compute the
 * best F1 over thresholds at the end.
 *
 * <p>Source: https://github.com/cvpr-vand/challenge/pull/4 (commit 8cead7d, "move targets to device
 * in eval script")
 *
 * <p>Bug: {@code compute_category_metrics} builds the {@code ImageBatch} with the model's outputs,
 * which are on the device, and with {@code data.gt_label} and {@code data.gt_mask} straight from
 * the CPU data loader; the record carries both into the metric, where the predictions meet the
 * CPU labels. The fix moves every field of the {@code ImageBatch} to {@code device}.
 *
 * <p>Ported: the submission template's model returns zeros; a small few-shot model (a convolution
 * and a memory of few-shot patch features, nearest-neighbour distance as the anomaly map) stands in
 * for a participant's model. {@code F1Max} keeps the fields in lists and computes the curve over
 * the predicted scores as thresholds.
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class VandEvalImageBatchTargetsOnCpu {
  private VandEvalImageBatchTargetsOnCpu() {}

  /** anomalib's ImageBatch, with the fields the evaluation uses. */
  record ImageBatch(Tensor image, Tensor predScore, Tensor anomalyMap, Tensor gtLabel, Tensor gtMask) {}

  /** The model's output. */
  record InferenceBatch(Tensor predScore, Tensor anomalyMap) {}

  /** anomalib's F1Max over two fields of the batches it is updated with. */
  static final class F1Max {
    final String predField;
    final String targetField;
    final List<Tensor> preds = new ArrayList<>();
    final List<Tensor> targets = new ArrayList<>();
    boolean updateCalled;

    F1Max(String predField, String targetField) {
      this.predField = predField;
      this.targetField = targetField;
    }

    static Tensor field(ImageBatch batch, String name) {
      return switch (name) {
        case "pred_score" -> batch.predScore();
        case "anomaly_map" -> batch.anomalyMap();
        case "gt_label" -> batch.gtLabel();
        case "gt_mask" -> batch.gtMask();
        default -> throw new IllegalArgumentException(name);
      };
    }

    void update(ImageBatch batch) {
      preds.add(field(batch, predField).flatten());
      targets.add(field(batch, targetField).flatten());
      updateCalled = true;
    }

    Tensor compute() {
      Tensor pred = Tensor.cat(preds);
      Tensor target = Tensor.cat(targets).to(DType.FLOAT32);
      Tensor thresholds = pred.unsqueeze(1);
      Tensor predicted = pred.unsqueeze(0).ge(thresholds).to(DType.FLOAT32);
      Tensor tp = predicted.mul(target.unsqueeze(0)).sum(1); // same bug
      Tensor precision = tp.div(predicted.sum(1).clampMin(1e-10));
      Tensor recall = tp.div(target.sum().clampMin(1e-10));
      Tensor f1 = precision.mul(recall).mul(2.0).div(precision.add(recall).add(1e-10));
      return f1.max();
    }
  }

  /** A participant's few-shot model. */
  static final class FewShotModel extends Model {
    final Conv2d features = new Conv2d(3, 8, 3, 1, 1, true);
    @Buffer Tensor memoryBank = Tensor.zeros(1, 8);

    void setup(Map<String, Object> setupData) {
      Tensor shots = (Tensor) setupData.get("few_shot_samples");
      try (Autograd.Scope ignored = Autograd.noGrad()) {
        memoryBank = features.forward(shots).permute(0, 2, 3, 1).reshape(-1, 8);
      }
    }

    InferenceBatch forward(Tensor image) {
      Tensor f = features.forward(image).permute(0, 2, 3, 1);
      long n = f.size(0);
      long h = f.size(1);
      long w = f.size(2);
      Tensor flat = f.reshape(-1, 8);
      Tensor distances = flat.unsqueeze(1).sub(memoryBank.unsqueeze(0)).square().sum(2);
      Tensor anomalyMap = distances.min(1).values().sqrt().reshape(n, 1, h, w);
      Tensor predScore = anomalyMap.flatten(1).max(1).values();
      return new InferenceBatch(predScore, anomalyMap);
    }
  }

  static Map<String, Double> computeCategoryMetrics(TensorDataset train, TensorDataset test, FewShotModel model,
      int kShot, Device device) {
    model.toDevice(device);
    F1Max imageMetric = new F1Max("pred_score", "gt_label");
    F1Max pixelMetric = new F1Max("anomaly_map", "gt_mask");

    long[] idxs = new long[kShot];
    for (int i = 0; i < kShot; i++) {
      idxs[i] = i;
    }
    Tensor fewShot = train.getBatch(java.util.Arrays.stream(idxs).mapToInt(l -> (int) l).toArray()).inputs();
    model.setup(Map.of("few_shot_samples", fewShot.to(device), "dataset_category", "breakfast_box"));

    DataLoader testLoader = DataLoader.builder(test).batchSize(1).build();
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      for (Batch data : testLoader) {
        InferenceBatch output = model.forward(data.inputs().to(device));
        ImageBatch metricBatch = new ImageBatch(
            data.inputs(),
            output.predScore(),
            output.anomalyMap(),
            data.tensor(1), // bug: held-outside-models
            data.tensor(2)); // bug: held-outside-models
        imageMetric.update(metricBatch);
        pixelMetric.update(metricBatch);
      }
    }
    double imageScore = imageMetric.compute().item();
    double pixelScore = pixelMetric.updateCalled ? pixelMetric.compute().item() : Double.NaN;
    return Map.of("image_score", imageScore, "pixel_score", pixelScore);
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    TensorDataset train = new TensorDataset(Tensor.randn(Shape.of(4, 3, 8, 8)), Tensor.zeros(4),
        Tensor.zeros(Shape.of(4, 1, 8, 8)));
    Tensor labels = Tensor.of(new long[] {0, 1, 0, 1, 1, 0});
    Tensor masks = Tensor.rand(Shape.of(6, 1, 8, 8)).gt(0.8).logicalAnd(labels.eq(1).reshape(6, 1, 1, 1))
        .to(DType.INT64);
    TensorDataset test = new TensorDataset(Tensor.randn(Shape.of(6, 3, 8, 8)), labels, masks);
    FewShotModel model = new FewShotModel();
    model.eval();
    System.out.println(computeCategoryMetrics(train, test, model, 2, device));
  }
}
