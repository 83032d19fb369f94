package corpus.correct;

import dev.ondevice.Autograd;
import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.data.Batch;
import dev.ondevice.data.DataLoader;
import dev.ondevice.data.TensorDataset;
import dev.ondevice.nn.CrossEntropyLoss;
import dev.ondevice.nn.Flatten;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.nn.ReLU;
import dev.ondevice.nn.Sequential;
import dev.ondevice.optim.Sgd;

/**
 * The PyTorch quickstart tutorial: it picks the accelerator if there is one, defines {@code
 * NeuralNetwork} (a {@code Flatten} and a {@code linear_relu_stack}), moves it with {@code
 * .to(device)}, and runs {@code train(dataloader, model, loss_fn, optimizer)}, which moves each batch
 * and prints {@code loss.item()} every 100 batches, and {@code test(...)}, which sums {@code
 * loss_fn(pred, y).item()} and {@code (pred.argmax(1) == y).type(torch.float).sum().item()} for
 * every batch under {@code torch.no_grad()}.
 *
 * <p>Source: https://github.com/pytorch/tutorials/blob/main/beginner_source/basics/quickstart_tutorial.py
 *
 * <p>Ported: the model, train and test as written, the epoch loop; FashionMNIST is small random
 * 28x28 images with 10 classes and the hidden width is 64 instead of 512. Left out: saving and
 * reloading the model, the prediction example.
 *
 * <p>Outcome: completes
 */
public final class TutorialsQuickstartTrainTest {
  private TutorialsQuickstartTrainTest() {}

  static final class NeuralNetwork extends Model {
    final Flatten flatten = new Flatten();
    final Sequential linearReluStack = new Sequential(
        new Linear(28 * 28, 64), new ReLU(), new Linear(64, 64), new ReLU(), new Linear(64, 10));

    Tensor forward(Tensor x) {
      x = flatten.forward(x);
      return linearReluStack.forward(x);
    }
  }

  static void train(DataLoader dataloader, NeuralNetwork model, CrossEntropyLoss lossFn, Sgd optimizer, Device device) {
    int size = dataloader.dataset().size();
    model.train();
    int batchIdx = 0;
    for (Batch batch : dataloader) {
      Tensor x = batch.inputs().to(device);
      Tensor y = batch.targets().to(device);
      Tensor pred = model.forward(x);
      Tensor loss = lossFn.forward(pred, y);
      loss.backward();
      optimizer.step();
      optimizer.zeroGrad();
      if (batchIdx % 100 == 0) {
        double lossValue = loss.item(); // costs time: HostSyncInLoop
        int current = (batchIdx + 1) * (int) x.size(0);
        System.out.printf("loss: %7f  [%5d/%5d]%n", lossValue, current, size);
      }
      batchIdx++;
    }
  }

  static void test(DataLoader dataloader, NeuralNetwork model, CrossEntropyLoss lossFn, Device device) {
    int size = dataloader.dataset().size();
    int numBatches = dataloader.numBatches();
    model.eval();
    double testLoss = 0;
    double correct = 0;
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      for (Batch batch : dataloader) {
        Tensor x = batch.inputs().to(device);
        Tensor y = batch.targets().to(device);
        Tensor pred = model.forward(x);
        testLoss += lossFn.forward(pred, y).item(); // costs time: HostSyncInLoop
        correct += pred.argmax(1).eq(y).to(DType.FLOAT32).sum().item(); // costs time: HostSyncInLoop
      }
    }
    testLoss /= numBatches;
    correct /= size;
    System.out.printf("Test Error: %n Accuracy: %.1f%%, Avg loss: %8f %n", 100 * correct, testLoss);
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    TensorDataset trainingData = new TensorDataset(Tensor.rand(Shape.of(128, 1, 28, 28)), Tensor.randint(0, 10, Shape.of(128)));
    TensorDataset testData = new TensorDataset(Tensor.rand(Shape.of(64, 1, 28, 28)), Tensor.randint(0, 10, Shape.of(64)));
    int batchSize = 64;
    DataLoader trainDataloader = DataLoader.builder(trainingData).batchSize(batchSize).build();
    DataLoader testDataloader = DataLoader.builder(testData).batchSize(batchSize).build();
    System.out.println("Using " + device + " device");
    NeuralNetwork model = new NeuralNetwork();
    model.toDevice(device);
    CrossEntropyLoss lossFn = new CrossEntropyLoss();
    Sgd optimizer = new Sgd(model.parameters(), 1e-3);
    int epochs = 2;
    for (int t = 0; t < epochs; t++) {
      System.out.println("Epoch " + (t + 1) + "\n-------------------------------");
      train(trainDataloader, model, lossFn, optimizer, device);
      test(testDataloader, model, lossFn, device);
    }
    System.out.println("Done!");
  }
}
