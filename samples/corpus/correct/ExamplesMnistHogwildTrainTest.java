package corpus.correct;

import dev.ondevice.Autograd;
import dev.ondevice.Cuda;
import dev.ondevice.Device;
import dev.ondevice.Generator;
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
import dev.ondevice.optim.Sgd;

/**
 * The PyTorch Hogwild MNIST example: the model is moved to the device once in main and shared by
 * the training workers; each worker's {@code train(rank, ...)} builds its own loader and SGD
 * optimizer and runs {@code train_epoch}, which moves the inputs and targets inline ({@code
 * model(data.to(device))}, {@code F.nll_loss(output, target.to(device))}); {@code test_epoch} sums
 * the loss and the correct predictions per batch.
 *
 * <p>Source: https://github.com/pytorch/examples/blob/77f55b912142e11fcfdf5b530231fb9c52f181e8/mnist_hogwild/train.py
 * (with main.py)
 *
 * <p>Ported: Net, train, test, train_epoch and test_epoch as written (the per-batch {@code .item()}
 * sums of test_epoch included), main's device choice and loader settings ({@code pin_memory} on
 * CUDA); the worker processes run one after the other in this thread (no {@code
 * torch.multiprocessing}, no shared memory), argparse and torchvision's MNIST are left out (random
 * 28x28 images), {@code nn.Dropout2d} is an element-wise {@code Dropout}.
 *
 * <p>Outcome: completes
 */
public final class ExamplesMnistHogwildTrainTest {
  private ExamplesMnistHogwildTrainTest() {}

  record Args(int seed, double lr, double momentum, int epochs, int logInterval, boolean dryRun, int numProcesses,
      int batchSize, boolean cuda) {}

  static final class Net extends Model {
    final Conv2d conv1 = new Conv2d(1, 10, 5, 1, 0, true);
    final Conv2d conv2 = new Conv2d(10, 20, 5, 1, 0, true);
    final Dropout conv2Drop = new Dropout(0.5);
    final Linear fc1 = new Linear(320, 50);
    final Linear fc2 = new Linear(50, 10);
    final Dropout dropout = new Dropout(0.5);

    Tensor forward(Tensor x) {
      x = Pooling.maxPool2d(conv1.forward(x), 2, 2, 0).relu();
      x = Pooling.maxPool2d(conv2Drop.forward(conv2.forward(x)), 2, 2, 0).relu();
      x = x.view(-1, 320);
      x = fc1.forward(x).relu();
      x = dropout.forward(x);
      x = fc2.forward(x);
      return x.logSoftmax(1);
    }
  }

  static DataLoader loader(TensorDataset dataset, Args args, long seed) {
    DataLoader.Builder builder = DataLoader.builder(dataset).batchSize(args.batchSize()).shuffle(seed);
    if (args.cuda()) {
      builder = builder.pinMemory(true);
    }
    return builder.build();
  }

  static void train(int rank, Args args, Net model, Device device, TensorDataset dataset) {
    Generator.manualSeed(args.seed() + rank);
    DataLoader trainLoader = loader(dataset, args, args.seed() + rank);
    Sgd optimizer = new Sgd(model.parameters(), args.lr()).momentum(args.momentum());
    for (int epoch = 1; epoch <= args.epochs(); epoch++) {
      trainEpoch(epoch, args, model, device, trainLoader, optimizer);
    }
  }

  static void test(Args args, Net model, Device device, TensorDataset dataset) {
    Generator.manualSeed(args.seed());
    DataLoader testLoader = loader(dataset, args, args.seed());
    testEpoch(model, device, testLoader);
  }

  static void trainEpoch(int epoch, Args args, Net model, Device device, DataLoader dataLoader, Sgd optimizer) {
    model.train();
    long pid = ProcessHandle.current().pid();
    NllLoss nllLoss = new NllLoss();
    int batchIdx = 0;
    for (Batch batch : dataLoader) {
      Tensor data = batch.inputs();
      Tensor target = batch.targets();
      optimizer.zeroGrad();
      Tensor output = model.forward(data.to(device));
      Tensor loss = nllLoss.forward(output, target.to(device));
      loss.backward();
      optimizer.step();
      if (batchIdx % args.logInterval() == 0) {
        System.out.printf("%d\tTrain Epoch: %d [%d/%d (%.0f%%)]\tLoss: %.6f%n", pid, epoch,
            batchIdx * data.size(0), dataLoader.dataset().size(), 100.0 * batchIdx / dataLoader.numBatches(),
            loss.item());
        if (args.dryRun()) {
          break;
        }
      }
      batchIdx++;
    }
  }

  static void testEpoch(Net model, Device device, DataLoader dataLoader) {
    model.eval();
    double testLoss = 0;
    long correct = 0;
    NllLoss sumLoss = new NllLoss(Reduction.SUM);
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      for (Batch batch : dataLoader) {
        Tensor data = batch.inputs();
        Tensor target = batch.targets();
        Tensor output = model.forward(data.to(device));
        testLoss += sumLoss.forward(output, target.to(device)).item(); // costs time: HostSyncInLoop
        Tensor pred = output.max(1).indices(); // get the index of the max log-probability
        correct += pred.eq(target.to(device)).sum().itemAsLong(); // costs time: HostSyncInLoop
      }
    }
    int n = dataLoader.dataset().size();
    testLoss /= n;
    System.out.printf("%nTest set: Average loss: %.4f, Accuracy: %d/%d (%.0f%%)%n%n", testLoss, correct, n,
        100.0 * correct / n);
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    boolean useCuda = device.toString().startsWith("cuda") && Cuda.isAvailable();
    Args args = new Args(1, 0.01, 0.5, 1, 2, false, 2, 8, useCuda);
    TensorDataset dataset1 = new TensorDataset(Tensor.randn(Shape.of(24, 1, 28, 28)),
        Tensor.randint(0, 10, Shape.of(24)));
    TensorDataset dataset2 = new TensorDataset(Tensor.randn(Shape.of(16, 1, 28, 28)),
        Tensor.randint(0, 10, Shape.of(16)));

    Generator.manualSeed(args.seed());
    Net model = new Net();
    model.toDevice(device);
    for (int rank = 0; rank < args.numProcesses(); rank++) {
      // We first train the model across `num_processes` processes
      train(rank, args, model, device, dataset1);
    }
    // Once training is complete, we can test the model
    test(args, model, device, dataset2);
  }
}
