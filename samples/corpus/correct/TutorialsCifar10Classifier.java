package corpus.correct;

import dev.ondevice.Autograd;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.ValuesAndIndices;
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
 * The "Training a Classifier" (CIFAR-10) tutorial with its "Training on GPU" section applied: the
 * {@code Net} (two conv/pool layers and three linear layers) is moved with {@code
 * net.to(device)}, each mini-batch with {@code inputs, labels = data[0].to(device),
 * data[1].to(device)}; the loop accumulates {@code running_loss += loss.item()} and prints it every
 * 2000 mini-batches; the test loop counts {@code (predicted == labels).sum().item()} per batch under
 * {@code torch.no_grad()}.
 *
 * <p>Source: https://github.com/pytorch/tutorials/blob/main/beginner_source/blitz/cifar10_tutorial.py
 *
 * <p>Ported: Net, the training loop and the accuracy loop as written (printing every 4 mini-batches
 * instead of 2000), SGD with momentum 0.9. The images are small random 3x32x32 tensors. Left out:
 * image display, saving and reloading the weights, the per-class accuracy.
 *
 * <p>Outcome: completes
 */
public final class TutorialsCifar10Classifier {
  private TutorialsCifar10Classifier() {}

  static final class Net extends Model {
    final Conv2d conv1 = new Conv2d(3, 6, 5);
    final MaxPool2d pool = new MaxPool2d(2);
    final Conv2d conv2 = new Conv2d(6, 16, 5);
    final Linear fc1 = new Linear(16 * 5 * 5, 120);
    final Linear fc2 = new Linear(120, 84);
    final Linear fc3 = new Linear(84, 10);

    Tensor forward(Tensor x) {
      x = pool.forward(conv1.forward(x).relu());
      x = pool.forward(conv2.forward(x).relu());
      x = x.flatten(1);
      x = fc1.forward(x).relu();
      x = fc2.forward(x).relu();
      return fc3.forward(x);
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    System.out.println(device);
    TensorDataset trainset = new TensorDataset(Tensor.rand(Shape.of(64, 3, 32, 32)), Tensor.randint(0, 10, Shape.of(64)));
    TensorDataset testset = new TensorDataset(Tensor.rand(Shape.of(32, 3, 32, 32)), Tensor.randint(0, 10, Shape.of(32)));
    int batchSize = 4;
    DataLoader trainloader = DataLoader.builder(trainset).batchSize(batchSize).shuffle(0).build();
    DataLoader testloader = DataLoader.builder(testset).batchSize(batchSize).build();

    Net net = new Net();
    net.toDevice(device);
    CrossEntropyLoss criterion = new CrossEntropyLoss();
    Sgd optimizer = new Sgd(net.parameters(), 0.001).momentum(0.9);

    for (int epoch = 0; epoch < 2; epoch++) {
      double runningLoss = 0.0;
      int i = 0;
      for (Batch data : trainloader) {
        Tensor inputs = data.inputs().to(device);
        Tensor labels = data.targets().to(device);
        optimizer.zeroGrad();
        Tensor outputs = net.forward(inputs);
        Tensor loss = criterion.forward(outputs, labels);
        loss.backward();
        optimizer.step();
        runningLoss += loss.item(); // costs time: HostSyncInLoop
        if (i % 4 == 3) {
          System.out.printf("[%d, %5d] loss: %.3f%n", epoch + 1, i + 1, runningLoss / 4);
          runningLoss = 0.0;
        }
        i++;
      }
    }
    System.out.println("Finished Training");

    long correct = 0;
    long total = 0;
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      for (Batch data : testloader) {
        Tensor images = data.inputs().to(device);
        Tensor labels = data.targets().to(device);
        Tensor outputs = net.forward(images);
        ValuesAndIndices max = outputs.max(1);
        Tensor predicted = max.indices();
        total += labels.size(0);
        correct += predicted.eq(labels).sum().itemAsLong(); // costs time: HostSyncInLoop
      }
    }
    System.out.println("Accuracy of the network on the test images: " + (100 * correct / total) + " %");
  }
}
