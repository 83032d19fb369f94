package corpus.correct;

import dev.ondevice.Autograd;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.data.Batch;
import dev.ondevice.data.DataLoader;
import dev.ondevice.data.TensorDataset;
import dev.ondevice.nn.AvgPool2d;
import dev.ondevice.nn.Conv2d;
import dev.ondevice.nn.CrossEntropyLoss;
import dev.ondevice.nn.Flatten;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Sequential;
import dev.ondevice.nn.Sigmoid;
import dev.ondevice.optim.Sgd;

/**
 * Dive into Deep Learning, "Convolutional Neural Networks (LeNet)": LeNet-5 as an
 * {@code nn.Sequential} (sigmoid activations, average pooling), trained on Fashion-MNIST by
 * {@code train_ch6}, which Xavier-initialises the network with {@code net.apply(init_weights)},
 * moves it to {@code d2l.try_gpu()}, moves each minibatch, adds the loss and the count of correct
 * predictions of each batch to a host-side {@code d2l.Accumulator}, and measures the test accuracy
 * after each epoch with {@code evaluate_accuracy_gpu}.
 *
 * <p>Source: https://github.com/d2l-ai/d2l-en/blob/eee291f8a6397a34943f32e5c3507903c85b47f7/chapter_convolutional-neural-networks/lenet.md
 *
 * <p>Ported: from the source above (the PyTorch tab: {@code net}, {@code evaluate_accuracy_gpu}, {@code train_ch6}) and
 * {@code Accumulator} and {@code accuracy} from {@code d2l/torch.py} at the same commit, as written,
 * with 2 epochs and random 28x28 images in place of Fashion-MNIST (64 for training, 32 for testing,
 * batches of 16). Left out: the {@code Animator} plot and the {@code Timer} (the examples/sec line
 * uses {@code System.nanoTime}).
 *
 * <p>Outcome: completes
 */
public final class D2lLenetTrainCh6 {
  private D2lLenetTrainCh6() {}

  /** {@code d2l.Accumulator}: sums over {@code n} variables, on the host. */
  static final class Accumulator {
    double[] data;

    Accumulator(int n) {
      data = new double[n];
    }

    void add(double... args) {
      for (int i = 0; i < data.length; i++) {
        data[i] += args[i];
      }
    }

    double get(int idx) {
      return data[idx];
    }
  }

  /** {@code d2l.accuracy}: the number of correct predictions, as a Python float. */
  static double accuracy(Tensor yHat, Tensor y) {
    if (yHat.dim() > 1 && yHat.size(1) > 1) {
      yHat = yHat.argmax(1);
    }
    Tensor cmp = yHat.to(y.dtype()).eq(y);
    return cmp.to(y.dtype()).sum().item(); // costs time: HostSyncInLoop
  }

  static double evaluateAccuracyGpu(Sequential net, DataLoader dataIter, Device device) {
    net.eval();
    if (device == null) {
      device = net.parameters().get(0).device();
    }
    // No. of correct predictions, no. of predictions
    Accumulator metric = new Accumulator(2);
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      for (Batch b : dataIter) {
        Tensor x = b.inputs().to(device);
        Tensor y = b.targets().to(device);
        metric.add(accuracy(net.forward(x), y), y.numel()); // costs time: HostSyncInLoop
      }
    }
    return metric.get(0) / metric.get(1);
  }

  static void xavierUniform(Tensor weight, long fanIn, long fanOut) {
    double bound = Math.sqrt(6.0 / (fanIn + fanOut));
    weight.copyFrom(Tensor.randLike(weight).mul(2 * bound).sub(bound));
  }

  static void trainCh6(Sequential net, DataLoader trainIter, DataLoader testIter, int numEpochs, double lr, Device device) {
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      net.apply(m -> {
        if (m instanceof Linear l) {
          xavierUniform(l.weight(), l.weight().size(1), l.weight().size(0));
        } else if (m instanceof Conv2d c) {
          long receptive = c.weight().size(2) * c.weight().size(3);
          xavierUniform(c.weight(), c.weight().size(1) * receptive, c.weight().size(0) * receptive);
        }
      });
    }
    System.out.println("training on " + device);
    net.toDevice(device);
    Sgd optimizer = new Sgd(net.parameters(), lr);
    CrossEntropyLoss loss = new CrossEntropyLoss();
    long start = System.nanoTime();
    int numBatches = trainIter.numBatches();
    double trainL = 0;
    double trainAcc = 0;
    double testAcc = 0;
    Accumulator metric = null;
    for (int epoch = 0; epoch < numEpochs; epoch++) {
      // Sum of training loss, sum of training accuracy, no. of examples
      metric = new Accumulator(3);
      net.train();
      int i = 0;
      for (Batch b : trainIter) {
        optimizer.zeroGrad();
        Tensor x = b.inputs().to(device);
        Tensor y = b.targets().to(device);
        Tensor yHat = net.forward(x);
        Tensor l = loss.forward(yHat, y);
        l.backward();
        optimizer.step();
        try (Autograd.Scope ignored = Autograd.noGrad()) {
          metric.add(l.mul(x.size(0)).item(), accuracy(yHat, y), x.size(0)); // costs time: HostSyncInLoop
        }
        trainL = metric.get(0) / metric.get(2);
        trainAcc = metric.get(1) / metric.get(2);
        if ((i + 1) % Math.max(1, numBatches / 5) == 0 || i == numBatches - 1) {
          System.out.printf("epoch %.2f: train loss %.3f, train acc %.3f%n", epoch + (i + 1) / (double) numBatches, trainL, trainAcc);
        }
        i++;
      }
      testAcc = evaluateAccuracyGpu(net, testIter, null);
    }
    System.out.printf("loss %.3f, train acc %.3f, test acc %.3f%n", trainL, trainAcc, testAcc);
    System.out.printf("%.1f examples/sec on %s%n", metric.get(2) * numEpochs / ((System.nanoTime() - start) / 1e9), device);
  }

  public static void run(Device device) {
    Sequential net = new Sequential(
        new Conv2d(1, 6, 5, 1, 2, true), new Sigmoid(),
        new AvgPool2d(2, 2, 0),
        new Conv2d(6, 16, 5), new Sigmoid(),
        new AvgPool2d(2, 2, 0),
        new Flatten(),
        new Linear(16 * 5 * 5, 120), new Sigmoid(),
        new Linear(120, 84), new Sigmoid(),
        new Linear(84, 10));

    int batchSize = 16;
    TensorDataset train = new TensorDataset(Tensor.rand(Shape.of(64, 1, 28, 28)), Tensor.randint(0, 10, Shape.of(64)));
    TensorDataset test = new TensorDataset(Tensor.rand(Shape.of(32, 1, 28, 28)), Tensor.randint(0, 10, Shape.of(32)));
    DataLoader trainIter = DataLoader.builder(train).batchSize(batchSize).shuffle(0).build();
    DataLoader testIter = DataLoader.builder(test).batchSize(batchSize).build();

    double lr = 0.9;
    int numEpochs = 2;
    trainCh6(net, trainIter, testIter, numEpochs, lr, device);   // d2l.try_gpu()
  }
}
