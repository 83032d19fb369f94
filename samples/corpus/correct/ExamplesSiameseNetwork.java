package corpus.correct;

import dev.ondevice.Autograd;
import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.data.Batch;
import dev.ondevice.data.DataLoader;
import dev.ondevice.data.TensorDataset;
import dev.ondevice.nn.AvgPool2d;
import dev.ondevice.nn.BatchNorm2d;
import dev.ondevice.nn.Conv2d;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.nn.ReLU;
import dev.ondevice.nn.Sequential;
import dev.ondevice.nn.Sigmoid;
import dev.ondevice.optim.Optimizer;
import dev.ondevice.optim.Sgd;
import dev.ondevice.optim.StepLr;
import java.util.List;

/**
 * The Siamese network example of pytorch/examples: a shared feature extractor embeds two images,
 * the concatenated features go through linear layers and a sigmoid, and BCE trains it to tell
 * whether the two images show the same digit; {@code train} and {@code test} move the image pairs and
 * targets to the device, {@code test} counts correct predictions from {@code torch.where(outputs >
 * 0.5, 1, 0)}.
 *
 * <p>Source: https://github.com/pytorch/examples/blob/11cb38f9a39476055dc6e0a1a6f287300a4da989/siamese_network/main.py
 *
 * <p>Ported: SiameseNetwork (forward_once, forward), train and test as written, the main loop with
 * StepLR(step_size=1, gamma=0.7). The ResNet-18 trunk is replaced by a small conv stack; {@code
 * nn.BCELoss} (not in this API) is written out as {@code -(t log o + (1 - t) log(1 - o))}; Adadelta
 * (not in this API) is replaced by SGD; the APP_MATCHER pairs of MNIST images by random pairs with
 * random 0/1 targets. Left out: argparse, init_weights, saving.
 *
 * <p>Outcome: completes
 */
public final class ExamplesSiameseNetwork {
  private ExamplesSiameseNetwork() {}

  static final class SiameseNetwork extends Model {
    final Sequential resnet = new Sequential(
        new Conv2d(1, 16, 7, 2, 3, false), new BatchNorm2d(16), new ReLU(), new AvgPool2d(14));
    final int fcInFeatures = 16;
    final Sequential fc = new Sequential(new Linear(fcInFeatures * 2, 256), new ReLU(), new Linear(256, 1));
    final Sigmoid sigmoid = new Sigmoid();

    Tensor forwardOnce(Tensor x) {
      Tensor output = resnet.forward(x);
      return output.view(output.size(0), -1);
    }

    Tensor forward(Tensor input1, Tensor input2) {
      Tensor output1 = forwardOnce(input1);
      Tensor output2 = forwardOnce(input2);
      Tensor output = Tensor.cat(List.of(output1, output2), 1);
      output = fc.forward(output);
      return sigmoid.forward(output);
    }
  }

  /** nn.BCELoss(): mean binary cross entropy of probabilities. */
  static Tensor bceLoss(Tensor outputs, Tensor targets) {
    Tensor o = outputs.clamp(1e-12, 1 - 1e-7);
    return targets.mul(o.log()).add(targets.rsub(1).mul(o.rsub(1).log())).neg().mean();
  }

  static void train(SiameseNetwork model, Device device, DataLoader trainLoader, Optimizer optimizer, int epoch) {
    model.train();
    int batchIdx = 0;
    for (Batch batch : trainLoader) {
      Tensor images1 = batch.tensor(0).to(device);
      Tensor images2 = batch.tensor(1).to(device);
      Tensor targets = batch.tensor(2).to(device);
      optimizer.zeroGrad();
      Tensor outputs = model.forward(images1, images2).squeeze();
      Tensor loss = bceLoss(outputs, targets);
      loss.backward();
      optimizer.step();
      if (batchIdx % 10 == 0) {
        double lossValue = loss.item(); // costs time: HostSyncInLoop
        System.out.printf("Train Epoch: %d [%d]\tLoss: %.6f%n", epoch, batchIdx * images1.size(0), lossValue);
      }
      batchIdx++;
    }
  }

  static void test(SiameseNetwork model, Device device, DataLoader testLoader, int datasetSize) {
    model.eval();
    double testLoss = 0;
    long correct = 0;
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      for (Batch batch : testLoader) {
        Tensor images1 = batch.tensor(0).to(device);
        Tensor images2 = batch.tensor(1).to(device);
        Tensor targets = batch.tensor(2).to(device);
        Tensor outputs = model.forward(images1, images2).squeeze();
        testLoss += bceLoss(outputs, targets).sum().item(); // costs time: HostSyncInLoop
        Tensor pred = Tensor.where(outputs.gt(0.5), Tensor.onesLike(outputs), Tensor.zerosLike(outputs));
        correct += pred.eq(targets.view(pred.shape().toArray())).sum().itemAsLong(); // costs time: HostSyncInLoop
      }
    }
    testLoss /= datasetSize;
    System.out.printf("%nTest set: Average loss: %.4f, Accuracy: %d/%d%n", testLoss, correct, datasetSize);
  }

  static TensorDataset pairs(int n) {
    return new TensorDataset(Tensor.randn(n, 1, 28, 28), Tensor.randn(n, 1, 28, 28),
        Tensor.randint(0, 2, Shape.of(n)).to(DType.FLOAT32));
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    DataLoader trainLoader = DataLoader.builder(pairs(32)).batchSize(8).shuffle(1).pinMemory(true).build();
    DataLoader testLoader = DataLoader.builder(pairs(16)).batchSize(8).shuffle(1).pinMemory(true).build();
    SiameseNetwork model = new SiameseNetwork();
    model.toDevice(device);
    Sgd optimizer = new Sgd(model.parameters(), 0.1);
    StepLr scheduler = new StepLr(optimizer, 1, 0.7);
    for (int epoch = 1; epoch <= 2; epoch++) {
      train(model, device, trainLoader, optimizer, epoch);
      test(model, device, testLoader, 16);
      scheduler.step();
    }
  }
}
