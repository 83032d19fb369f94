package corpus.bugs;

import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.nn.CrossEntropyLoss;
import dev.ondevice.nn.Dropout;
import dev.ondevice.nn.Layer;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Reduction;
import dev.ondevice.nn.ReLU;
import dev.ondevice.nn.Sequential;
import dev.ondevice.optim.Sgd;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * skorch FAQ "I want to use sample_weight, how can I do this?": X is a dict {@code {'data': X,
 * 'sample_weight': w}}, the module's {@code forward(data, sample_weight)} ignores the weights, the
 * criterion is built with {@code reduction='none'}, and a {@code NeuralNetClassifier} subclass
 * overrides {@code get_loss} to weight the unreduced loss with {@code X['sample_weight']}.
 *
 * <p>Source: https://github.com/skorch-dev/skorch/issues/734 (fixed by
 * https://github.com/skorch-dev/skorch/pull/736)
 *
 * <p>Bug: on {@code device='cuda'}, {@code fit} fails with "expected device cpu but got device
 * cuda:0": skorch moves the batch to the device only for the module's forward, so the {@code
 * X['sample_weight']} that {@code get_loss} reads is still the CPU batch tensor; the fix changed the
 * FAQ code to move the sample weights to {@code self.device}.
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class SkorchSampleWeightGetLossOnCpu {
  private SkorchSampleWeightGetLossOnCpu() {}

  /** The FAQ's MyModule, reduced to the classifier body. */
  static final class MyModule extends Sequential {
    MyModule() {
      super(new Linear(20, 10), new ReLU(), new Dropout(0.5), new Linear(10, 10), new ReLU(), new Linear(10, 2));
    }
  }

  /** skorch.NeuralNet: train_step, infer and get_loss, on dict inputs. */
  static class NeuralNetClassifier {
    final Layer module;
    final CrossEntropyLoss criterion;
    final Sgd optimizer;
    final Device device;

    NeuralNetClassifier(Layer module, CrossEntropyLoss criterion, double lr, Device device) {
      this.module = module;
      this.criterion = criterion;
      this.device = device;
      module.toDevice(device);
      this.optimizer = new Sgd(module.parameters(), lr);
    }

    /** infer: moves the dict's entries to the device and calls the module on them. */
    Tensor infer(Map<String, Tensor> x) {
      Map<String, Tensor> xDev = new HashMap<>();
      x.forEach((k, v) -> xDev.put(k, v.to(device)));
      return module.forward(xDev.get("data"));
    }

    Tensor getLoss(Tensor yPred, Tensor yTrue, Map<String, Tensor> x) {
      return criterion.forward(yPred, yTrue.to(device));
    }

    void trainStep(Map<String, Tensor> xi, Tensor yi) {
      module.train();
      optimizer.zeroGrad();
      Tensor yPred = infer(xi);
      Tensor loss = getLoss(yPred, yi, xi);
      loss.backward();
      optimizer.step();
    }

    void fit(List<Map<String, Tensor>> batches, List<Tensor> targets, int maxEpochs) {
      for (int epoch = 0; epoch < maxEpochs; epoch++) {
        for (int i = 0; i < batches.size(); i++) {
          trainStep(batches.get(i), targets.get(i));
        }
      }
    }
  }

  /** The FAQ's MyNet. */
  static final class MyNet extends NeuralNetClassifier {
    MyNet(Layer module, Device device) {
      super(module, new CrossEntropyLoss(Reduction.NONE), 0.1, device);
    }

    @Override
    Tensor getLoss(Tensor yPred, Tensor yTrue, Map<String, Tensor> x) {
      Tensor lossUnreduced = super.getLoss(yPred, yTrue, x);
      Tensor sampleWeight = x.get("sample_weight"); // bug: held-outside-models
      Tensor lossReduced = sampleWeight.mul(lossUnreduced).mean(); // same bug
      return lossReduced;
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    List<Map<String, Tensor>> batches = new ArrayList<>();
    List<Tensor> targets = new ArrayList<>();
    for (int b = 0; b < 4; b++) {
      Map<String, Tensor> x = new HashMap<>();
      x.put("data", Tensor.randn(16, 20));
      x.put("sample_weight", Tensor.randint(1, 3, Shape.of(16)).to(DType.FLOAT32));
      batches.add(x);
      targets.add(Tensor.randint(0, 2, Shape.of(16)));
    }
    MyNet net = new MyNet(new MyModule(), device);
    net.fit(batches, targets, 2);
  }
}
