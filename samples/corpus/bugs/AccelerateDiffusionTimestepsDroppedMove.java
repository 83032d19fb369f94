package corpus.bugs;

import dev.ondevice.Device;
import dev.ondevice.Tensor;
import dev.ondevice.data.Batch;
import dev.ondevice.data.DataLoader;
import dev.ondevice.data.TensorDataset;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.optim.AdamW;
import java.util.List;
import java.util.Random;

/**
 * An improved-diffusion style training loop run with accelerate: the schedule sampler draws
 * timesteps and importance weights with numpy and returns them as CPU tensors; {@code
 * forward_backward} moves them to the batch's device, computes {@code
 * diffusion.training_losses(model, batch, t)} (whose {@code _extract_into_tensor} puts the numpy
 * schedule on {@code t}'s device and indexes it with {@code t}) and weights the losses.
 *
 * <p>Source: https://github.com/huggingface/accelerate/issues/2251
 *
 * <p>Bug: {@code t.to(batch.device)} and {@code weights.to(batch.device)} are called without
 * assigning the results ("`.to` is not in-place"); {@code t} stays on the CPU, so the schedule
 * coefficients do too, and {@code q_sample} multiplies them with the GPU batch.
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class AccelerateDiffusionTimestepsDroppedMove {
  private AccelerateDiffusionTimestepsDroppedMove() {}

  static final int T = 50;

  static final class GaussianDiffusion {
    final double[] sqrtAlphasCumprod = new double[T];
    final double[] sqrtOneMinusAlphasCumprod = new double[T];

    GaussianDiffusion() {
      double cumprod = 1;
      for (int i = 0; i < T; i++) {
        cumprod *= 1 - (1e-4 + (0.02 - 1e-4) * i / (T - 1));
        sqrtAlphasCumprod[i] = Math.sqrt(cumprod);
        sqrtOneMinusAlphasCumprod[i] = Math.sqrt(1 - cumprod);
      }
    }

    /** {@code th.from_numpy(arr).to(device=timesteps.device)[timesteps].float()}, broadcast over the sample. */
    static Tensor extractIntoTensor(double[] arr, Tensor timesteps, int dims) {
      Tensor res = Tensor.of(arr).to(timesteps.device()).indexSelect(0, timesteps);
      while (res.dim() < dims) {
        res = res.unsqueeze(-1);
      }
      return res;
    }

    Tensor qSample(Tensor xStart, Tensor t, Tensor noise) {
      return extractIntoTensor(sqrtAlphasCumprod, t, xStart.dim()).mul(xStart)
          .add(extractIntoTensor(sqrtOneMinusAlphasCumprod, t, xStart.dim()).mul(noise));
    }

    Tensor trainingLosses(Denoiser model, Tensor xStart, Tensor t) {
      Tensor noise = Tensor.randnLike(xStart);
      Tensor xT = qSample(xStart, t, noise);
      Tensor modelOutput = model.forward(xT, t);
      return noise.sub(modelOutput).square().mean(1);   // mean_flat
    }
  }

  static final class UniformSampler {
    final Random rng = new Random(0);

    /** {@code sample(batch_size)}: indices and weights from numpy, as CPU tensors. */
    Tensor[] sample(long batchSize) {
      long[] indices = new long[(int) batchSize];
      float[] weights = new float[(int) batchSize];
      for (int i = 0; i < batchSize; i++) {
        indices[i] = rng.nextInt(T);
        weights[i] = 1f;   // 1 / (len(p) * p[indices_np]) with uniform p
      }
      return new Tensor[] {Tensor.of(indices), Tensor.of(weights)};
    }
  }

  static final class Denoiser extends Model {
    final Linear net = new Linear(8 + 1, 8);

    Tensor forward(Tensor x, Tensor t) {
      return net.forward(Tensor.cat(List.of(x, t.unsqueeze(-1).to(x.dtype()).div(T)), 1));
    }
  }

  static void forwardBackward(Denoiser model, GaussianDiffusion diffusion, UniformSampler scheduleSampler,
      Tensor batch) {
    Tensor[] sampled = scheduleSampler.sample(batch.size(0));
    Tensor t = sampled[0];
    Tensor weights = sampled[1];
    t.to(batch.device()); // bug: in-method
    weights.to(batch.device()); // bug: in-method
    Tensor losses = diffusion.trainingLosses(model, batch, t);
    Tensor loss = losses.mul(weights).mean();
    loss.backward();
  }

  /** Runs the program with small random data on {@code device}: accelerate has put model and batches there. */
  public static void run(Device device) throws Exception {
    Denoiser model = new Denoiser();
    model.toDevice(device);
    AdamW opt = new AdamW(model.parameters(), 1e-4);
    GaussianDiffusion diffusion = new GaussianDiffusion();
    UniformSampler sampler = new UniformSampler();
    for (Batch b : DataLoader.builder(new TensorDataset(Tensor.randn(8, 8))).batchSize(4).build()) {
      Tensor batch = b.inputs().to(device);
      opt.zeroGrad();
      forwardBackward(model, diffusion, sampler, batch);
      opt.step();
    }
  }
}
