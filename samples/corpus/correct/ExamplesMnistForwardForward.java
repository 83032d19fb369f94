package corpus.correct;

import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Parameter;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.data.Batch;
import dev.ondevice.data.DataLoader;
import dev.ondevice.data.TensorDataset;
import dev.ondevice.nn.Model;
import dev.ondevice.optim.Adam;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * The forward-forward MNIST example of pytorch/examples: each layer is trained on its own with its
 * own Adam optimizer to give high "goodness" to images overlaid with their true label and low
 * goodness to images overlaid with a wrong label; prediction overlays each label in turn and picks
 * the one with the highest total goodness.
 *
 * <p>Source: https://github.com/pytorch/examples/blob/16d4ca4c6d003109741fcc1b3810c4d174ae051c/mnist_forward_forward/main.py
 *
 * <p>Ported: get_y_neg, overlay_y_on_x, Net (predict, train) and Layer (forward, train) as written,
 * and the main block with one training batch and one test batch. {@code Layer} subclasses {@code
 * nn.Linear} there; here it holds its weight and bias; Net keeps its layers in a plain list, as there. {@code get_y_neg} reads each label with
 * {@code item()} and draws a different one; the drawn labels are written on the host and moved with
 * {@code y_neg.to(device)} as in the original. {@code overlay_y_on_x}'s index assignment {@code x_[range(n), y] =
 * x.max()} is written as zeroing the first ten pixels and adding a one-hot of {@code y} times {@code
 * x.max()}. {@code x.norm(2, 1, keepdim=True)} is written as the square root of the sum of squares.
 * Left out: argparse (epochs 1000 shortened to 5), MNIST download and transforms, saving.
 *
 * <p>Outcome: completes
 */
public final class ExamplesMnistForwardForward {
  private ExamplesMnistForwardForward() {}

  static final double LR = 0.03;
  static final double THRESHOLD = 2;
  static final int EPOCHS = 5;
  static final int LOG_INTERVAL = 10;

  static Tensor getYNeg(Tensor y, Device device, Random random) {
    long[] labels = y.cpu().toLongArray();
    long[] yNeg = labels.clone();
    for (int idx = 0; idx < labels.length; idx++) {
      List<Long> allowedIndices = new ArrayList<>();
      for (long i = 0; i < 10; i++) {
        allowedIndices.add(i);
      }
      allowedIndices.remove(Long.valueOf(labels[idx]));
      yNeg[idx] = allowedIndices.get(random.nextInt(allowedIndices.size()));
    }
    return Tensor.of(yNeg).to(device); // costs time: CreateThenMove
  }

  static Tensor overlayYOnX(Tensor x, Tensor y) {
    int classes = 10;
    Tensor keep = Tensor.arange(x.size(1), x.device()).ge(classes).to(x.dtype());
    Tensor labelPixels = Tensor.oneHot(y, (int) x.size(1)).to(x.dtype());
    return x.mul(keep.unsqueeze(0)).add(labelPixels.mul(x.max()));
  }

  static Tensor overlayYOnX(Tensor x, int label) {
    Tensor y = Tensor.full(Shape.of(x.size(0)), label, DType.INT64, x.device());
    return overlayYOnX(x, y);
  }

  static final class Layer extends Model {
    final Parameter weight;
    final Parameter bias;
    final Adam opt;
    final double threshold = THRESHOLD;
    final int numEpochs = EPOCHS;

    Layer(int inFeatures, int outFeatures) {
      double bound = 1 / Math.sqrt(inFeatures);
      weight = new Parameter(Tensor.rand(Shape.of(outFeatures, inFeatures)).mul(2 * bound).sub(bound));
      bias = new Parameter(Tensor.rand(Shape.of(outFeatures)).mul(2 * bound).sub(bound));
      opt = new Adam(parameters(), LR);
    }

    Tensor forward(Tensor x) {
      Tensor xDirection = x.div(x.square().sum(1, true).sqrt().add(1e-4));
      return xDirection.matmul(weight.t()).add(bias.unsqueeze(0)).relu();
    }

    Tensor[] trainLayer(Tensor xPos, Tensor xNeg) {
      for (int i = 0; i < numEpochs; i++) {
        Tensor gPos = forward(xPos).pow(2).mean(1);
        Tensor gNeg = forward(xNeg).pow(2).mean(1);
        Tensor loss = Tensor.cat(List.of(gPos.neg().add(threshold), gNeg.sub(threshold))).exp().log1p().mean();
        opt.zeroGrad();
        loss.backward();
        opt.step();
        if (i % LOG_INTERVAL == 0) {
          System.out.println("Loss: " + loss.item()); // costs time: HostSyncInLoop
        }
      }
      return new Tensor[] {forward(xPos).detach(), forward(xNeg).detach()};
    }
  }

  static final class Net {
    final List<Layer> layers = new ArrayList<>();

    Net(int[] dims, Device device) {
      for (int d = 0; d < dims.length - 1; d++) {
        Layer layer = new Layer(dims[d], dims[d + 1]);
        layer.toDevice(device);
        layers.add(layer);
      }
    }

    Tensor predict(Tensor x) {
      List<Tensor> goodnessPerLabel = new ArrayList<>();
      for (int label = 0; label < 10; label++) {
        Tensor h = overlayYOnX(x, label);
        Tensor goodness = null;
        for (Layer layer : layers) {
          h = layer.forward(h);
          Tensor g = h.pow(2).mean(1);
          goodness = goodness == null ? g : goodness.add(g);
        }
        goodnessPerLabel.add(goodness.unsqueeze(1));
      }
      return Tensor.cat(goodnessPerLabel, 1).argmax(1);
    }

    void train(Tensor xPos, Tensor xNeg) {
      Tensor hPos = xPos;
      Tensor hNeg = xNeg;
      for (int i = 0; i < layers.size(); i++) {
        System.out.println("training layer: " + i);
        Tensor[] h = layers.get(i).trainLayer(hPos, hNeg);
        hPos = h[0];
        hNeg = h[1];
      }
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    Random random = new Random(1);
    TensorDataset train = new TensorDataset(Tensor.randn(64, 784), Tensor.randint(0, 10, Shape.of(64)));
    TensorDataset test = new TensorDataset(Tensor.randn(32, 784), Tensor.randint(0, 10, Shape.of(32)));
    DataLoader trainLoader = DataLoader.builder(train).batchSize(64).shuffle(1).pinMemory(true).build();
    DataLoader testLoader = DataLoader.builder(test).batchSize(32).shuffle(1).pinMemory(true).build();
    Net net = new Net(new int[] {784, 50, 50}, device);
    Batch first = trainLoader.iterator().next();
    Tensor x = first.inputs().to(device);
    Tensor y = first.targets().to(device);
    Tensor xPos = overlayYOnX(x, y);
    Tensor yNeg = getYNeg(y, device, random);
    Tensor xNeg = overlayYOnX(x, yNeg);
    net.train(xPos, xNeg);
    System.out.println("train error: " + (1.0 - net.predict(x).eq(y).to(DType.FLOAT32).mean().item()));
    Batch testBatch = testLoader.iterator().next();
    Tensor xTe = testBatch.inputs().to(device);
    Tensor yTe = testBatch.targets().to(device);
    System.out.println("test error: " + (1.0 - net.predict(xTe).eq(yTe).to(DType.FLOAT32).mean().item()));
  }
}
