package corpus.bugs;

import dev.ondevice.Autograd;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.annotations.Buffer;
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
 * biotrainer's {@code training_and_evaluation_routine} for a {@code sequence_to_class} protocol with
 * {@code use_class_weights}: the {@code TargetManager} computes balanced class weights, {@code
 * get_loss} builds the {@code nn.CrossEntropyLoss(weight=...)}, {@code get_model} the network, and
 * the {@code Solver} moves the network to the device and runs the epochs (validation, then
 * training iterations that move each batch to the device).
 *
 * <p>Source: https://github.com/sacdallago/biotrainer/pull/62 (commit d4f14eb, "Fixing loss device
 * handling"; biotrainer/losses/__init__.py, trainers/trainer.py, solvers/Solver.py)
 *
 * <p>Bug: the {@code Solver} moves only the network ({@code self.network = network.to(self.device)});
 * the loss module, with its class-weight tensor made on the CPU by {@code compute_class_weights},
 * stays behind, and {@code self.loss_function(prediction, y)} mixes it with the GPU predictions.
 * The fix passes the device to {@code get_loss}, which returns {@code loss(weight=weight).to(device)}.
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class BiotrainerLossClassWeightsLeftOnCpu {
  private BiotrainerLossClassWeightsLeftOnCpu() {}

  /** {@code nn.CrossEntropyLoss(weight=...)}: a module whose class weights are a buffer. */
  static final class WeightedCrossEntropyLoss extends Model {
    @Buffer Tensor weight;

    WeightedCrossEntropyLoss(Tensor weight) {
      this.weight = weight;
    }

    Tensor forward(Tensor input, Tensor target) {
      Tensor nll = input.logSoftmax(1).gather(1, target.unsqueeze(1)).squeeze(1).neg();
      if (weight == null) {
        return nll.mean();
      }
      Tensor w = weight.indexSelect(0, target); // same bug
      return nll.mul(w).sum().div(w.sum());
    }
  }

  /** {@code biotrainer.losses}. */
  static final class Losses {
    private Losses() {}

    static WeightedCrossEntropyLoss getLoss(String protocol, String lossChoice, Tensor weight) {
      if (!protocol.equals("sequence_to_class") || !lossChoice.equals("cross_entropy_loss")) {
        throw new UnsupportedOperationException();
      }
      if (weight != null) {
        return new WeightedCrossEntropyLoss(weight); // bug: training-state
      } else {
        return new WeightedCrossEntropyLoss(null);
      }
    }
  }

  /** {@code TargetManager.compute_class_weights}: balanced weights, inversely proportional to class size. */
  static Tensor computeClassWeights(long[] labels, int numClasses) {
    int[] counter = new int[numClasses];
    for (long l : labels) {
      counter[(int) l]++;
    }
    float[] classWeights = new float[numClasses];
    for (int idx = 0; idx < numClasses; idx++) {
      classWeights[idx] = (float) labels.length / (numClasses * counter[idx]);
    }
    return Tensor.of(classWeights); // torch.FloatTensor(class_weights)
  }

  static final class Solver {
    final Sequential network;
    final Adam optimizer;
    final WeightedCrossEntropyLoss lossFunction;
    final Device device;

    Solver(Sequential network, Adam optimizer, WeightedCrossEntropyLoss lossFunction, Device device) {
      this.optimizer = optimizer;
      this.lossFunction = lossFunction;
      this.device = device;
      this.network = network;
      this.network.toDevice(device);
    }

    Map<String, Object> trainingIteration(Tensor x, Tensor y, boolean doLossPropagation) {
      // Move everything on device
      x = x.to(device);
      y = y.to(device);
      if (doLossPropagation) {
        optimizer.zeroGrad();
      }
      Tensor prediction = network.forward(x);
      Tensor loss = lossFunction.forward(prediction, y); // same bug
      Tensor predicted = prediction.argmax(1);
      Tensor accuracy = predicted.eq(y).to(dev.ondevice.DType.FLOAT32).mean();
      if (doLossPropagation) {
        loss.backward();
        optimizer.step();
      }
      Map<String, Object> result = new LinkedHashMap<>();
      result.put("loss", loss.item()); // costs time: HostSyncInLoop
      result.put("prediction", predicted.toLongArray()); // costs time: HostSyncInLoop
      result.put("accuracy", accuracy.item()); // costs time: HostSyncInLoop
      return result;
    }

    void train(List<Tensor[]> trainingLoader, List<Tensor[]> validationLoader, int epochs) {
      for (int epoch = 0; epoch < epochs; epoch++) {
        List<Map<String, Object>> validationIterations = new ArrayList<>();
        for (Tensor[] batch : validationLoader) {
          try (Autograd.Scope ignored = Autograd.noGrad()) {
            validationIterations.add(trainingIteration(batch[0], batch[1], false));
          }
        }
        List<Map<String, Object>> trainIterations = new ArrayList<>();
        for (Tensor[] batch : trainingLoader) {
          trainIterations.add(trainingIteration(batch[0], batch[1], true));
        }
        double trainLoss = trainIterations.stream().mapToDouble(m -> (Double) m.get("loss")).average().orElse(0);
        double valLoss = validationIterations.stream().mapToDouble(m -> (Double) m.get("loss")).average().orElse(0);
        System.out.printf("Epoch %d: training loss %.3f, validation loss %.3f%n", epoch, trainLoss, valLoss);
      }
    }
  }

  public static void run(Device device) {
    int nFeatures = 12, nClasses = 3;
    long[] labels = {0, 0, 0, 0, 0, 1, 1, 2, 0, 1, 0, 2};
    List<Tensor[]> train = new ArrayList<>();
    for (int b = 0; b < 3; b++) {
      train.add(new Tensor[] {Tensor.randn(Shape.of(4, nFeatures)), Tensor.of(java.util.Arrays.copyOfRange(labels, 4 * b, 4 * b + 4))});
    }
    List<Tensor[]> val = new ArrayList<>();
    val.add(new Tensor[] {Tensor.randn(Shape.of(4, nFeatures)), Tensor.of(new long[] {0, 1, 2, 0})});

    // Compute class weights to pass as bias to model if option is set
    Tensor classWeights = computeClassWeights(labels, nClasses);
    Sequential model = new Sequential(new Linear(nFeatures, 16), new ReLU(), new Linear(16, nClasses));
    WeightedCrossEntropyLoss lossFunction = Losses.getLoss("sequence_to_class", "cross_entropy_loss", classWeights); // bug: training-state
    Adam optimizer = new Adam(model.parameters(), 1e-3);
    Solver solver = new Solver(model, optimizer, lossFunction, device);
    solver.train(train, val, 2);
  }
}
