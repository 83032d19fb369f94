package corpus.bugs;

import dev.ondevice.Autograd;
import dev.ondevice.Device;
import dev.ondevice.Parameter;
import dev.ondevice.Tensor;
import dev.ondevice.data.DataLoader;
import dev.ondevice.data.TensorDataset;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.optim.Adam;
import java.util.List;

/**
 * rosinality's style-based GAN {@code train(args, dataset, generator, discriminator)} with the R1
 * loss: per iteration a discriminator step, every {@code n_critic} iterations a generator step and
 * the running-average generator update, and a progress bar showing the last G and D losses. The
 * R1 gradient penalty (a double backward) is left out of this port.
 *
 * <p>Source: https://github.com/rosinality/style-based-gan-pytorch/pull/50
 *
 * <p>Bug: {@code disc_loss_val = (real_predict + fake_predict).item()} and {@code gen_loss_val =
 * loss.item()} run on every iteration: each waits for the GPU (the PR: "Each call of item() causes
 * synchronization with the GPU"; fix: read them every 10 iterations).
 *
 * <p>Outcome: completes (costs time)
 */
public final class StyleGanTrainLossItem {
  private StyleGanTrainLossItem() {}

  static final int CODE_SIZE = 8;

  static final class Generator extends Model {
    final Linear fc = new Linear(CODE_SIZE, 16);

    Tensor forward(Tensor z) {
      return fc.forward(z).tanh();
    }
  }

  static final class Discriminator extends Model {
    final Linear fc = new Linear(16, 1);

    Tensor forward(Tensor x) {
      return fc.forward(x);
    }
  }

  static void requiresGrad(Model model, boolean flag) {
    for (Parameter p : model.parameters()) {
      p.requiresGrad(flag);
    }
  }

  static void accumulate(Generator model1, Generator model2, double decay) {
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      List<Parameter> par1 = model1.parameters();
      List<Parameter> par2 = model2.parameters();
      for (int k = 0; k < par1.size(); k++) {
        par1.get(k).muli(decay).addi(par2.get(k).detach(), 1 - decay);
      }
    }
  }

  static Tensor softplus(Tensor x) {
    return x.exp().log1p();
  }

  static void train(DataLoader loader, Generator generator, Discriminator discriminator, Generator gRunning,
      Adam gOptimizer, Adam dOptimizer, int iterations, int nCritic, Device device) {
    DataLoader.BatchIterator dataLoader = loader.iterator();
    requiresGrad(generator, false);
    requiresGrad(discriminator, true);
    double discLossVal = 0;
    double genLossVal = 0;
    for (int i = 0; i < iterations; i++) {
      discriminator.zeroGrad();
      if (!dataLoader.hasNext()) {
        dataLoader = loader.iterator();
      }
      Tensor realImage = dataLoader.next().inputs();
      long bSize = realImage.size(0);
      realImage = realImage.to(device);

      Tensor realScores = discriminator.forward(realImage);
      Tensor realPredict = softplus(realScores.neg()).mean();
      realPredict.backward();

      Tensor genIn1 = Tensor.randn(bSize, CODE_SIZE, device);
      Tensor genIn2 = Tensor.randn(bSize, CODE_SIZE, device);
      Tensor fakeImage = generator.forward(genIn1);
      Tensor fakePredict = discriminator.forward(fakeImage);
      fakePredict = softplus(fakePredict).mean();
      fakePredict.backward();
      discLossVal = realPredict.add(fakePredict).item(); // bug: in-method
      dOptimizer.step();

      if ((i + 1) % nCritic == 0) {
        generator.zeroGrad();
        requiresGrad(generator, true);
        requiresGrad(discriminator, false);
        fakeImage = generator.forward(genIn2);
        Tensor predict = discriminator.forward(fakeImage);
        Tensor loss = softplus(predict.neg()).mean();
        genLossVal = loss.item(); // bug: in-method
        loss.backward();
        gOptimizer.step();
        accumulate(gRunning, generator, 0.999);
        requiresGrad(generator, false);
        requiresGrad(discriminator, true);
      }
      System.out.printf("G: %.3f; D: %.3f%n", genLossVal, discLossVal);
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    Generator generator = new Generator();
    Discriminator discriminator = new Discriminator();
    Generator gRunning = new Generator();
    generator.toDevice(device);
    discriminator.toDevice(device);
    gRunning.toDevice(device);
    gRunning.eval();
    accumulate(gRunning, generator, 0);
    Adam gOptimizer = new Adam(generator.parameters(), 0.001).betas(0.0, 0.99);
    Adam dOptimizer = new Adam(discriminator.parameters(), 0.001).betas(0.0, 0.99);
    DataLoader loader = DataLoader.builder(new TensorDataset(Tensor.randn(12, 16))).batchSize(4).shuffle(0).dropLast(true).build();
    train(loader, generator, discriminator, gRunning, gOptimizer, dOptimizer, 6, 1, device);
  }
}
