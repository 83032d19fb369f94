package corpus.bugs;

import dev.ondevice.Autograd;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.data.Batch;
import dev.ondevice.data.DataLoader;
import dev.ondevice.data.TensorDataset;
import dev.ondevice.nn.Conv2d;
import dev.ondevice.nn.CrossEntropyLoss;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.MaxPool2d;
import dev.ondevice.nn.Model;
import dev.ondevice.optim.Sgd;

/**
 * Flower's PyTorch quickstart client: a small CIFAR CNN trained and tested locally by a federated
 * client, with module-level {@code train(net, trainloader, epochs)} and {@code test(net,
 * testloader)} functions and a global {@code DEVICE}.
 *
 * <p>Source: https://github.com/flwrlabs/flower/pull/1140
 *
 * <p>Bug: {@code test} moves the images and, for the loss, the labels ({@code labels.to(DEVICE)}
 * inline), but compares the predictions with the unmoved {@code labels}: {@code
 * (torch.max(outputs.data, 1)[1] == labels)} fails on a GPU.
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class FlowerQuickstartTestLabels {
  private FlowerQuickstartTestLabels() {}

  /** {@code DEVICE = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")}. */
  static Device DEVICE = Device.cpu();

  /** The quickstart's {@code Net}, shrunk to 3x8x8 images. */
  static final class Net extends Model {
    final Conv2d conv1 = new Conv2d(3, 6, 3, 1, 1, true);
    final MaxPool2d pool = new MaxPool2d(2);
    final Conv2d conv2 = new Conv2d(6, 8, 3, 1, 1, true);
    final Linear fc1 = new Linear(8 * 2 * 2, 16);
    final Linear fc2 = new Linear(16, 10);

    Tensor forward(Tensor x) {
      x = pool.forward(conv1.forward(x).relu());
      x = pool.forward(conv2.forward(x).relu());
      x = x.flatten(1);
      return fc2.forward(fc1.forward(x).relu());
    }
  }

  static void train(Net net, DataLoader trainloader, int epochs) {
    CrossEntropyLoss criterion = new CrossEntropyLoss();
    Sgd optimizer = new Sgd(net.parameters(), 0.001).momentum(0.9);
    for (int e = 0; e < epochs; e++) {
      for (Batch b : trainloader) {
        Tensor images = b.inputs();
        Tensor labels = b.targets();
        optimizer.zeroGrad();
        criterion.forward(net.forward(images.to(DEVICE)), labels.to(DEVICE)).backward();
        optimizer.step();
      }
    }
  }

  static double[] test(Net net, DataLoader testloader) {
    CrossEntropyLoss criterion = new CrossEntropyLoss();
    long correct = 0;
    long total = 0;
    double loss = 0.0;
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      for (Batch b : testloader) {
        Tensor images = b.inputs();
        Tensor labels = b.targets();
        Tensor outputs = net.forward(images.to(DEVICE));
        loss += criterion.forward(outputs, labels.to(DEVICE)).item(); // costs time: HostSyncInLoop
        total += labels.size(0);
        correct += outputs.detach().max(1).indices().eq(labels).sum().itemAsLong(); // bug: in-method
      }
    }
    return new double[] {loss / testloader.dataset().size(), (double) correct / total};
  }

  /** The client's {@code fit} and {@code evaluate}, as Flower calls them in one round. */
  static final class FlowerClient {
    final Net net;
    final DataLoader trainloader;
    final DataLoader testloader;

    FlowerClient(Net net, DataLoader trainloader, DataLoader testloader) {
      this.net = net;
      this.trainloader = trainloader;
      this.testloader = testloader;
    }

    void fit() {
      train(net, trainloader, 1);
    }

    double[] evaluate() {
      return test(net, testloader);
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    DEVICE = device;
    Net net = new Net();
    net.toDevice(DEVICE);
    TensorDataset trainset = new TensorDataset(Tensor.randn(16, 3, 8, 8), Tensor.randint(0, 10, Shape.of(16)));
    TensorDataset testset = new TensorDataset(Tensor.randn(8, 3, 8, 8), Tensor.randint(0, 10, Shape.of(8)));
    FlowerClient client = new FlowerClient(net,
        DataLoader.builder(trainset).batchSize(4).shuffle(0).build(),
        DataLoader.builder(testset).batchSize(4).build());
    client.fit();
    client.evaluate();
  }
}
