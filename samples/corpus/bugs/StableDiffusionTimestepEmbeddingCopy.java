package corpus.bugs;

import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.nn.MseLoss;
import dev.ondevice.optim.AdamW;
import java.util.List;

/**
 * The time conditioning of Stable Diffusion's UNet: every forward turns the batch's timesteps into
 * sinusoidal embeddings with {@code ldm.modules.diffusionmodules.util.timestep_embedding} and
 * feeds them through the {@code time_embed} MLP.
 *
 * <p>Source: https://github.com/Stability-AI/stablediffusion/pull/375
 *
 * <p>Bug: {@code timestep_embedding} builds {@code freqs = torch.exp(-math.log(max_period) *
 * torch.arange(start=0, end=half, dtype=torch.float32) / half)} on the CPU and then does
 * {@code .to(device=timesteps.device)}: a host-to-device copy that forces a sync on every forward
 * pass (the PR creates it on the device instead).
 *
 * <p>Outcome: completes (costs time)
 */
public final class StableDiffusionTimestepEmbeddingCopy {
  private StableDiffusionTimestepEmbeddingCopy() {}

  /** ldm/modules/diffusionmodules/util.py. */
  static final class Util {
    private Util() {}

    static Tensor timestepEmbedding(Tensor timesteps, int dim, double maxPeriod) {
      int half = dim / 2;
      Tensor freqs = Tensor.arange(0, half).to(DType.FLOAT32)
          .mul(-Math.log(maxPeriod)).div(half).exp().to(timesteps.device()); // bug: in-method
      Tensor args = timesteps.unsqueeze(1).to(DType.FLOAT32).mul(freqs.unsqueeze(0));
      return Tensor.cat(List.of(args.cos(), args.sin()), 1);
    }
  }

  /** The UNet's time embedding and a stand-in for the rest of the network. */
  static final class UNetModel extends Model {
    final int modelChannels;
    final Linear timeEmbed1;
    final Linear timeEmbed2;
    final Linear body;

    UNetModel(int modelChannels, int features) {
      this.modelChannels = modelChannels;
      timeEmbed1 = new Linear(modelChannels, 4 * modelChannels);
      timeEmbed2 = new Linear(4 * modelChannels, features);
      body = new Linear(features, features);
    }

    Tensor forward(Tensor x, Tensor timesteps) {
      Tensor tEmb = Util.timestepEmbedding(timesteps, modelChannels, 10000);
      Tensor h = timeEmbed1.forward(tEmb);
      Tensor emb = timeEmbed2.forward(h.mul(h.sigmoid())); // SiLU
      return body.forward(x.add(emb));
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    UNetModel model = new UNetModel(32, 16);
    model.toDevice(device);
    AdamW optimizer = new AdamW(model.parameters(), 1e-4);
    MseLoss mse = new MseLoss();
    for (int step = 0; step < 3; step++) {
      Tensor x = Tensor.randn(Shape.of(4, 16), device);
      Tensor t = Tensor.randint(0, 1000, Shape.of(4), device);
      Tensor noise = Tensor.randnLike(x);
      Tensor loss = mse.forward(model.forward(x.add(noise), t), noise);
      optimizer.zeroGrad();
      loss.backward();
      optimizer.step();
    }
  }
}
