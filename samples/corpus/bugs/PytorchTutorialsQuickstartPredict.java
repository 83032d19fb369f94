package corpus.bugs;

import dev.ondevice.Autograd;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.data.Batch;
import dev.ondevice.data.DataLoader;
import dev.ondevice.data.Example;
import dev.ondevice.data.TensorDataset;
import dev.ondevice.io.Checkpoint;
import dev.ondevice.io.MapLocation;
import dev.ondevice.nn.CrossEntropyLoss;
import dev.ondevice.nn.Flatten;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.nn.ReLU;
import dev.ondevice.nn.Sequential;
import dev.ondevice.optim.Sgd;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The PyTorch quickstart tutorial: trains a FashionMNIST MLP on {@code device}, saves it, reloads
 * it with {@code NeuralNetwork().to(device)} and {@code load_state_dict}, then predicts the class
 * of the first test image.
 *
 * <p>Source: https://github.com/pytorch/tutorials/pull/1890
 *
 * <p>Bug: the prediction step takes {@code x, y = test_data[0][0], test_data[0][1]} and calls
 * {@code pred = model(x)} without {@code x = x.to(device)}: "If device is not 'cpu', model(x)
 * fails".
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class PytorchTutorialsQuickstartPredict {
  private PytorchTutorialsQuickstartPredict() {}

  static final String[] CLASSES = {"T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt",
      "Sneaker", "Bag", "Ankle boot"};

  static final class NeuralNetwork extends Model {
    final Flatten flatten = new Flatten();
    final Sequential linearReluStack = new Sequential(
        new Linear(8 * 8, 32), new ReLU(), new Linear(32, 32), new ReLU(), new Linear(32, 10));

    Tensor forward(Tensor x) {
      return linearReluStack.forward(flatten.forward(x));
    }
  }

  static void train(DataLoader dataloader, NeuralNetwork model, CrossEntropyLoss lossFn, Sgd optimizer, Device device) {
    model.train();
    for (Batch b : dataloader) {
      Tensor x = b.inputs().to(device);
      Tensor y = b.targets().to(device);
      Tensor loss = lossFn.forward(model.forward(x), y);
      loss.backward();
      optimizer.step();
      optimizer.zeroGrad();
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    TensorDataset trainingData = new TensorDataset(Tensor.rand(Shape.of(16, 1, 8, 8)), Tensor.randint(0, 10, Shape.of(16)));
    TensorDataset testData = new TensorDataset(Tensor.rand(Shape.of(8, 1, 8, 8)), Tensor.randint(0, 10, Shape.of(8)));
    DataLoader trainDataloader = DataLoader.builder(trainingData).batchSize(4).build();

    NeuralNetwork model = new NeuralNetwork();
    model.toDevice(device);
    CrossEntropyLoss lossFn = new CrossEntropyLoss();
    Sgd optimizer = new Sgd(model.parameters(), 1e-3);
    train(trainDataloader, model, lossFn, optimizer, device);

    Path dir = Files.createTempDirectory("quickstart");
    Path file = dir.resolve("model.safetensors");
    Checkpoint.save(file, model, null);

    model = new NeuralNetwork();
    model.toDevice(device);
    Checkpoint.restore(file, model, null, MapLocation.to(device));

    model.eval();
    Example first = testData.get(0);
    Tensor x = first.input();
    Tensor y = first.target();
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      Tensor pred = model.forward(x); // bug: in-method
      String predicted = CLASSES[(int) pred.select(0, 0).argmax(0).itemAsLong()];
      String actual = CLASSES[(int) y.itemAsLong()];
      System.out.println("Predicted: \"" + predicted + "\", Actual: \"" + actual + "\"");
    } finally {
      Files.deleteIfExists(file);
      Files.deleteIfExists(dir);
    }
  }
}
