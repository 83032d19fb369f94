package corpus.bugs;

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
import dev.ondevice.nn.ReLU;
import dev.ondevice.nn.Sequential;
import dev.ondevice.optim.Adam;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * lightning-trainable's {@code Trainable} (a LightningModule): subclasses implement {@code
 * compute_metrics(batch, batch_idx)}, which {@code training_step} calls on batches the Lightning
 * trainer has moved to the module's device; the {@code on_train_start} hook computes the metrics
 * of one test batch to log them with the hyperparameters.
 *
 * <p>Source: https://github.com/LarsKue/lightning-trainable/issues/16
 *
 * <p>Bug: {@code on_train_start} takes {@code test_batch = next(iter(validation_loader))} straight
 * from the data loader and calls {@code self.compute_metrics(test_batch, 0)} without {@code
 * self.transfer_batch_to_device(test_batch, self.device, 0)} (fixed in commit 89e3647).
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class LightningTrainableOnTrainStartBatch {
  private LightningTrainableOnTrainStartBatch() {}

  static class Trainable extends Model {
    Map<String, Tensor> computeMetrics(List<Tensor> batch, int batchIdx) {
      throw new UnsupportedOperationException("NotImplementedError");
    }

    Tensor trainingStep(List<Tensor> batch, int batchIdx) {
      return computeMetrics(batch, batchIdx).get("loss");
    }

    void onTrainStart(DataLoader validationLoader) {
      List<Tensor> testBatch = validationLoader.iterator().next().tensors();
      Map<String, Tensor> metrics = computeMetrics(testBatch, 0); // bug: across-methods
      Map<String, Double> logged = new LinkedHashMap<>();
      metrics.forEach((key, value) -> logged.put("validation/" + key, value.item()));
      System.out.println("log_hyperparams " + logged);
    }
  }

  /** The README's {@code MyClassifier}. */
  static final class MyClassifier extends Trainable {
    final Sequential network = new Sequential(new Linear(16, 32), new ReLU(), new Linear(32, 10));

    static Tensor accuracy(Tensor yhat, Tensor y) {
      return yhat.argmax(-1).eq(y).to(DType.FLOAT32).mean();
    }

    @Override
    Map<String, Tensor> computeMetrics(List<Tensor> batch, int batchIdx) {
      Tensor x = batch.get(0);
      Tensor y = batch.get(1);
      Tensor yhat = network.forward(x);
      Tensor crossEntropy = new CrossEntropyLoss().forward(yhat, y);
      Map<String, Tensor> metrics = new LinkedHashMap<>();
      metrics.put("loss", crossEntropy);
      metrics.put("cross_entropy", crossEntropy);
      metrics.put("top1_accuracy", accuracy(yhat, y));
      return metrics;
    }
  }

  /** Lightning's fit loop, reduced: move the module, run the hook, train on batches moved to the device. */
  static void fit(Trainable module, DataLoader trainLoader, DataLoader valLoader, Device device) {
    module.toDevice(device);
    Adam optimizer = new Adam(module.parameters(), 1e-3);
    module.train();
    module.onTrainStart(valLoader);
    int batchIdx = 0;
    for (Batch b : trainLoader) {
      List<Tensor> batch = new ArrayList<>();
      for (Tensor t : b.tensors()) {
        batch.add(t.to(device));
      }
      Tensor loss = module.trainingStep(batch, batchIdx++);
      optimizer.zeroGrad();
      loss.backward();
      optimizer.step();
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    TensorDataset train = new TensorDataset(Tensor.randn(16, 16), Tensor.randint(0, 10, Shape.of(16)));
    TensorDataset val = new TensorDataset(Tensor.randn(8, 16), Tensor.randint(0, 10, Shape.of(8)));
    fit(new MyClassifier(), DataLoader.builder(train).batchSize(4).shuffle(0).build(),
        DataLoader.builder(val).batchSize(4).build(), device);
  }
}
