package corpus.bugs;

import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.data.Batch;
import dev.ondevice.data.DataLoader;
import dev.ondevice.data.TensorDataset;
import dev.ondevice.nn.Conv2d;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.nn.MseLoss;
import dev.ondevice.optim.Adam;
import java.util.ArrayList;
import java.util.List;

/**
 * explainingai-code's DDPM-Pytorch: {@code tools/train_ddpm.py} builds a {@code LinearNoiseScheduler}
 * (a plain class, not an {@code nn.Module}) whose schedule tensors are made on the CPU in its
 * constructor, moves the model and every batch to the device, samples the timesteps on the device,
 * and calls {@code scheduler.add_noise(im, noise, t)} every step.
 *
 * <p>Source: https://github.com/explainingai-code/DDPM-Pytorch/issues/5 (fixed by commit
 * 751cf952702528c822c04d1c349ac456d4bb2549)
 *
 * <p>Bug: {@code add_noise} indexes the scheduler's CPU {@code sqrt_alpha_cum_prod} and {@code
 * sqrt_one_minus_alpha_cum_prod} with the CUDA timesteps {@code t} ("indices should be either on cpu
 * or on the same device as the indexed tensor"); the fix moves the schedule to {@code
 * original.device} before indexing.
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class DdpmPytorchSchedulerAlphasOnCpu {
  private DdpmPytorchSchedulerAlphasOnCpu() {}

  /** {@code scheduler/linear_noise_scheduler.py}: a plain object holding CPU tensors. */
  static final class LinearNoiseScheduler {
    final int numTimesteps;
    final Tensor betas;
    final Tensor alphas;
    final Tensor alphaCumProd;
    final Tensor sqrtAlphaCumProd;
    final Tensor sqrtOneMinusAlphaCumProd;

    LinearNoiseScheduler(int numTimesteps, double betaStart, double betaEnd) {
      this.numTimesteps = numTimesteps;
      // torch.linspace(beta_start, beta_end, num_timesteps) and torch.cumprod, on the CPU
      double[] b = new double[numTimesteps];
      double[] cum = new double[numTimesteps];
      double c = 1;
      for (int i = 0; i < numTimesteps; i++) {
        b[i] = betaStart + (betaEnd - betaStart) * i / (numTimesteps - 1);
        c *= 1 - b[i];
        cum[i] = c;
      }
      this.betas = Tensor.of(b).to(DType.FLOAT32);
      this.alphas = betas.rsub(1.0);
      this.alphaCumProd = Tensor.of(cum).to(DType.FLOAT32);
      this.sqrtAlphaCumProd = alphaCumProd.sqrt();
      this.sqrtOneMinusAlphaCumProd = alphaCumProd.rsub(1.0).sqrt();
    }

    /** Forward process: {@code sqrt(acp[t]) * x0 + sqrt(1 - acp[t]) * noise}. */
    Tensor addNoise(Tensor original, Tensor noise, Tensor t) {
      long batchSize = original.size(0);
      Tensor sqrtAlphaCumProdT = sqrtAlphaCumProd.indexSelect(0, t).reshape(batchSize); // bug: held-outside-models
      Tensor sqrtOneMinusAlphaCumProdT = sqrtOneMinusAlphaCumProd.indexSelect(0, t).reshape(batchSize); // bug: held-outside-models
      for (int i = 0; i < original.dim() - 1; i++) {
        sqrtAlphaCumProdT = sqrtAlphaCumProdT.unsqueeze(-1);
      }
      for (int i = 0; i < original.dim() - 1; i++) {
        sqrtOneMinusAlphaCumProdT = sqrtOneMinusAlphaCumProdT.unsqueeze(-1);
      }
      return sqrtAlphaCumProdT.to(original.device()).mul(original)
          .add(sqrtOneMinusAlphaCumProdT.to(original.device()).mul(noise));
    }
  }

  /** A small stand-in for {@code models/unet_base.py}: conv in, sinusoidal time embedding, conv out. */
  static final class Unet extends Model {
    static final int T_EMB_DIM = 16;
    final Conv2d convIn = new Conv2d(1, 8, 3, 1, 1, true);
    final Linear tProj = new Linear(T_EMB_DIM, 8);
    final Conv2d convOut = new Conv2d(8, 1, 3, 1, 1, true);

    /** {@code get_time_embedding}: the factor is made on the timesteps' device. */
    static Tensor getTimeEmbedding(Tensor timeSteps, int tembDim) {
      Tensor factor = Tensor.arange(0, tembDim / 2, 1, DType.FLOAT32, timeSteps.device())
          .div(tembDim / 2).mul(Math.log(10000)).exp();
      Tensor tEmb = timeSteps.to(DType.FLOAT32).unsqueeze(1).expand(timeSteps.size(0), tembDim / 2).div(factor);
      return Tensor.cat(List.of(tEmb.sin(), tEmb.cos()), -1);
    }

    Tensor forward(Tensor x, Tensor t) {
      Tensor out = convIn.forward(x);
      Tensor tEmb = tProj.forward(getTimeEmbedding(t, T_EMB_DIM));
      out = out.add(tEmb.unsqueeze(-1).unsqueeze(-1)).relu();
      return convOut.forward(out);
    }
  }

  /** {@code train(args)} with the default config scaled down. */
  public static void run(Device device) {
    int numTimesteps = 1000;
    LinearNoiseScheduler scheduler = new LinearNoiseScheduler(numTimesteps, 0.0001, 0.02);
    TensorDataset mnist = new TensorDataset(Tensor.rand(Shape.of(16, 1, 8, 8)).mul(2).sub(1));
    DataLoader mnistLoader = DataLoader.builder(mnist).batchSize(4).shuffle(0).build();

    Unet model = new Unet();
    model.toDevice(device);
    model.train();
    int numEpochs = 2;
    Adam optimizer = new Adam(model.parameters(), 1e-4);
    MseLoss criterion = new MseLoss();

    for (int epochIdx = 0; epochIdx < numEpochs; epochIdx++) {
      List<Double> losses = new ArrayList<>();
      for (Batch b : mnistLoader) {
        optimizer.zeroGrad();
        Tensor im = b.inputs().to(DType.FLOAT32).to(device);
        Tensor noise = Tensor.randnLike(im).to(device);
        Tensor t = Tensor.randint(0, numTimesteps, Shape.of(im.size(0))).to(device); // costs time: CreateThenMove
        Tensor noisyIm = scheduler.addNoise(im, noise, t); // same bug
        Tensor noisePred = model.forward(noisyIm, t);
        Tensor loss = criterion.forward(noisePred, noise);
        losses.add(loss.item()); // costs time: HostSyncInLoop
        loss.backward();
        optimizer.step();
      }
      System.out.printf("Finished epoch:%d | Loss : %.4f%n", epochIdx + 1,
          losses.stream().mapToDouble(Double::doubleValue).average().orElse(0));
    }
  }
}
