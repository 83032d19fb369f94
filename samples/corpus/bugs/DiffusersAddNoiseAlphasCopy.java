package corpus.bugs;

import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.data.Batch;
import dev.ondevice.data.DataLoader;
import dev.ondevice.data.TensorDataset;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.nn.MseLoss;
import dev.ondevice.optim.AdamW;
import java.util.List;

/**
 * A diffusion training loop (as in diffusers' training scripts) that noises each batch of latents
 * with {@code DDPMScheduler.add_noise} at timesteps drawn on the GPU before the denoiser predicts
 * the noise.
 *
 * <p>Source: https://github.com/huggingface/diffusers/pull/6704
 *
 * <p>Bug: the scheduler is a plain config object whose {@code alphas_cumprod} stays on the CPU;
 * {@code add_noise} does {@code alphas_cumprod = self.alphas_cumprod.to(device=original_samples.device)}
 * on every call, a host-to-device copy each training step that the PR's profile showed as a
 * bottleneck (the fix keeps the moved tensor on the scheduler).
 *
 * <p>Outcome: completes (costs time)
 */
public final class DiffusersAddNoiseAlphasCopy {
  private DiffusersAddNoiseAlphasCopy() {}

  /** schedulers/scheduling_ddpm.py DDPMScheduler: not a module. */
  static final class DdpmScheduler {
    final int numTrainTimesteps;
    final Tensor alphasCumprod;

    DdpmScheduler(int numTrainTimesteps, double betaStart, double betaEnd) {
      this.numTrainTimesteps = numTrainTimesteps;
      float[] cumprod = new float[numTrainTimesteps];
      double product = 1;
      for (int t = 0; t < numTrainTimesteps; t++) {
        double beta = betaStart + (betaEnd - betaStart) * t / (numTrainTimesteps - 1);
        product *= 1 - beta;
        cumprod[t] = (float) product;
      }
      this.alphasCumprod = Tensor.of(cumprod);
    }

    Tensor addNoise(Tensor originalSamples, Tensor noise, Tensor timesteps) {
      Tensor alphasCumprod = this.alphasCumprod.to(originalSamples.device()); // bug: held-outside-models
      timesteps = timesteps.to(originalSamples.device());
      Tensor alphaProd = alphasCumprod.indexSelect(0, timesteps).view(timesteps.size(0), 1);
      Tensor sqrtAlphaProd = alphaProd.pow(0.5);
      Tensor sqrtOneMinusAlphaProd = alphaProd.rsub(1).pow(0.5);
      return sqrtAlphaProd.mul(originalSamples).add(sqrtOneMinusAlphaProd.mul(noise));
    }
  }

  /** Stands in for the UNet. */
  static final class Denoiser extends Model {
    final Linear fc1 = new Linear(17, 32);
    final Linear fc2 = new Linear(32, 16);

    Tensor forward(Tensor noisy, Tensor timesteps) {
      Tensor t = timesteps.to(noisy.dtype()).div(1000).view(timesteps.size(0), 1);
      return fc2.forward(fc1.forward(Tensor.cat(List.of(noisy, t), 1)).relu());
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    Denoiser unet = new Denoiser();
    unet.toDevice(device);
    DdpmScheduler noiseScheduler = new DdpmScheduler(1000, 1e-4, 2e-2);
    AdamW optimizer = new AdamW(unet.parameters(), 1e-4);
    MseLoss mse = new MseLoss();
    DataLoader loader = DataLoader.builder(new TensorDataset(Tensor.randn(32, 16))).batchSize(8).build();
    for (Batch batch : loader) {
      Tensor latents = batch.inputs().to(device);
      Tensor noise = Tensor.randnLike(latents);
      Tensor timesteps =
          Tensor.randint(0, noiseScheduler.numTrainTimesteps, Shape.of(latents.size(0)), device);
      Tensor noisyLatents = noiseScheduler.addNoise(latents, noise, timesteps);
      Tensor modelPred = unet.forward(noisyLatents, timesteps);
      Tensor loss = mse.forward(modelPred, noise);
      loss.backward();
      optimizer.step();
      optimizer.zeroGrad();
    }
  }
}
