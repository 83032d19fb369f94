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
import dev.ondevice.optim.Adam;

/**
 * DDPM training step (mattroz/diffusion-ddpm): a plain {@code DDPMPipeline} object precomputes the
 * noise schedule in its constructor, and the training loop noises each batch at random timesteps
 * drawn on the training device before the model predicts the noise.
 *
 * <p>Source: https://github.com/mattroz/diffusion-ddpm/issues/5
 *
 * <p>Bug: {@code DDPMPipeline} is not a module; {@code self.alphas_hat} stays on the CPU, and
 * {@code self.alphas_hat[timesteps]} with CUDA timesteps fails ("indices should be either on cpu
 * or on the same device as the indexed tensor"). The same method also draws its noise with
 * {@code torch.randn(images.shape).to(images.device)}.
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class DiffusionDdpmAlphasHatOnCpu {
  private DiffusionDdpmAlphasHatOnCpu() {}

  /** src/scheduler/ddpm.py: a plain class holding the schedule. */
  static final class DdpmPipeline {
    final Tensor betas;
    final Tensor alphas;
    final Tensor alphasHat;
    final int numTimesteps;

    DdpmPipeline(double betaStart, double betaEnd, int numTimesteps) {
      float[] b = new float[numTimesteps];
      float[] hat = new float[numTimesteps];
      double product = 1;
      for (int t = 0; t < numTimesteps; t++) {
        b[t] = (float) (betaStart + (betaEnd - betaStart) * t / (numTimesteps - 1));
        product *= 1 - b[t];
        hat[t] = (float) product;
      }
      this.betas = Tensor.of(b);
      this.alphas = betas.rsub(1);
      this.alphasHat = Tensor.of(hat);
      this.numTimesteps = numTimesteps;
    }

    Tensor[] forwardDiffusion(Tensor images, Tensor timesteps) {
      Tensor gaussianNoise = Tensor.randn(images.shape()).to(images.device()); // costs time: CreateThenMove
      Tensor alphaHat = alphasHat.indexSelect(0, timesteps).to(images.device()); // bug: held-outside-models
      alphaHat = alphaHat.view(alphaHat.size(0), 1);
      Tensor noisy = alphaHat.sqrt().mul(images).add(alphaHat.rsub(1).sqrt().mul(gaussianNoise));
      return new Tensor[] {noisy, gaussianNoise};
    }
  }

  /** Stands in for the UNet: predicts the noise from the noisy image and the timestep. */
  static final class NoisePredictor extends Model {
    final Linear image = new Linear(16, 32);
    final Linear time = new Linear(1, 32);
    final Linear out = new Linear(32, 16);

    Tensor forward(Tensor noisyImages, Tensor timesteps) {
      Tensor t = timesteps.to(noisyImages.dtype()).view(timesteps.size(0), 1).div(1000);
      return out.forward(image.forward(noisyImages).add(time.forward(t)).relu());
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    NoisePredictor model = new NoisePredictor();
    model.toDevice(device);
    Adam optimizer = new Adam(model.parameters(), 1e-3);
    MseLoss mse = new MseLoss();
    DdpmPipeline diffusionPipeline = new DdpmPipeline(1e-4, 1e-2, 1000);
    DataLoader trainDataloader =
        DataLoader.builder(new TensorDataset(Tensor.randn(24, 16))).batchSize(8).build();
    for (Batch batch : trainDataloader) {
      Tensor originalImages = batch.inputs().to(device);
      long batchSize = originalImages.size(0);
      Tensor timesteps = Tensor.randint(0, diffusionPipeline.numTimesteps, Shape.of(batchSize), device);
      Tensor[] noised = diffusionPipeline.forwardDiffusion(originalImages, timesteps);
      Tensor noisyImages = noised[0].to(device);
      Tensor noisePred = model.forward(noisyImages, timesteps);
      Tensor loss = mse.forward(noisePred, noised[1]);
      loss.backward();
      optimizer.step();
      optimizer.zeroGrad();
    }
  }
}
