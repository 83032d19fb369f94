package corpus.correct;

import dev.ondevice.Autograd;
import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.annotations.Buffer;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.nn.Sequential;
import dev.ondevice.nn.GELU;
import java.util.ArrayList;
import java.util.List;

/**
 * lucidrains' denoising-diffusion-pytorch {@code GaussianDiffusion} sampling: the noise schedule and
 * every coefficient derived from it are registered buffers (float32), {@code device} is the device
 * of {@code betas}, {@code extract} gathers a coefficient per sample for a batch of time steps, and
 * {@code p_sample_loop} starts from Gaussian noise on that device and runs {@code p_sample} from
 * {@code T - 1} down to 0 ({@code p_mean_variance} from the model's v-prediction, posterior mean
 * and log-variance, fresh noise except at t = 0), then unnormalizes to [0, 1].
 *
 * <p>Source: https://github.com/lucidrains/denoising-diffusion-pytorch/blob/faed4db28e724735323fa91c70aa9b28a6e1cbac/denoising_diffusion_pytorch/denoising_diffusion_pytorch.py
 * (and the README's {@code diffusion.sample(batch_size = 4)})
 *
 * <p>Ported: extract, linear_beta_schedule, SinusoidalPosEmb, GaussianDiffusion's buffers,
 * predict_start_from_v, predict_noise_from_start, q_posterior, model_predictions (objective
 * pred_v), p_mean_variance, p_sample, p_sample_loop, sample and unnormalize. Left out: the Unet (a
 * small MLP over the flattened image and the time embedding instead), DDIM sampling, self
 * conditioning, the loss weights and training; the schedule is computed in float64 on the host, as
 * {@code torch.linspace(..., dtype=torch.float64)} does before the buffers are cast to float32.
 *
 * <p>Outcome: completes
 */
public final class DenoisingDiffusionSampleLoop {
  private DenoisingDiffusionSampleLoop() {}

  static Tensor extract(Tensor a, Tensor t, Shape xShape) {
    long b = t.size(0);
    Tensor out = a.gather(-1, t);
    long[] shape = new long[xShape.rank()];
    java.util.Arrays.fill(shape, 1);
    shape[0] = b;
    return out.reshape(shape);
  }

  static double[] linearBetaSchedule(int timesteps) {
    double scale = 1000.0 / timesteps;
    double betaStart = scale * 0.0001, betaEnd = scale * 0.02;
    double[] betas = new double[timesteps];
    for (int i = 0; i < timesteps; i++) {
      betas[i] = betaStart + (betaEnd - betaStart) * i / (timesteps - 1);
    }
    return betas;
  }

  /** The denoiser: a sinusoidal time embedding and an MLP over the flattened image (stands in for the Unet). */
  static final class Denoiser extends Model {
    final int channels;
    final int imageSize;
    final int timeDim = 16;
    final Sequential timeMlp = new Sequential(new Linear(16, 32), new GELU(), new Linear(32, 32));
    final Sequential net;

    Denoiser(int channels, int imageSize) {
      this.channels = channels;
      this.imageSize = imageSize;
      int flat = channels * imageSize * imageSize;
      net = new Sequential(new Linear(flat + 32, 128), new GELU(), new Linear(128, flat));
    }

    /** {@code SinusoidalPosEmb}: built on the device of the time steps. */
    Tensor posEmb(Tensor x) {
      int halfDim = timeDim / 2;
      double emb = Math.log(10000) / (halfDim - 1);
      Tensor freqs = Tensor.arange(halfDim, x.device()).to(DType.FLOAT32).mul(-emb).exp();
      Tensor e = x.to(DType.FLOAT32).unsqueeze(1).mul(freqs.unsqueeze(0));
      return Tensor.cat(List.of(e.sin(), e.cos()), -1);
    }

    Tensor forward(Tensor x, Tensor time) {
      Tensor t = timeMlp.forward(posEmb(time));
      Tensor h = Tensor.cat(List.of(x.flatten(1), t), 1);
      return net.forward(h).view(x.size(0), channels, imageSize, imageSize);
    }
  }

  static final class GaussianDiffusion extends Model {
    final Denoiser model;
    final int channels;
    final int imageSize;
    final int numTimesteps;
    @Buffer Tensor betas;
    @Buffer Tensor alphasCumprod;
    @Buffer Tensor sqrtAlphasCumprod;
    @Buffer Tensor sqrtOneMinusAlphasCumprod;
    @Buffer Tensor sqrtRecipAlphasCumprod;
    @Buffer Tensor sqrtRecipm1AlphasCumprod;
    @Buffer Tensor posteriorVariance;
    @Buffer Tensor posteriorLogVarianceClipped;
    @Buffer Tensor posteriorMeanCoef1;
    @Buffer Tensor posteriorMeanCoef2;

    GaussianDiffusion(Denoiser model, int imageSize, int timesteps) {
      this.model = model;
      this.channels = model.channels;
      this.imageSize = imageSize;
      double[] b = linearBetaSchedule(timesteps);
      int n = b.length;
      double[] ac = new double[n], acPrev = new double[n];
      double prod = 1;
      for (int i = 0; i < n; i++) {
        acPrev[i] = prod;
        prod *= 1 - b[i];
        ac[i] = prod;
      }
      this.numTimesteps = n;
      double[] sqrtAc = new double[n], sqrt1mAc = new double[n], sqrtRecip = new double[n], sqrtRecipm1 = new double[n];
      double[] postVar = new double[n], postLogVar = new double[n], coef1 = new double[n], coef2 = new double[n];
      for (int i = 0; i < n; i++) {
        sqrtAc[i] = Math.sqrt(ac[i]);
        sqrt1mAc[i] = Math.sqrt(1 - ac[i]);
        sqrtRecip[i] = Math.sqrt(1 / ac[i]);
        sqrtRecipm1[i] = Math.sqrt(1 / ac[i] - 1);
        postVar[i] = b[i] * (1 - acPrev[i]) / (1 - ac[i]);
        postLogVar[i] = Math.log(Math.max(postVar[i], 1e-20));
        coef1[i] = b[i] * Math.sqrt(acPrev[i]) / (1 - ac[i]);
        coef2[i] = (1 - acPrev[i]) * Math.sqrt(1 - b[i]) / (1 - ac[i]);
      }
      // helper function to register buffer from float64 to float32
      betas = Tensor.of(b).to(DType.FLOAT32);
      alphasCumprod = Tensor.of(ac).to(DType.FLOAT32);
      sqrtAlphasCumprod = Tensor.of(sqrtAc).to(DType.FLOAT32);
      sqrtOneMinusAlphasCumprod = Tensor.of(sqrt1mAc).to(DType.FLOAT32);
      sqrtRecipAlphasCumprod = Tensor.of(sqrtRecip).to(DType.FLOAT32);
      sqrtRecipm1AlphasCumprod = Tensor.of(sqrtRecipm1).to(DType.FLOAT32);
      posteriorVariance = Tensor.of(postVar).to(DType.FLOAT32);
      posteriorLogVarianceClipped = Tensor.of(postLogVar).to(DType.FLOAT32);
      posteriorMeanCoef1 = Tensor.of(coef1).to(DType.FLOAT32);
      posteriorMeanCoef2 = Tensor.of(coef2).to(DType.FLOAT32);
    }

    Device deviceOfBetas() {
      return betas.device();
    }

    Tensor predictNoiseFromStart(Tensor xT, Tensor t, Tensor x0) {
      return extract(sqrtRecipAlphasCumprod, t, xT.shape()).mul(xT).sub(x0).div(extract(sqrtRecipm1AlphasCumprod, t, xT.shape()));
    }

    Tensor predictStartFromV(Tensor xT, Tensor t, Tensor v) {
      return extract(sqrtAlphasCumprod, t, xT.shape()).mul(xT).sub(extract(sqrtOneMinusAlphasCumprod, t, xT.shape()).mul(v));
    }

    Tensor[] qPosterior(Tensor xStart, Tensor xT, Tensor t) {
      Tensor posteriorMean = extract(posteriorMeanCoef1, t, xT.shape()).mul(xStart)
          .add(extract(posteriorMeanCoef2, t, xT.shape()).mul(xT));
      return new Tensor[] {posteriorMean, extract(posteriorVariance, t, xT.shape()),
          extract(posteriorLogVarianceClipped, t, xT.shape())};
    }

    /** objective 'pred_v': (pred_noise, x_start). */
    Tensor[] modelPredictions(Tensor x, Tensor t) {
      Tensor v = model.forward(x, t);
      Tensor xStart = predictStartFromV(x, t, v);
      Tensor predNoise = predictNoiseFromStart(x, t, xStart);
      return new Tensor[] {predNoise, xStart};
    }

    Tensor[] pMeanVariance(Tensor x, Tensor t) {
      Tensor xStart = modelPredictions(x, t)[1];
      xStart = xStart.clamp(-1., 1.);
      Tensor[] post = qPosterior(xStart, x, t);
      return new Tensor[] {post[0], post[1], post[2], xStart};
    }

    Tensor[] pSample(Tensor x, int t) {
      long b = x.size(0);
      Tensor batchedTimes = Tensor.full(Shape.of(b), t, DType.INT64, deviceOfBetas());
      Tensor[] mv = pMeanVariance(x, batchedTimes);
      Tensor noise = t > 0 ? Tensor.randnLike(x) : Tensor.zerosLike(x); // no noise if t == 0
      Tensor predImg = mv[0].add(mv[2].mul(0.5).exp().mul(noise));
      return new Tensor[] {predImg, mv[3]};
    }

    Tensor pSampleLoop(Shape shape) {
      Device device = deviceOfBetas();
      Tensor img = Tensor.randn(shape, device);
      List<Tensor> imgs = new ArrayList<>();
      imgs.add(img);
      for (int t = numTimesteps - 1; t >= 0; t--) {
        img = pSample(img, t)[0];
        imgs.add(img);
      }
      return img.add(1).mul(0.5); // unnormalize_to_zero_to_one
    }

    Tensor sample(int batchSize) {
      try (Autograd.Scope ignored = Autograd.noGrad()) {
        return pSampleLoop(Shape.of(batchSize, channels, imageSize, imageSize));
      }
    }
  }

  public static void run(Device device) {
    Denoiser model = new Denoiser(3, 8);
    GaussianDiffusion diffusion = new GaussianDiffusion(model, 8, 20);
    diffusion.toDevice(device);
    Tensor sampledImages = diffusion.sample(4);
    System.out.println("sampled " + sampledImages.shape() + " on " + sampledImages.device()
        + ", mean " + sampledImages.mean().item());
  }
}
