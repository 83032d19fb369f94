package corpus.bugs;

import dev.ondevice.Autograd;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.annotations.Buffer;
import dev.ondevice.nn.BceWithLogitsLoss;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.optim.Sgd;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * TorchRec's CPU-offloaded metrics: a CPUOffloadedRecMetricModule keeps the metric state on the
 * CPU and updates it on a worker thread from predictions copied to the host; the metric module is
 * a submodule of the training model.
 *
 * <p>Source: https://github.com/meta-pytorch/torchrec/pull/4230
 *
 * <p>Bug: the parent module's {@code .to(cuda)} recursed into the CPU-offloaded metric module and
 * moved its metric buffers to the GPU; the next worker-thread {@code state += state_value}, with
 * {@code state_value} computed on the CPU, raised a device mismatch.
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class TorchrecCpuOffloadedMetricMovedToGpu {
  private TorchrecCpuOffloadedMetricMovedToGpu() {}

  /** A NE-like metric: sums of weighted cross entropy and of weights. */
  static final class RecMetric extends Model {
    @Buffer Tensor crossEntropySum = Tensor.zeros(1, Device.cpu());
    @Buffer Tensor weightedNumSamples = Tensor.zeros(1, Device.cpu());

    void update(Tensor predictions, Tensor labels, Tensor weights) {
      Tensor p = predictions.clamp(1e-6, 1 - 1e-6);
      Tensor ce = labels.mul(p.log()).add(labels.rsub(1).mul(p.rsub(1).log())).neg();
      Tensor stateValue = ce.mul(weights).sum().reshape(1);
      crossEntropySum.addi(stateValue);
      weightedNumSamples.addi(weights.sum().reshape(1));
    }
  }

  /** Updates its metrics on a CPU worker thread, off the training loop. */
  static final class CpuOffloadedRecMetricModule extends Model {
    final RecMetric recMetrics = new RecMetric();
    final ExecutorService worker = Executors.newSingleThreadExecutor();

    void update(Tensor predictions, Tensor labels, Tensor weights) throws Exception {
      Tensor p = predictions.detach().cpu();
      Tensor l = labels.cpu();
      Tensor w = weights.cpu();
      worker.submit(() -> {
        try (Autograd.Scope ignored = Autograd.noGrad()) {
          recMetrics.update(p, l, w); // same bug
        }
        return null;
      }).get();
    }
  }

  static final class RecModel extends Model {
    final Linear dense = new Linear(8, 16);
    final Linear over = new Linear(16, 1);
    final CpuOffloadedRecMetricModule metricModule = new CpuOffloadedRecMetricModule();

    Tensor forward(Tensor features) {
      return over.forward(dense.forward(features).relu()).squeeze(1);
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    RecModel model = new RecModel();
    model.toDevice(device); // bug: across-methods
    Sgd optimizer = new Sgd(model.parameters(), 0.05);
    try {
      for (int step = 0; step < 2; step++) {
        Tensor features = Tensor.randn(8, 8, device);
        Tensor labels = Tensor.bernoulli(0.5, Shape.of(8), device);
        Tensor logits = model.forward(features);
        optimizer.zeroGrad();
        new BceWithLogitsLoss().forward(logits, labels).backward();
        optimizer.step();
        model.metricModule.update(logits.sigmoid(), labels, Tensor.onesLike(labels));
      }
    } finally {
      model.metricModule.worker.shutdown();
    }
  }
}
