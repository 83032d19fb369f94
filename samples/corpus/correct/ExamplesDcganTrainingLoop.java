package corpus.correct;

import dev.ondevice.Autograd;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.data.Batch;
import dev.ondevice.data.DataLoader;
import dev.ondevice.data.TensorDataset;
import dev.ondevice.nn.BatchNorm;
import dev.ondevice.nn.BatchNorm1d;
import dev.ondevice.nn.BatchNorm2d;
import dev.ondevice.nn.BceWithLogitsLoss;
import dev.ondevice.nn.Conv2d;
import dev.ondevice.nn.Flatten;
import dev.ondevice.nn.LeakyReLU;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.nn.ReLU;
import dev.ondevice.nn.Sequential;
import dev.ondevice.nn.Tanh;
import dev.ondevice.optim.Adam;

/**
 * The PyTorch DCGAN example's training loop: both networks moved to the device, {@code fixed_noise}
 * and each step's noise drawn with {@code device=device}, the label made by {@code torch.full(...,
 * device=device)} and refilled in place, and the three D/G statistics read with {@code .item()}.
 *
 * <p>Source: https://github.com/pytorch/examples/blob/main/dcgan/main.py
 *
 * <p>Ported: weights_init (applied after the move, as in the original), Generator and Discriminator
 * with a main Sequential and a forward that views the output, the optimizers, and the loop body
 * step by step, including the per-iteration print. The API has no ConvTranspose2d: the generator is
 * Linear layers reshaped to an image. It has no BCELoss: the discriminator ends without its Sigmoid
 * and BCEWithLogitsLoss stands in (the printed D(x) applies the sigmoid). Left out: argparse, the
 * datasets (random 16x16 images), the ngpu data_parallel branch, save_image and checkpoints.
 *
 * <p>Outcome: completes
 */
public final class ExamplesDcganTrainingLoop {
  private ExamplesDcganTrainingLoop() {}

  static final int NZ = 16;
  static final int NGF = 16;
  static final int NDF = 8;
  static final int NC = 3;

  static void weightsInit(Model m) {
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      if (m instanceof Conv2d c) {
        c.weight().copyFrom(Tensor.randnLike(c.weight()).mul(0.02));
      } else if (m instanceof BatchNorm b) {
        b.weight().copyFrom(Tensor.randnLike(b.weight()).mul(0.02).add(1.0));
        b.bias().fill(0);
      }
    }
  }

  static final class Generator extends Model {
    final Sequential main = new Sequential(new Flatten(), new Linear(NZ, NGF * 8, false, Device.cpu()),
        new BatchNorm1d(NGF * 8), new ReLU(), new Linear(NGF * 8, NC * 16 * 16, false, Device.cpu()), new Tanh());

    Tensor forward(Tensor input) {
      Tensor output = main.forward(input);
      return output.view(-1, NC, 16, 16);
    }
  }

  static final class Discriminator extends Model {
    final Sequential main = new Sequential(
        new Conv2d(NC, NDF, 4, 2, 1, false), new LeakyReLU(0.2),
        new Conv2d(NDF, NDF * 2, 4, 2, 1, false), new BatchNorm2d(NDF * 2), new LeakyReLU(0.2),
        new Conv2d(NDF * 2, 1, 4, 1, 0, false));

    Tensor forward(Tensor input) {
      Tensor output = main.forward(input);
      return output.view(-1, 1).squeeze(1);
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    int batchSize = 8;
    int niter = 2;
    DataLoader dataloader = DataLoader.builder(new TensorDataset(Tensor.rand(Shape.of(24, NC, 16, 16)).mul(2).sub(1),
        Tensor.zeros(24))).batchSize(batchSize).shuffle(3).build();

    Generator netG = new Generator();
    netG.toDevice(device);
    netG.apply(ExamplesDcganTrainingLoop::weightsInit);
    Discriminator netD = new Discriminator();
    netD.toDevice(device);
    netD.apply(ExamplesDcganTrainingLoop::weightsInit);

    BceWithLogitsLoss criterion = new BceWithLogitsLoss();
    Tensor fixedNoise = Tensor.randn(Shape.of(batchSize, NZ, 1, 1), device);
    double realLabel = 1;
    double fakeLabel = 0;
    Adam optimizerD = new Adam(netD.parameters(), 2e-4).betas(0.5, 0.999);
    Adam optimizerG = new Adam(netG.parameters(), 2e-4).betas(0.5, 0.999);

    for (int epoch = 0; epoch < niter; epoch++) {
      int i = 0;
      for (Batch data : dataloader) {
        // (1) Update D network: maximize log(D(x)) + log(1 - D(G(z)))
        netD.zeroGrad();
        Tensor realCpu = data.inputs().to(device);
        long b = realCpu.size(0);
        Tensor label = Tensor.full(Shape.of(b), realLabel, realCpu.dtype(), device);
        Tensor output = netD.forward(realCpu);
        Tensor errDReal = criterion.forward(output, label);
        errDReal.backward();
        double dX = output.sigmoid().mean().item(); // costs time: HostSyncInLoop

        Tensor noise = Tensor.randn(Shape.of(b, NZ, 1, 1), device);
        Tensor fake = netG.forward(noise);
        label.fill(fakeLabel);
        output = netD.forward(fake.detach());
        Tensor errDFake = criterion.forward(output, label);
        errDFake.backward();
        double dGz1 = output.sigmoid().mean().item(); // costs time: HostSyncInLoop
        Tensor errD = errDReal.add(errDFake);
        optimizerD.step();

        // (2) Update G network: maximize log(D(G(z)))
        netG.zeroGrad();
        label.fill(realLabel); // fake labels are real for generator cost
        output = netD.forward(fake);
        Tensor errG = criterion.forward(output, label);
        errG.backward();
        double dGz2 = output.sigmoid().mean().item(); // costs time: HostSyncInLoop
        optimizerG.step();

        System.out.printf("[%d/%d][%d/%d] Loss_D: %.4f Loss_G: %.4f D(x): %.4f D(G(z)): %.4f / %.4f%n", epoch, niter,
            i, dataloader.numBatches(), errD.item(), errG.item(), dX, dGz1, dGz2); // costs time: HostSyncInLoop
        if (i % 100 == 0) {
          Tensor fixedFake = netG.forward(fixedNoise);
          System.out.println("fake samples " + fixedFake.detach().shape());
        }
        i++;
      }
    }
  }
}
