package corpus.correct;

import dev.ondevice.Autograd;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.data.Batch;
import dev.ondevice.data.DataLoader;
import dev.ondevice.data.TensorDataset;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.MseLoss;
import dev.ondevice.nn.ReLU;
import dev.ondevice.nn.Sequential;
import dev.ondevice.optim.Sgd;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Lightning's EarlyStopping callback: once per epoch it reads the epoch's mean validation loss from
 * the trainer's callback metrics, checks it is finite, and compares it with {@code best_score}, a
 * CPU tensor created in the constructor, moved to the metric's device for the comparison
 * ({@code self.best_score.to(current.device)}), then replaced by the device tensor.
 *
 * <p>Source: https://github.com/Lightning-AI/pytorch-lightning/blob/02095be2cc2bb0714061fbda020823ee8ceff8d6/src/lightning/pytorch/callbacks/early_stopping.py
 *
 * <p>Ported: __init__, _validate_condition_metric, monitor_op, on_train_epoch_end,
 * _run_early_stopping_check, _evaluate_stopping_criteria and _improvement_message as written.
 * Lightning's Trainer is not in the API: a minimal fit loop stands in for it, accumulating the
 * logged val_loss on the device into its epoch mean (as Lightning's ResultCollection does) and
 * calling the callback at the end of each training epoch. The API has no isfinite: {@code |x| < inf}
 * stands in (false for NaN too). Left out: state_dict/load_state_dict, DDP reduction, rank-zero
 * logging, the setup hook (check_on_train_epoch_end is set as setup would set it).
 *
 * <p>Outcome: completes
 */
public final class LightningEarlyStopping {
  private LightningEarlyStopping() {}

  record StopDecision(boolean shouldStop, String reason) {}

  static final class EarlyStopping {
    final String monitor;
    double minDelta;
    final int patience;
    final String mode;
    final boolean strict = true;
    final boolean checkFinite = true;
    final Double stoppingThreshold = null;
    final Double divergenceThreshold = null;
    int waitCount = 0;
    int stoppedEpoch = 0;
    boolean checkOnTrainEpochEnd = true;
    Tensor bestScore;

    EarlyStopping(String monitor, double minDelta, int patience, String mode) {
      this.monitor = monitor;
      this.minDelta = minDelta;
      this.patience = patience;
      this.mode = mode;
      this.minDelta *= mode.equals("max") ? 1 : -1;
      Tensor torchInf = Tensor.scalar(Double.POSITIVE_INFINITY);
      bestScore = mode.equals("min") ? torchInf : torchInf.neg();
    }

    Tensor monitorOp(Tensor a, Tensor b) {
      return mode.equals("min") ? a.lt(b) : a.gt(b);
    }

    boolean validateConditionMetric(Map<String, Tensor> logs) {
      if (logs.get(monitor) == null) {
        if (strict) {
          throw new IllegalStateException("Early stopping conditioned on metric `" + monitor + "` which is not available.");
        }
        return false;
      }
      return true;
    }

    void onTrainEpochEnd(Trainer trainer) {
      if (!checkOnTrainEpochEnd) {
        return;
      }
      runEarlyStoppingCheck(trainer);
    }

    void runEarlyStoppingCheck(Trainer trainer) {
      Map<String, Tensor> logs = trainer.callbackMetrics;
      if (!validateConditionMetric(logs)) {
        return;
      }
      Tensor current = logs.get(monitor).squeeze();
      StopDecision decision = evaluateStoppingCriteria(current);
      boolean shouldStop = decision.shouldStop();
      String reason = decision.reason();
      trainer.shouldStop = trainer.shouldStop || shouldStop;
      if (shouldStop) {
        stoppedEpoch = trainer.currentEpoch;
      }
      if (reason != null) {
        System.out.println(reason);
      }
    }

    StopDecision evaluateStoppingCriteria(Tensor current) {
      boolean shouldStop = false;
      String reason = null;
      if (checkFinite && !current.abs().lt(Double.POSITIVE_INFINITY).itemAsBoolean()) {
        shouldStop = true;
        reason = "Monitored metric " + monitor + " = " + current + " is not finite. Signaling Trainer to stop.";
      } else if (stoppingThreshold != null && monitorOp(current, Tensor.scalar(stoppingThreshold)).itemAsBoolean()) {
        shouldStop = true;
        reason = "Stopping threshold reached. Signaling Trainer to stop.";
      } else if (divergenceThreshold != null
          && monitorOp(current.neg(), Tensor.scalar(-divergenceThreshold)).itemAsBoolean()) {
        shouldStop = true;
        reason = "Divergence threshold reached. Signaling Trainer to stop.";
      } else if (monitorOp(current.sub(minDelta), bestScore.to(current.device())).itemAsBoolean()) {
        shouldStop = false;
        reason = improvementMessage(current);
        bestScore = current;
        waitCount = 0;
      } else {
        waitCount += 1;
        if (waitCount >= patience) {
          shouldStop = true;
          reason = String.format("Monitored metric %s did not improve in the last %d records. Best score: %.3f. "
              + "Signaling Trainer to stop.", monitor, waitCount, bestScore.item());
        }
      }
      return new StopDecision(shouldStop, reason);
    }

    String improvementMessage(Tensor current) {
      if (bestScore.abs().lt(Double.POSITIVE_INFINITY).itemAsBoolean()) {
        return String.format("Metric %s improved by %.3f >= min_delta = %s. New best score: %.3f", monitor,
            bestScore.sub(current).abs().item(), Math.abs(minDelta), current.item());
      }
      return String.format("Metric %s improved. New best score: %.3f", monitor, current.item());
    }
  }

  /** A minimal stand-in for Lightning's fit loop with one callback. */
  static final class Trainer {
    final Map<String, Tensor> callbackMetrics = new LinkedHashMap<>();
    boolean shouldStop;
    int currentEpoch;

    void fit(Sequential model, DataLoader train, DataLoader val, Device device, EarlyStopping callback, int maxEpochs) {
      model.toDevice(device);
      Sgd optimizer = new Sgd(model.parameters(), 0.05);
      MseLoss loss = new MseLoss();
      for (currentEpoch = 0; currentEpoch < maxEpochs && !shouldStop; currentEpoch++) {
        model.train();
        for (Batch b : train) {
          Tensor l = loss.forward(model.forward(b.inputs().to(device)), b.targets().to(device));
          optimizer.zeroGrad();
          l.backward();
          optimizer.step();
        }
        model.eval();
        Tensor sum = Tensor.zeros(Shape.scalar(), device);
        long count = 0;
        try (Autograd.Scope ignored = Autograd.noGrad()) {
          for (Batch b : val) {
            Tensor valLoss = loss.forward(model.forward(b.inputs().to(device)), b.targets().to(device));
            sum = sum.add(valLoss.mul(b.size()));
            count += b.size();
          }
        }
        callbackMetrics.put("val_loss", sum.div((double) count));
        callback.onTrainEpochEnd(this);
      }
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    Tensor x = Tensor.randn(Shape.of(48, 6));
    Tensor y = x.sum(1, true).add(Tensor.randn(Shape.of(48, 1)).mul(0.5));
    DataLoader train = DataLoader.builder(new TensorDataset(x.slice(0, 0, 32), y.slice(0, 0, 32))).batchSize(8).build();
    DataLoader val = DataLoader.builder(new TensorDataset(x.slice(0, 32, 48), y.slice(0, 32, 48))).batchSize(8).build();
    Sequential model = new Sequential(new Linear(6, 16), new ReLU(), new Linear(16, 1));
    EarlyStopping earlyStopping = new EarlyStopping("val_loss", 0.0, 2, "min");
    new Trainer().fit(model, train, val, device, earlyStopping, 12);
    System.out.println("stopped at epoch " + earlyStopping.stoppedEpoch);
  }
}
