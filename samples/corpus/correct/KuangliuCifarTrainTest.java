package corpus.correct;

import dev.ondevice.Autograd;
import dev.ondevice.Device;
import dev.ondevice.Pooling;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.data.Batch;
import dev.ondevice.data.DataLoader;
import dev.ondevice.data.TensorDataset;
import dev.ondevice.io.Checkpoint;
import dev.ondevice.nn.Conv2d;
import dev.ondevice.nn.CrossEntropyLoss;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.optim.CosineAnnealingLr;
import dev.ondevice.optim.Sgd;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * kuangliu's "Train CIFAR10 with PyTorch": {@code device = 'cuda' if torch.cuda.is_available() else
 * 'cpu'}, the network moved once with {@code net.to(device)}, SGD with momentum and weight decay,
 * a cosine schedule stepped per epoch, and the two helpers {@code train(epoch)} and {@code
 * test(epoch)} that move each batch (inputs and targets) to the device, keep running loss and
 * accuracy for the progress bar, and save a checkpoint whenever the test accuracy improves.
 *
 * <p>Source: https://github.com/kuangliu/pytorch-cifar/blob/49b7aa97b0c12fe0d4054e670403a16b6b834ddd/main.py
 * (with models/lenet.py)
 *
 * <p>Ported: main.py's model setup, optimizer, scheduler, train(), test() with the best-accuracy
 * checkpoint, and the epoch loop, with the LeNet of models/lenet.py (one of the commented choices;
 * main.py builds SimpleDLA). Left out: torchvision's CIFAR-10 and its transforms (random tensors in
 * a TensorDataset instead), DataParallel, cudnn.benchmark, --resume and the argparse options;
 * progress_bar prints one line per batch; the checkpoint goes to a temporary directory.
 *
 * <p>Outcome: completes
 */
public final class KuangliuCifarTrainTest {
  private KuangliuCifarTrainTest() {}

  /** LeNet in PyTorch. */
  static final class LeNet extends Model {
    final Conv2d conv1 = new Conv2d(3, 6, 5);
    final Conv2d conv2 = new Conv2d(6, 16, 5);
    final Linear fc1 = new Linear(16 * 5 * 5, 120);
    final Linear fc2 = new Linear(120, 84);
    final Linear fc3 = new Linear(84, 10);

    Tensor forward(Tensor x) {
      Tensor out = conv1.forward(x).relu();
      out = Pooling.maxPool2d(out, 2, 2, 0);
      out = conv2.forward(out).relu();
      out = Pooling.maxPool2d(out, 2, 2, 0);
      out = out.view(out.size(0), -1);
      out = fc1.forward(out).relu();
      out = fc2.forward(out).relu();
      return fc3.forward(out);
    }
  }

  static Device device;
  static double bestAcc = 0; // best test accuracy
  static LeNet net;
  static CrossEntropyLoss criterion;
  static Sgd optimizer;
  static DataLoader trainloader;
  static DataLoader testloader;
  static Path checkpointDir;

  static void progressBar(int batchIdx, int total, String msg) {
    System.out.printf("[%d/%d] %s%n", batchIdx + 1, total, msg);
  }

  // Training
  static void train(int epoch) {
    System.out.printf("%nEpoch: %d%n", epoch);
    net.train();
    double trainLoss = 0;
    long correct = 0;
    long total = 0;
    int batchIdx = 0;
    for (Batch b : trainloader) {
      Tensor inputs = b.inputs().to(device);
      Tensor targets = b.targets().to(device);
      optimizer.zeroGrad();
      Tensor outputs = net.forward(inputs);
      Tensor loss = criterion.forward(outputs, targets);
      loss.backward();
      optimizer.step();

      trainLoss += loss.item(); // costs time: HostSyncInLoop
      Tensor predicted = outputs.max(1).indices();
      total += targets.size(0);
      correct += predicted.eq(targets).sum().itemAsLong(); // costs time: HostSyncInLoop

      progressBar(batchIdx, trainloader.numBatches(), String.format("Loss: %.3f | Acc: %.3f%% (%d/%d)",
          trainLoss / (batchIdx + 1), 100. * correct / total, correct, total));
      batchIdx++;
    }
  }

  static void test(int epoch) throws Exception {
    net.eval();
    double testLoss = 0;
    long correct = 0;
    long total = 0;
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      int batchIdx = 0;
      for (Batch b : testloader) {
        Tensor inputs = b.inputs().to(device);
        Tensor targets = b.targets().to(device);
        Tensor outputs = net.forward(inputs);
        Tensor loss = criterion.forward(outputs, targets);

        testLoss += loss.item(); // costs time: HostSyncInLoop
        Tensor predicted = outputs.max(1).indices();
        total += targets.size(0);
        correct += predicted.eq(targets).sum().itemAsLong(); // costs time: HostSyncInLoop

        progressBar(batchIdx, testloader.numBatches(), String.format("Loss: %.3f | Acc: %.3f%% (%d/%d)",
            testLoss / (batchIdx + 1), 100. * correct / total, correct, total));
        batchIdx++;
      }
    }
    // Save checkpoint.
    double acc = 100. * correct / total;
    if (acc > bestAcc) {
      System.out.println("Saving..");
      Checkpoint.save(checkpointDir.resolve("ckpt.safetensors"), net, null);
      bestAcc = acc;
    }
  }

  public static void run(Device dev) throws Exception {
    device = dev;
    TensorDataset trainset = new TensorDataset(Tensor.randn(Shape.of(32, 3, 32, 32)), Tensor.randint(0, 10, Shape.of(32)));
    trainloader = DataLoader.builder(trainset).batchSize(8).shuffle(0).build();
    TensorDataset testset = new TensorDataset(Tensor.randn(Shape.of(16, 3, 32, 32)), Tensor.randint(0, 10, Shape.of(16)));
    testloader = DataLoader.builder(testset).batchSize(8).build();

    // Model
    net = new LeNet();
    net.toDevice(device);

    criterion = new CrossEntropyLoss();
    optimizer = new Sgd(net.parameters(), 0.1).momentum(0.9).weightDecay(5e-4);
    CosineAnnealingLr scheduler = new CosineAnnealingLr(optimizer, 200);
    checkpointDir = Files.createTempDirectory("checkpoint");

    for (int epoch = 0; epoch < 2; epoch++) {
      train(epoch);
      test(epoch);
      scheduler.step();
    }
  }
}
