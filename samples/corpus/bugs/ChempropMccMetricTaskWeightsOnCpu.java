package corpus.bugs;

import dev.ondevice.Autograd;
import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.annotations.Buffer;
import dev.ondevice.nn.BceWithLogitsLoss;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.nn.ReLU;
import dev.ondevice.nn.Reduction;
import dev.ondevice.nn.Sequential;
import dev.ondevice.optim.Adam;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * chemprop v2: loss functions and metrics are {@code LossFunction} modules that register {@code
 * task_weights} as a buffer; the MPNN registers its criterion as a submodule, while the validation
 * metrics such as {@code BinaryMCCMetric()} are kept in a plain list and called in {@code
 * validation_step} on the model's predictions.
 *
 * <p>Source: https://github.com/chemprop/chemprop/pull/973
 *
 * <p>Bug: on a GPU, {@code BinaryMCCMetric} fails at {@code L = L * self.task_weights} ("Expected all
 * tensors to be on the same device, but found at least two devices, cuda:0 and cpu!"): the metric
 * is not a submodule, so its {@code task_weights} stay on the CPU; fixed by moving them to {@code
 * preds.device}. ("It isn't a problem at L75 because loss functions are properly registered as
 * submodules.")
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class ChempropMccMetricTaskWeightsOnCpu {
  private ChempropMccMetricTaskWeightsOnCpu() {}

  /** chemprop/nn/metrics.py BinaryMCCMetric: a soft MCC per task, weighted by task. */
  static final class BinaryMccMetric extends Model {
    @Buffer Tensor taskWeights;

    BinaryMccMetric(int nTasks) {
      this.taskWeights = Tensor.ones(Shape.of(1, nTasks));
    }

    Tensor calcUnreducedLoss(Tensor preds, Tensor targets) {
      Tensor tp = targets.mul(preds).sum(0, true);
      Tensor fp = targets.rsub(1).mul(preds).sum(0, true);
      Tensor tn = targets.rsub(1).mul(preds.rsub(1)).sum(0, true);
      Tensor fn = targets.mul(preds.rsub(1)).sum(0, true);
      Tensor num = tp.mul(tn).sub(fp.mul(fn));
      Tensor den = tp.add(fp).mul(tp.add(fn)).mul(tn.add(fp)).mul(tn.add(fn)).add(1e-8).sqrt();
      return num.div(den);
    }

    Tensor forward(Tensor preds, Tensor targets) {
      preds = preds.sigmoid();
      Tensor l = calcUnreducedLoss(preds, targets);
      l = l.mul(taskWeights); // bug: held-outside-models
      return l.mean();
    }
  }

  /** chemprop/nn/loss.py BCELoss: registered on the model as its criterion. */
  static final class BceCriterion extends Model {
    @Buffer Tensor taskWeights;
    final BceWithLogitsLoss bce = new BceWithLogitsLoss(Reduction.NONE);

    BceCriterion(int nTasks) {
      this.taskWeights = Tensor.ones(Shape.of(1, nTasks));
    }

    Tensor forward(Tensor preds, Tensor targets) {
      return bce.forward(preds, targets).mul(taskWeights.view(1, -1)).mean();
    }
  }

  /** The metrics list the model keeps as a plain attribute. */
  static final class MetricList {
    final List<BinaryMccMetric> metrics;

    MetricList(List<BinaryMccMetric> metrics) {
      this.metrics = metrics;
    }
  }

  /** chemprop/models/model.py MPNN, with the message passing reduced to an MLP on fingerprints. */
  static final class Mpnn extends Model {
    final Sequential encoder = new Sequential(new Linear(32, 64), new ReLU());
    final Linear predictor = new Linear(64, 3);
    final BceCriterion criterion = new BceCriterion(3);
    MetricList metrics;

    Mpnn(List<BinaryMccMetric> metrics) {
      this.metrics = new MetricList(metrics);
    }

    Tensor forward(Tensor x) {
      return predictor.forward(encoder.forward(x));
    }

    Tensor trainingStep(Tensor x, Tensor targets) {
      return criterion.forward(forward(x), targets);
    }

    List<Tensor> validationStep(Tensor x, Tensor targets) {
      Tensor preds = forward(x);
      List<Tensor> values = new ArrayList<>();
      for (BinaryMccMetric metric : metrics.metrics) {
        values.add(metric.forward(preds, targets)); // same bug
      }
      return values;
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    Mpnn model = new Mpnn(List.of(new BinaryMccMetric(3)));
    model.toDevice(device);
    Adam optimizer = new Adam(model.parameters(), 1e-3);
    for (int step = 0; step < 2; step++) {
      Tensor x = Tensor.randn(16, 32, device);
      Tensor y = Tensor.rand(Shape.of(16, 3), device).gt(0.5).to(DType.FLOAT32);
      Tensor loss = model.trainingStep(x, y);
      optimizer.zeroGrad();
      loss.backward();
      optimizer.step();
    }
    model.eval();
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      Tensor xVal = Tensor.randn(16, 32, device);
      Tensor yVal = Tensor.rand(Shape.of(16, 3), device).gt(0.5).to(DType.FLOAT32);
      List<Tensor> values = model.validationStep(xVal, yVal);
      System.out.println(Arrays.toString(Tensor.stack(values).cpu().toFloatArray()));
    }
  }
}
