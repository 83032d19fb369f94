package corpus.bugs;

import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.nn.CrossEntropyLoss;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.optim.Sgd;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * torch-lr-finder's {@code LRFinder.range_test} on a model with two inputs: the data loader yields
 * {@code ([x_a, x_b], y)}, the finder moves the model to its device, raises the learning rate
 * exponentially each iteration, and {@code _train_batch} moves each batch with {@code
 * _move_to_device} (tuples and tensors) before the forward pass.
 *
 * <p>Source: https://github.com/davidtvs/pytorch-lr-finder/pull/20 (commit 6083582,
 * torch_lr_finder/lr_finder.py)
 *
 * <p>Bug: {@code move(obj, device)} recurses into tuples and moves tensors, but returns any other
 * object unchanged, so a list of input tensors reaches the model on {@code cuda} still on the CPU.
 * The fix adds {@code elif isinstance(obj, list): return [move(o, device) for o in obj]}.
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class LrFinderListInputsNotMoved {
  private LrFinderListInputsNotMoved() {}

  /** A model of two inputs: one branch each, concatenated, a linear head. */
  static final class TwoInputNet extends Model {
    final Linear branchA = new Linear(5, 8);
    final Linear branchB = new Linear(3, 8);
    final Linear head = new Linear(16, 4);

    Tensor forward(List<Tensor> inputs) {
      Tensor a = branchA.forward(inputs.get(0)).relu(); // same bug
      Tensor b = branchB.forward(inputs.get(1)).relu();
      return head.forward(Tensor.cat(List.of(a, b), 1));
    }
  }

  /** {@code DataLoaderIterWrapper}: restarts the loader when it runs out. */
  static final class DataLoaderIterWrapper {
    final List<Object[]> loader;
    Iterator<Object[]> it;

    DataLoaderIterWrapper(List<Object[]> loader) {
      this.loader = loader;
      this.it = loader.iterator();
    }

    Object[] getBatch() {
      if (!it.hasNext()) {
        it = loader.iterator();
      }
      return it.next();
    }
  }

  static final class LRFinder {
    final TwoInputNet model;
    final Sgd optimizer;
    final CrossEntropyLoss criterion;
    final Device device;
    final Device modelDevice;
    final Map<String, Tensor> cachedModelState;
    final List<Double> historyLr = new ArrayList<>();
    final List<Double> historyLoss = new ArrayList<>();
    Double bestLoss;

    LRFinder(TwoInputNet model, Sgd optimizer, CrossEntropyLoss criterion, Device device) {
      this.model = model;
      this.optimizer = optimizer;
      this.criterion = criterion;
      this.modelDevice = model.parameters().get(0).device();
      this.cachedModelState = model.stateDict();
      this.device = device != null ? device : modelDevice;
    }

    void rangeTest(List<Object[]> trainLoader, double endLr, int numIter, double smoothF, double divergeTh) {
      historyLr.clear();
      historyLoss.clear();
      bestLoss = null;
      // Move the model to the proper device
      model.toDevice(device);
      double baseLr = optimizer.learningRate();
      DataLoaderIterWrapper iterWrapper = new DataLoaderIterWrapper(trainLoader);
      for (int iteration = 0; iteration < numIter; iteration++) {
        double loss = trainBatch(iterWrapper, 1);
        // ExponentialLR: base_lr * (end_lr / base_lr) ** (curr_iter / (num_iter - 1))
        double lr = baseLr * Math.pow(endLr / baseLr, (iteration + 1) / (double) (numIter - 1));
        optimizer.setLearningRate(lr);
        historyLr.add(lr);
        if (iteration == 0) {
          bestLoss = loss;
        } else {
          if (smoothF > 0) {
            loss = smoothF * loss + (1 - smoothF) * historyLoss.get(historyLoss.size() - 1);
          }
          if (loss < bestLoss) {
            bestLoss = loss;
          }
        }
        historyLoss.add(loss);
        if (loss > divergeTh * bestLoss) {
          System.out.println("Stopping early, the loss has diverged");
          break;
        }
      }
      System.out.println("Learning rate search finished.");
    }

    @SuppressWarnings("unchecked")
    double trainBatch(DataLoaderIterWrapper iterWrapper, int accumulationSteps) {
      model.train();
      Tensor totalLoss = null;
      optimizer.zeroGrad();
      for (int i = 0; i < accumulationSteps; i++) {
        Object[] batch = iterWrapper.getBatch();
        Object[] moved = moveToDevice(batch[0], batch[1]);
        Tensor outputs = model.forward((List<Tensor>) moved[0]);
        Tensor loss = criterion.forward(outputs, (Tensor) moved[1]);
        loss = loss.div(accumulationSteps);
        loss.backward();
        totalLoss = totalLoss == null ? loss : totalLoss.add(loss);
      }
      optimizer.step();
      return totalLoss.item(); // costs time: HostSyncInLoop
    }

    Object[] moveToDevice(Object inputs, Object labels) {
      return new Object[] {move(inputs, device), move(labels, device)};
    }

    static Object move(Object obj, Device device) {
      if (obj instanceof Object[] tuple) {
        Object[] out = new Object[tuple.length];
        for (int i = 0; i < tuple.length; i++) {
          out[i] = move(tuple[i], device);
        }
        return out;
      } else if (obj instanceof Tensor t) {
        return t.to(device);
      } else {
        return obj; // bug: held-outside-models
      }
    }
  }

  public static void run(Device device) {
    TwoInputNet net = new TwoInputNet();
    Sgd optimizer = new Sgd(net.parameters(), 1e-5);
    CrossEntropyLoss criterion = new CrossEntropyLoss();
    List<Object[]> trainLoader = new ArrayList<>();
    for (int b = 0; b < 4; b++) {
      List<Tensor> inputs = List.of(Tensor.randn(Shape.of(6, 5)), Tensor.randn(Shape.of(6, 3)));
      trainLoader.add(new Object[] {inputs, Tensor.randint(0, 4, Shape.of(6))});
    }
    LRFinder lrFinder = new LRFinder(net, optimizer, criterion, device);
    lrFinder.rangeTest(trainLoader, 100, 6, 0.05, 5);
    System.out.println("best loss " + lrFinder.bestLoss);
  }
}
