package corpus.bugs;

import dev.ondevice.Autograd;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.data.Batch;
import dev.ondevice.data.DataLoader;
import dev.ondevice.data.TensorDataset;
import dev.ondevice.nn.CrossEntropyLoss;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.ReLU;
import dev.ondevice.nn.Sequential;
import dev.ondevice.optim.Adam;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * IL-Datasets' benchmark Behavioural Cloning method: {@code BC.train} runs {@code _train} and
 * {@code _eval} every epoch; both compute the accuracy of the policy's predictions against the
 * expert actions with {@code imitation_datasets.dataset.metrics.accuracy}.
 *
 * <p>Source: https://github.com/NathanGavenski/IL-Datasets/pull/22 (issue #21, commit 91770c6)
 *
 * <p>Bug: {@code _train} moves {@code state} and {@code action} to {@code self.device}, but {@code
 * _eval} moves only {@code state}; the CUDA predictions and the CPU actions meet in {@code
 * metrics.accuracy}, {@code (argmax(prediction, 1) == ground_truth)}. The fix made {@code accuracy}
 * move both to the CPU when their devices differ.
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class IlDatasetsBcEvalActionOnCpu {
  private IlDatasetsBcEvalActionOnCpu() {}

  /** imitation_datasets/dataset/metrics.py */
  static final class Metrics {
    private Metrics() {}

    static double accuracy(Tensor prediction, Tensor groundTruth) {
      if (prediction.dim() != 2) {
        throw new IllegalArgumentException("'prediction' and 'ground truth' need to be 2 dimensional.");
      }
      if (groundTruth.dim() != 1) {
        throw new IllegalArgumentException("'ground truth' need to be 1 dimensional.");
      }
      return prediction.argmax(1).eq(groundTruth).sum().item() / groundTruth.size(0) * 100; // bug: across-methods
    }
  }

  static final class BC {
    final Device device;
    final Sequential policy;
    final Adam optimizerFn;
    final CrossEntropyLoss lossFn = new CrossEntropyLoss();
    final boolean discrete = true;

    BC(int observationSize, int actionSize, Device device) {
      this.device = device;
      this.policy = new Sequential(new Linear(observationSize, 32), new ReLU(), new Linear(32, actionSize));
      this.optimizerFn = new Adam(policy.parameters(), 1e-3);
    }

    Tensor forward(Tensor x) {
      return policy.forward(x);
    }

    BC train(int nEpochs, DataLoader trainDataset, DataLoader evalDataset) {
      policy.toDevice(device);
      for (int epoch = 0; epoch < nEpochs; epoch++) {
        Map<String, Double> trainMetrics = trainEpoch(trainDataset);
        System.out.println("Train " + trainMetrics);
        if (evalDataset != null) {
          Map<String, Double> evalMetrics = evalEpoch(evalDataset);
          System.out.println("Eval " + evalMetrics);
        }
      }
      return this;
    }

    Map<String, Double> trainEpoch(DataLoader dataset) {
      List<Double> accumulatedLoss = new ArrayList<>();
      List<Double> accumulatedAccuracy = new ArrayList<>();
      if (!policy.isTraining()) {
        policy.train();
      }
      for (Batch batch : dataset) {
        Tensor state = batch.tensor(0).to(device);
        Tensor action = batch.tensor(1).to(device);

        optimizerFn.zeroGrad();
        Tensor predictions = forward(state);
        Tensor loss = lossFn.forward(predictions, action.squeeze(1));
        loss.backward();
        optimizerFn.step();
        accumulatedLoss.add(loss.item()); // costs time: HostSyncInLoop

        double accuracy = Metrics.accuracy(predictions, action.squeeze(1));
        accumulatedAccuracy.add(accuracy);
      }
      return Map.of("loss", mean(accumulatedLoss), "accuracy", mean(accumulatedAccuracy));
    }

    Map<String, Double> evalEpoch(DataLoader dataset) {
      List<Double> accumulatedAccuracy = new ArrayList<>();
      if (policy.isTraining()) {
        policy.eval();
      }
      for (Batch batch : dataset) {
        Tensor state = batch.tensor(0).to(device);
        Tensor action = batch.tensor(1);

        Tensor predictions;
        try (Autograd.Scope ignored = Autograd.noGrad()) {
          predictions = policy.forward(state);
        }
        double accuracy = Metrics.accuracy(predictions, action.squeeze(1)); // same bug
        accumulatedAccuracy.add(accuracy);
      }
      return Map.of("accuracy", mean(accumulatedAccuracy));
    }

    static double mean(List<Double> values) {
      return values.stream().mapToDouble(Double::doubleValue).average().orElse(Double.NaN);
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    TensorDataset train = new TensorDataset(Tensor.randn(Shape.of(32, 4)), Tensor.randint(0, 2, Shape.of(32, 1)),
        Tensor.zeros(32));
    TensorDataset eval = new TensorDataset(Tensor.randn(Shape.of(16, 4)), Tensor.randint(0, 2, Shape.of(16, 1)),
        Tensor.zeros(16));
    BC bc = new BC(4, 2, device);
    bc.train(2, DataLoader.builder(train).batchSize(8).shuffle(0).build(), DataLoader.builder(eval).batchSize(8).build());
  }
}
