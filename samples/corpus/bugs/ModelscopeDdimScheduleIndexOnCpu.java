package corpus.bugs;

import dev.ondevice.Autograd;
import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import java.util.List;
import java.util.Map;

/**
 * ModelScope's text-to-video synthesis: {@code TextToVideoSynthesis} holds the UNet ({@code
 * sd_model}, moved to the model's device) and a {@code GaussianDiffusion}, a plain object that
 * precomputes its noise schedule ({@code betas}, {@code alphas_cumprod}, {@code
 * posterior_variance}, ...) as float64 CPU tensors in its constructor; {@code forward} runs {@code
 * ddim_sample_loop} from noise on the device with classifier-free guidance, and every DDIM step
 * reads the schedule at the batch's timesteps through the module-level helper {@code _i(tensor, t,
 * x)}, {@code tensor[t].view(shape).to(x)}.
 *
 * <p>Source: https://github.com/modelscope/modelscope/issues/220 (the code:
 * https://github.com/modelscope/modelscope/blob/0ca0a8c1344ca38af2b9b34a24ae5ff48c6df6a8/modelscope/models/multi_modal/video_synthesis/diffusion.py)
 *
 * <p>Bug: the timesteps {@code t} are created on the noise's device ({@code torch.full((b, ), step,
 * device=xt.device)}) while the schedule tensors stay on the CPU, so {@code tensor[t]} fails with
 * "indices should be either on cpu or on the same device as the indexed tensor (cpu)" on the first
 * step on a GPU; later versions of {@code _i} move {@code tensor} to {@code x.device} first.
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class ModelscopeDdimScheduleIndexOnCpu {
  private ModelscopeDdimScheduleIndexOnCpu() {}

  /** diffusion.py's module-level helpers. */
  static final class Diffusion {
    private Diffusion() {}

    /** Index tensor using t and format the output according to x. */
    static Tensor i(Tensor tensor, Tensor t, Tensor x) {
      long[] shape = new long[x.dim()];
      java.util.Arrays.fill(shape, 1);
      shape[0] = x.size(0);
      return tensor.indexSelect(0, t).view(shape).to(x.dtype()).to(x.device()); // bug: held-outside-models
    }

    static double[] betaSchedule(String schedule, int numTimesteps, double initBeta, double lastBeta) {
      if (schedule.equals("linear_sd")) {
        double[] betas = new double[numTimesteps];
        double a = Math.sqrt(initBeta);
        double b = Math.sqrt(lastBeta);
        for (int k = 0; k < numTimesteps; k++) {
          double v = a + (b - a) * k / (numTimesteps - 1);
          betas[k] = v * v;
        }
        return betas;
      }
      throw new IllegalArgumentException("Unsupported schedule: " + schedule);
    }
  }

  /** diffusion.py GaussianDiffusion (DDIM sampling, fixed_small variance, eps prediction). */
  static final class GaussianDiffusion {
    final Tensor betas;
    final int numTimesteps;
    final Tensor alphasCumprod;
    final Tensor alphasCumprodPrev;
    final Tensor sqrtRecipAlphasCumprod;
    final Tensor sqrtRecipm1AlphasCumprod;
    final Tensor posteriorVariance;
    final Tensor posteriorLogVarianceClipped;
    final Tensor posteriorMeanCoef1;
    final Tensor posteriorMeanCoef2;

    GaussianDiffusion(double[] betasArray) {
      this.betas = Tensor.of(betasArray);
      this.numTimesteps = betasArray.length;
      Tensor alphas = betas.rsub(1.0);
      double[] cumprod = new double[numTimesteps];            // torch.cumprod(alphas, dim=0)
      double[] cumprodPrev = new double[numTimesteps];
      double acc = 1.0;
      for (int k = 0; k < numTimesteps; k++) {
        cumprodPrev[k] = acc;
        acc *= 1.0 - betasArray[k];
        cumprod[k] = acc;
      }
      this.alphasCumprod = Tensor.of(cumprod);
      this.alphasCumprodPrev = Tensor.of(cumprodPrev);
      this.sqrtRecipAlphasCumprod = alphasCumprod.rdiv(1.0).sqrt();
      this.sqrtRecipm1AlphasCumprod = alphasCumprod.rdiv(1.0).sub(1.0).sqrt();
      this.posteriorVariance = betas.mul(alphasCumprodPrev.rsub(1.0)).div(alphasCumprod.rsub(1.0));
      this.posteriorLogVarianceClipped = posteriorVariance.clampMin(1e-20).log();
      this.posteriorMeanCoef1 = betas.mul(alphasCumprodPrev.sqrt()).div(alphasCumprod.rsub(1.0));
      this.posteriorMeanCoef2 = alphasCumprodPrev.rsub(1.0).mul(alphas.sqrt()).div(alphasCumprod.rsub(1.0));
    }

    Tensor[] pMeanVariance(Tensor xt, Tensor t, UNetSd model, List<Map<String, Tensor>> modelKwargs,
        double guideScale) {
      Tensor yOut = model.forward(xt, t, modelKwargs.get(0).get("y"));
      Tensor uOut = model.forward(xt, t, modelKwargs.get(1).get("y"));
      long dim = yOut.size(1);
      Tensor a = uOut.slice(1, 0, dim);
      Tensor b = yOut.slice(1, 0, dim).sub(uOut.slice(1, 0, dim)).mul(guideScale);
      Tensor out = a.add(b);
      Tensor var = Diffusion.i(posteriorVariance, t, xt); // same bug
      Tensor logVar = Diffusion.i(posteriorLogVarianceClipped, t, xt);
      Tensor x0 = Diffusion.i(sqrtRecipAlphasCumprod, t, xt).mul(xt)
          .sub(Diffusion.i(sqrtRecipm1AlphasCumprod, t, xt).mul(out));
      Tensor mu = qPosteriorMeanVariance(x0, xt, t)[0];
      return new Tensor[] {mu, var, logVar, x0};
    }

    Tensor[] qPosteriorMeanVariance(Tensor x0, Tensor xt, Tensor t) {
      Tensor mu = Diffusion.i(posteriorMeanCoef1, t, xt).mul(x0).add(Diffusion.i(posteriorMeanCoef2, t, xt).mul(xt));
      Tensor var = Diffusion.i(posteriorVariance, t, xt);
      Tensor logVar = Diffusion.i(posteriorLogVarianceClipped, t, xt);
      return new Tensor[] {mu, var, logVar};
    }

    Tensor[] ddimSample(Tensor xt, Tensor t, UNetSd model, List<Map<String, Tensor>> modelKwargs, double guideScale,
        int ddimTimesteps, double eta) {
      int stride = numTimesteps / ddimTimesteps;
      Tensor x0 = pMeanVariance(xt, t, model, modelKwargs, guideScale)[3];
      Tensor eps = Diffusion.i(sqrtRecipAlphasCumprod, t, xt).mul(xt).sub(x0)
          .div(Diffusion.i(sqrtRecipm1AlphasCumprod, t, xt));
      Tensor alphas = Diffusion.i(alphasCumprod, t, xt);
      Tensor alphasPrev = Diffusion.i(alphasCumprod, t.sub(stride).clampMin(0), xt);
      Tensor a = alphasPrev.rsub(1.0).div(alphas.rsub(1.0));
      Tensor b = alphas.div(alphasPrev).rsub(1.0);
      Tensor sigmas = a.mul(b).sqrt().mul(eta);
      Tensor noise = Tensor.randnLike(xt);
      Tensor direction = alphasPrev.rsub(1.0).sub(sigmas.square()).sqrt().mul(eps);
      Tensor mask = t.ne(0).to(DType.FLOAT32).view(-1, 1);
      Tensor xt1 = alphasPrev.sqrt().mul(x0).add(direction).add(mask.mul(sigmas).mul(noise));
      return new Tensor[] {xt1, x0};
    }

    Tensor ddimSampleLoop(Tensor noise, UNetSd model, List<Map<String, Tensor>> modelKwargs, double guideScale,
        int ddimTimesteps, double eta) {
      try (Autograd.Scope ignored = Autograd.noGrad()) {
        long b = noise.size(0);
        Tensor xt = noise;
        int stride = numTimesteps / ddimTimesteps;
        for (int k = ddimTimesteps - 1; k >= 0; k--) {     // (1 + arange(0, T, stride)).clamp(0, T - 1).flip(0)
          long step = Math.min(Math.max(1 + (long) k * stride, 0), numTimesteps - 1);
          Tensor t = Tensor.full(Shape.of(b), step, DType.INT64, xt.device());
          xt = ddimSample(xt, t, model, modelKwargs, guideScale, ddimTimesteps, eta)[0];
        }
        return xt;
      }
    }
  }

  /** The 3D UNet, reduced to a timestep- and text-conditioned MLP over flattened latents. */
  static final class UNetSd extends Model {
    final Linear timeEmbed = new Linear(1, 32);
    final Linear context = new Linear(24, 32);
    final Linear inputBlock = new Linear(16, 32);
    final Linear out = new Linear(32, 16);

    Tensor forward(Tensor x, Tensor t, Tensor y) {
      Tensor e = timeEmbed.forward(t.to(DType.FLOAT32).div(1000.0).unsqueeze(1)).tanh();
      Tensor h = inputBlock.forward(x).add(e).add(context.forward(y.mean(1)));
      return out.forward(h.relu());
    }
  }

  /** text_to_video_synthesis_model.py TextToVideoSynthesis. */
  static final class TextToVideoSynthesis extends Model {
    final UNetSd sdModel = new UNetSd();
    final GaussianDiffusion diffusion =
        new GaussianDiffusion(Diffusion.betaSchedule("linear_sd", 1000, 0.00085, 0.0120));

    Tensor forward(Tensor textEmb, Tensor textEmbZero) {
      Device device = device();
      Tensor context = Tensor.cat(List.of(textEmbZero, textEmb), 0).to(device);
      int numSample = 1;
      return diffusion.ddimSampleLoop(
          Tensor.randn(Shape.of(numSample, 16)).to(device), // costs time: CreateThenMove
          sdModel,
          List.of(Map.of("y", context.select(0, 1).unsqueeze(0)), Map.of("y", context.select(0, 0).unsqueeze(0))),
          9.0, 50, 0.0);
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    TextToVideoSynthesis model = new TextToVideoSynthesis();
    model.toDevice(device);
    model.eval();
    Tensor textEmb = Tensor.randn(1, 7, 24, device);      // clip_encoder(text)
    Tensor textEmbZero = Tensor.randn(1, 7, 24, device);  // clip_encoder("")
    Tensor x0 = model.forward(textEmb, textEmbZero);
    System.out.println(x0.shape());
  }
}
