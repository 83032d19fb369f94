package corpus.correct;

import dev.ondevice.Autograd;
import dev.ondevice.Device;
import dev.ondevice.Pooling;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.data.Batch;
import dev.ondevice.data.DataLoader;
import dev.ondevice.data.TensorDataset;
import dev.ondevice.nn.Conv2d;
import dev.ondevice.nn.Dropout;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.nn.NllLoss;
import dev.ondevice.nn.Reduction;
import dev.ondevice.optim.Optimizer;
import dev.ondevice.optim.RmsProp;
import dev.ondevice.optim.StepLr;

/**
 * The PyTorch MNIST example: a small CNN trained by {@code train(args, model, device, train_loader,
 * optimizer, epoch)}, which moves every batch and logs {@code loss.item()} every {@code log_interval}
 * batches, and evaluated by {@code test(model, device, test_loader)}.
 *
 * <p>Source: https://github.com/pytorch/examples/blob/main/mnist/main.py
 *
 * <p>Ported: Net, train and test as written (test sums {@code nll_loss(..., reduction='sum').item()}
 * and {@code correct ...sum().item()} per batch, as the original does), the epoch loop of main with
 * StepLR; left out argparse, torchvision's MNIST (random 28x28 images here), model saving. Adadelta
 * is not in the API: RMSprop (its closest relative) stands in.
 *
 * <p>Outcome: completes
 */
public final class ExamplesMnistTrainTest {
  private ExamplesMnistTrainTest() {}

  record Args(int logInterval, boolean dryRun) {}

  static final class Net extends Model {
    final Conv2d conv1 = new Conv2d(1, 32, 3, 1, 0, true);
    final Conv2d conv2 = new Conv2d(32, 64, 3, 1, 0, true);
    final Dropout dropout1 = new Dropout(0.25);
    final Dropout dropout2 = new Dropout(0.5);
    final Linear fc1 = new Linear(9216, 128);
    final Linear fc2 = new Linear(128, 10);

    Tensor forward(Tensor x) {
      x = conv1.forward(x);
      x = x.relu();
      x = conv2.forward(x);
      x = x.relu();
      x = Pooling.maxPool2d(x, 2, 2, 0);
      x = dropout1.forward(x);
      x = x.flatten(1);
      x = fc1.forward(x);
      x = x.relu();
      x = dropout2.forward(x);
      x = fc2.forward(x);
      Tensor output = x.logSoftmax(1);
      return output;
    }
  }

  static void train(Args args, Net model, Device device, DataLoader trainLoader, Optimizer optimizer, int epoch) {
    model.train();
    NllLoss nllLoss = new NllLoss();
    int batchIdx = 0;
    for (Batch batch : trainLoader) {
      Tensor data = batch.inputs().to(device);
      Tensor target = batch.targets().to(device);
      optimizer.zeroGrad();
      Tensor output = model.forward(data);
      Tensor loss = nllLoss.forward(output, target);
      loss.backward();
      optimizer.step();
      if (batchIdx % args.logInterval() == 0) {
        System.out.printf("Train Epoch: %d [%d/%d (%.0f%%)]\tLoss: %.6f%n", epoch, batchIdx * data.size(0),
            trainLoader.dataset().size(), 100.0 * batchIdx / trainLoader.numBatches(), loss.item());
        if (args.dryRun()) {
          break;
        }
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
      for (Batch batch : testLoader) {
        Tensor data = batch.inputs().to(device);
        Tensor target = batch.targets().to(device);
        Tensor output = model.forward(data);
        // sum up batch loss
        testLoss += sumLoss.forward(output, target).item(); // costs time: HostSyncInLoop
        Tensor pred = output.argmax(1, true); // get the index of the max log-probability
        correct += pred.eq(target.reshape(pred.shape())).sum().itemAsLong(); // costs time: HostSyncInLoop
      }
    }
    int n = testLoader.dataset().size();
    testLoss /= n;
    System.out.printf("%nTest set: Average loss: %.4f, Accuracy: %d/%d (%.0f%%)%n%n", testLoss, correct, n,
        100.0 * correct / n);
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    Args args = new Args(2, false);
    TensorDataset dataset1 = new TensorDataset(Tensor.randn(Shape.of(24, 1, 28, 28)),
        Tensor.randint(0, 10, Shape.of(24)));
    TensorDataset dataset2 = new TensorDataset(Tensor.randn(Shape.of(16, 1, 28, 28)),
        Tensor.randint(0, 10, Shape.of(16)));
    DataLoader trainLoader = DataLoader.builder(dataset1).batchSize(8).shuffle(1).build();
    DataLoader testLoader = DataLoader.builder(dataset2).batchSize(8).build();

    Net model = new Net();
    model.toDevice(device);
    Optimizer optimizer = new RmsProp(model.parameters(), 1e-3);
    StepLr scheduler = new StepLr(optimizer, 1, 0.7);
    for (int epoch = 1; epoch <= 2; epoch++) {
      train(args, model, device, trainLoader, optimizer, epoch);
      test(model, device, testLoader);
      scheduler.step();
    }
  }
}
