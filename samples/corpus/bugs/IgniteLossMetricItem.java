package corpus.bugs;

import dev.ondevice.Autograd;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.data.Batch;
import dev.ondevice.data.DataLoader;
import dev.ondevice.data.TensorDataset;
import dev.ondevice.nn.CrossEntropyLoss;
import dev.ondevice.nn.Flatten;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Loss;
import dev.ondevice.nn.ReLU;
import dev.ondevice.nn.Sequential;
import java.util.ArrayList;
import java.util.List;

/**
 * ignite's {@code create_supervised_evaluator(model, metrics={'loss': Loss(loss_fn)}, device)}:
 * the engine runs {@code _inference} on each batch and then calls {@code update(output)} of every
 * attached metric; {@code Loss.update} sums the batch losses for {@code compute()}.
 *
 * <p>Source: https://github.com/pytorch/ignite/issues/240
 *
 * <p>Bug: {@code Loss.update} does {@code self._sum += average_loss.item() * N} on every iteration:
 * profiling showed about 20% of the run in these {@code .item()} copies ("metrics are copied from
 * cuda to cpu every iteration"); suggested fix: accumulate on the GPU and read in {@code compute}.
 *
 * <p>Outcome: completes (costs time)
 */
public final class IgniteLossMetricItem {
  private IgniteLossMetricItem() {}

  /** ignite.metrics.Loss (0.1). */
  static final class LossMetric {
    final Loss lossFn;
    double sum;
    long numExamples;

    LossMetric(Loss lossFn) {
      this.lossFn = lossFn;
    }

    void reset() {
      sum = 0;
      numExamples = 0;
    }

    void update(Tensor[] output) {
      Tensor yPred = output[0];
      Tensor y = output[1];
      Tensor averageLoss = lossFn.forward(yPred, y);
      long n = y.size(0);
      sum += averageLoss.item() * n; // bug: across-methods
      numExamples += n;
    }

    double compute() {
      return sum / numExamples;
    }
  }

  /** The evaluator engine: the process function, then every metric's update, per iteration. */
  static final class Evaluator {
    final Sequential model;
    final Device device;
    final List<LossMetric> metrics = new ArrayList<>();

    Evaluator(Sequential model, Device device) {
      this.model = model;
      this.device = device;
    }

    Tensor[] inference(Batch batch) {
      model.eval();
      try (Autograd.Scope ignored = Autograd.noGrad()) {
        Tensor x = batch.inputs().to(device);
        Tensor y = batch.targets().to(device);
        return new Tensor[] {model.forward(x), y};
      }
    }

    void run(DataLoader loader) {
      for (LossMetric m : metrics) {
        m.reset();
      }
      for (Batch batch : loader) {
        Tensor[] output = inference(batch);
        for (LossMetric m : metrics) {
          m.update(output);
        }
      }
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    Sequential model = new Sequential(new Flatten(), new Linear(16, 32), new ReLU(), new Linear(32, 10));
    model.toDevice(device);
    Evaluator evaluator = new Evaluator(model, device);
    LossMetric loss = new LossMetric(new CrossEntropyLoss());
    evaluator.metrics.add(loss);
    TensorDataset val = new TensorDataset(Tensor.randn(16, 1, 4, 4), Tensor.randint(0, 10, Shape.of(16)));
    evaluator.run(DataLoader.builder(val).batchSize(4).build());
    System.out.println("val loss " + loss.compute());
  }
}
