package corpus.correct;

import dev.ondevice.Autograd;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.data.Batch;
import dev.ondevice.data.DataLoader;
import dev.ondevice.data.TensorDataset;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.optim.Adam;
import java.util.List;

/**
 * The PyTorch VAE example: an MLP VAE whose {@code reparameterize} draws {@code randn_like(std)} on
 * the activations' device, trained with {@code loss_function(recon_x, x, mu, logvar)}, a summed
 * binary cross-entropy plus the KL divergence, and sampled from after each epoch.
 *
 * <p>Source: https://github.com/pytorch/examples/blob/main/vae/main.py
 *
 * <p>Ported: VAE (encode, reparameterize, decode, forward), loss_function, train and test (both read
 * {@code loss.item()} on every batch, as the original does) and the sampling of main, including
 * {@code torch.randn(64, 20).to(device)}; module globals are static fields. The API has no
 * binary_cross_entropy: it is written out as PyTorch defines it (each log clamped at -100, summed).
 * Left out: argparse, torchvision's MNIST (random images in [0, 1]), save_image (the tensors it would
 * save are still built and copied to the CPU).
 *
 * <p>Outcome: completes
 */
public final class ExamplesVaeLossFunction {
  private ExamplesVaeLossFunction() {}

  record VaeOutput(Tensor recon, Tensor mu, Tensor logvar) {}

  static final class VAE extends Model {
    final Linear fc1 = new Linear(784, 400);
    final Linear fc21 = new Linear(400, 20);
    final Linear fc22 = new Linear(400, 20);
    final Linear fc3 = new Linear(20, 400);
    final Linear fc4 = new Linear(400, 784);

    List<Tensor> encode(Tensor x) {
      Tensor h1 = fc1.forward(x).relu();
      return List.of(fc21.forward(h1), fc22.forward(h1));
    }

    Tensor reparameterize(Tensor mu, Tensor logvar) {
      Tensor std = logvar.mul(0.5).exp();
      Tensor eps = Tensor.randnLike(std);
      return mu.add(eps.mul(std));
    }

    Tensor decode(Tensor z) {
      Tensor h3 = fc3.forward(z).relu();
      return fc4.forward(h3).sigmoid();
    }

    VaeOutput forward(Tensor x) {
      List<Tensor> muLogvar = encode(x.view(-1, 784));
      Tensor z = reparameterize(muLogvar.get(0), muLogvar.get(1));
      return new VaeOutput(decode(z), muLogvar.get(0), muLogvar.get(1));
    }
  }

  static Device device;
  static VAE model;
  static Adam optimizer;
  static DataLoader trainLoader;
  static DataLoader testLoader;
  static int batchSize = 8;
  static int logInterval = 2;

  /** Reconstruction + KL divergence losses summed over all elements and batch. */
  static Tensor lossFunction(Tensor reconX, Tensor x, Tensor mu, Tensor logvar) {
    Tensor target = x.view(-1, 784);
    Tensor bce = target.mul(reconX.log().clampMin(-100))
        .add(target.rsub(1).mul(reconX.rsub(1).log().clampMin(-100))).sum().neg();
    // 0.5 * sum(1 + log(sigma^2) - mu^2 - sigma^2)
    Tensor kld = logvar.add(1).sub(mu.pow(2)).sub(logvar.exp()).sum().mul(-0.5);
    return bce.add(kld);
  }

  static void train(int epoch) {
    model.train();
    double trainLoss = 0;
    int batchIdx = 0;
    for (Batch batch : trainLoader) {
      Tensor data = batch.inputs().to(device);
      optimizer.zeroGrad();
      VaeOutput out = model.forward(data);
      Tensor loss = lossFunction(out.recon(), data, out.mu(), out.logvar());
      loss.backward();
      trainLoss += loss.item(); // costs time: HostSyncInLoop
      optimizer.step();
      if (batchIdx % logInterval == 0) {
        System.out.printf("Train Epoch: %d [%d]\tLoss: %.6f%n", epoch, batchIdx * data.size(0),
            loss.item() / data.size(0));
      }
      batchIdx++;
    }
    System.out.printf("====> Epoch: %d Average loss: %.4f%n", epoch, trainLoss / trainLoader.dataset().size());
  }

  static void test(int epoch) {
    model.eval();
    double testLoss = 0;
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      int i = 0;
      for (Batch batch : testLoader) {
        Tensor data = batch.inputs().to(device);
        VaeOutput out = model.forward(data);
        testLoss += lossFunction(out.recon(), data, out.mu(), out.logvar()).item(); // costs time: HostSyncInLoop
        if (i == 0) {
          long n = Math.min(data.size(0), 8);
          Tensor comparison = Tensor.cat(List.of(data.slice(0, 0, n),
              out.recon().view(batchSize, 1, 28, 28).slice(0, 0, n)));
          System.out.println("reconstruction_" + epoch + ": " + comparison.cpu().shape());
        }
        i++;
      }
    }
    testLoss /= testLoader.dataset().size();
    System.out.printf("====> Test set loss: %.4f%n", testLoss);
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    ExamplesVaeLossFunction.device = device;
    trainLoader = DataLoader.builder(new TensorDataset(Tensor.rand(Shape.of(24, 1, 28, 28)),
        Tensor.zeros(24))).batchSize(batchSize).shuffle(1).build();
    testLoader = DataLoader.builder(new TensorDataset(Tensor.rand(Shape.of(16, 1, 28, 28)),
        Tensor.zeros(16))).batchSize(batchSize).build();
    model = new VAE();
    model.toDevice(device);
    optimizer = new Adam(model.parameters(), 1e-3);
    for (int epoch = 1; epoch <= 2; epoch++) {
      train(epoch);
      test(epoch);
      try (Autograd.Scope ignored = Autograd.noGrad()) {
        Tensor sample = Tensor.randn(64, 20).to(device); // costs time: CreateThenMove
        sample = model.decode(sample).cpu();
        System.out.println("sample_" + epoch + ": " + sample.view(64, 1, 28, 28).shape());
      }
    }
  }
}
