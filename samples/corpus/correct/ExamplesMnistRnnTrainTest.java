package corpus.correct;

import dev.ondevice.Autograd;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.data.Batch;
import dev.ondevice.data.DataLoader;
import dev.ondevice.data.TensorDataset;
import dev.ondevice.nn.BatchNorm1d;
import dev.ondevice.nn.Dropout;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.nn.NllLoss;
import dev.ondevice.nn.Reduction;
import dev.ondevice.optim.LrScheduler;
import dev.ondevice.optim.Sgd;
import dev.ondevice.optim.StepLr;

/**
 * pytorch/examples' MNIST RNN: each image is read row by row by an LSTM (batch first), the last
 * output goes through batch norm, dropout and two linear layers to log-probabilities; {@code train}
 * and {@code test} move every batch to the device, {@code test} sums the loss and the correct
 * predictions per batch with {@code .item()}.
 *
 * <p>Source: https://github.com/pytorch/examples/blob/77f55b912142e11fcfdf5b530231fb9c52f181e8/mnist_rnn/main.py
 *
 * <p>Ported: Net (the LSTM, BatchNorm1d(64), the two dropouts, fc1, fc2, log_softmax), train and test
 * as written, the epoch loop of main with StepLR(step_size=1, gamma=0.7) and
 * {@code model = Net().to(device)}. Left out: argparse, the MNIST download (random images
 * instead), saving. nn.LSTM is not in the API: the layer is an LSTM cell over the 28 rows written
 * out with two Linear layers and a zero initial state made on the input's device (what nn.LSTM does
 * when no state is given). Dropout2d on a [B, 64] tensor is a Dropout; Adadelta is not in the API:
 * SGD with lr 0.1.
 *
 * <p>Outcome: completes
 */
public final class ExamplesMnistRnnTrainTest {
  private ExamplesMnistRnnTrainTest() {}

  static final class Lstm extends Model {
    final Linear ih, hh;
    final int hidden;

    Lstm(int inputSize, int hiddenSize) {
      ih = new Linear(inputSize, 4 * hiddenSize); hh = new Linear(hiddenSize, 4 * hiddenSize); hidden = hiddenSize;
    }

    /** batch_first input [B, T, I]; returns the outputs [B, T, H]. */
    Tensor forward(Tensor input) {
      long batch = input.size(0);
      Tensor h = Tensor.zeros(Shape.of(batch, hidden), input.dtype(), input.device());
      Tensor c = Tensor.zeros(Shape.of(batch, hidden), input.dtype(), input.device());
      java.util.List<Tensor> outputs = new java.util.ArrayList<>();
      for (long t = 0; t < input.size(1); t++) {
        Tensor g = ih.forward(input.select(1, t)).add(hh.forward(h));
        Tensor i = g.narrow(1, 0, hidden).sigmoid(), f = g.narrow(1, hidden, hidden).sigmoid();
        Tensor gg = g.narrow(1, 2L * hidden, hidden).tanh(), o = g.narrow(1, 3L * hidden, hidden).sigmoid();
        c = f.mul(c).add(i.mul(gg));
        h = o.mul(c.tanh());
        outputs.add(h);
      }
      return Tensor.stack(outputs, 1);
    }
  }

  static final class Net extends Model {
    final Lstm rnn = new Lstm(28, 64);
    final BatchNorm1d batchnorm = new BatchNorm1d(64);
    final Dropout dropout1 = new Dropout(0.25);
    final Dropout dropout2 = new Dropout(0.5);
    final Linear fc1 = new Linear(64, 32);
    final Linear fc2 = new Linear(32, 10);

    Tensor forward(Tensor input) {
      input = input.reshape(-1, 28, 28);
      Tensor output = rnn.forward(input);
      output = output.select(1, output.size(1) - 1);
      output = batchnorm.forward(output);
      output = dropout1.forward(output);
      output = fc1.forward(output).relu();
      output = dropout2.forward(output);
      output = fc2.forward(output);
      return output.logSoftmax(1);
    }
  }

  static final int LOG_INTERVAL = 10;

  static void train(Net model, Device device, DataLoader trainLoader, Sgd optimizer, int epoch) {
    model.train();
    NllLoss nllLoss = new NllLoss();
    int batchIdx = 0;
    for (Batch b : trainLoader) {
      Tensor data = b.inputs().to(device);
      Tensor target = b.targets().to(device);
      optimizer.zeroGrad();
      Tensor output = model.forward(data);
      Tensor loss = nllLoss.forward(output, target);
      loss.backward();
      optimizer.step();
      if (batchIdx % LOG_INTERVAL == 0) {
        System.out.printf("Train Epoch: %d [%d/%d (%.0f%%)]\tLoss: %.6f%n", epoch, batchIdx * data.size(0),
            trainLoader.dataset().size(), 100.0 * batchIdx / trainLoader.numBatches(), loss.item());
      }
      batchIdx++;
    }
  }

  static void test(Net model, Device device, DataLoader testLoader) {
    model.eval();
    double testLoss = 0;
    long correct = 0;
    NllLoss sumLoss = new NllLoss(Reduction.SUM);
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      for (Batch b : testLoader) {
        Tensor data = b.inputs().to(device);
        Tensor target = b.targets().to(device);
        Tensor output = model.forward(data);
        testLoss += sumLoss.forward(output, target).item(); // costs time: HostSyncInLoop
        Tensor pred = output.argmax(1, true);
        correct += pred.eq(target.reshape(pred.shape())).sum().itemAsLong(); // costs time: HostSyncInLoop
      }
    }
    testLoss /= testLoader.dataset().size();
    System.out.printf("%nTest set: Average loss: %.4f, Accuracy: %d/%d (%.0f%%)%n%n", testLoss, correct,
        testLoader.dataset().size(), 100.0 * correct / testLoader.dataset().size());
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    TensorDataset trainSet = new TensorDataset(Tensor.randn(Shape.of(96, 1, 28, 28)), Tensor.randint(0, 10, Shape.of(96)));
    TensorDataset testSet = new TensorDataset(Tensor.randn(Shape.of(48, 1, 28, 28)), Tensor.randint(0, 10, Shape.of(48)));
    DataLoader trainLoader = DataLoader.builder(trainSet).batchSize(32).shuffle(1).build();
    DataLoader testLoader = DataLoader.builder(testSet).batchSize(24).shuffle(1).build();
    Net model = new Net();
    model.toDevice(device);
    Sgd optimizer = new Sgd(model.parameters(), 0.1);
    LrScheduler scheduler = new StepLr(optimizer, 1, 0.7);
    for (int epoch = 1; epoch <= 2; epoch++) {
      train(model, device, trainLoader, optimizer, epoch);
      test(model, device, testLoader);
      scheduler.step();
    }
  }
}
