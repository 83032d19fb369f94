package corpus.bugs;

import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.data.Batch;
import dev.ondevice.data.DataLoader;
import dev.ondevice.data.TensorDataset;
import dev.ondevice.nn.CrossEntropyLoss;
import dev.ondevice.nn.Flatten;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.ReLU;
import dev.ondevice.nn.Sequential;
import dev.ondevice.optim.CosineAnnealingLr;
import dev.ondevice.optim.Gradients;
import dev.ondevice.optim.Sgd;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * NASBench-PyTorch's {@code trainer.train(net, train_loader, ..., device)}: trains a network of the
 * search space, keeping the epoch's loss and correct count as tensors and recording the epoch
 * metrics in a dict of lists.
 *
 * <p>Source: https://github.com/romulus0914/NASBench-PyTorch/issues/3
 *
 * <p>Bug: the accumulators are {@code torch.tensor(0.0)} on the CPU and are updated in place with
 * device values, {@code train_loss += curr_loss.detach()} and {@code correct +=
 * predict.eq(targets.data).sum().detach()}: "expected device cpu but got device cuda:0".
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class NasbenchTrainerMetrics {
  private NasbenchTrainerMetrics() {}

  static Map<String, List<Double>> train(Sequential net, DataLoader trainLoader, double gradClip, int numEpochs,
      Device device, int printFrequency) {
    net.toDevice(device);
    CrossEntropyLoss loss = new CrossEntropyLoss();
    Sgd optimizer = new Sgd(net.parameters(), 0.025).momentum(0.9).weightDecay(1e-4);
    CosineAnnealingLr scheduler = new CosineAnnealingLr(optimizer, numEpochs);

    int nBatches = trainLoader.numBatches();
    Map<String, List<Double>> metricDict = new LinkedHashMap<>();
    metricDict.put("train_loss", new ArrayList<>());
    metricDict.put("train_accuracy", new ArrayList<>());
    for (int epoch = 0; epoch < numEpochs; epoch++) {
      net.train();
      Tensor trainLoss = Tensor.scalar(0.0);
      Tensor correct = Tensor.scalar(0.0);
      long total = 0;
      int batchIdx = 0;
      for (Batch b : trainLoader) {
        Tensor inputs = b.inputs().to(device);
        Tensor targets = b.targets().to(device);
        Tensor outputs = net.forward(inputs);
        optimizer.zeroGrad();
        Tensor currLoss = loss.forward(outputs, targets);
        currLoss.backward();
        Gradients.clipNorm(net.parameters(), gradClip);
        optimizer.step();

        trainLoss.addi(currLoss.detach()); // bug: in-method
        Tensor predict = outputs.detach().max(1).indices();
        total += targets.size(0);
        correct.addi(predict.eq(targets.detach()).sum().detach()); // bug: in-method

        if (batchIdx % printFrequency == 0) {
          System.out.printf("Epoch=%d/%d Batch=%d/%d | Loss=%.3f, Acc=%.3f%n", epoch, numEpochs, batchIdx + 1,
              nBatches, trainLoss.div(batchIdx + 1).item(), correct.div(total).item());
        }
        batchIdx++;
      }
      Tensor lastLoss = trainLoss.div(batchIdx);
      Tensor acc = correct.div(total);
      metricDict.get("train_loss").add(lastLoss.item());
      metricDict.get("train_accuracy").add(acc.item());
      scheduler.step();
    }
    return metricDict;
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    Sequential net = new Sequential(new Flatten(), new Linear(3 * 4 * 4, 16), new ReLU(), new Linear(16, 10));
    TensorDataset data = new TensorDataset(Tensor.randn(16, 3, 4, 4), Tensor.randint(0, 10, Shape.of(16)));
    train(net, DataLoader.builder(data).batchSize(4).shuffle(2).build(), 5, 1, device, 200);
  }
}
