package corpus.bugs;

import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.data.Batch;
import dev.ondevice.data.DataLoader;
import dev.ondevice.data.TensorDataset;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.optim.Adam;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * VAE anomaly detection training: a {@code TrainStep} callable (model, optimizer, device) that the
 * ignite {@code Engine} calls on every batch; the model returns a dict holding the loss.
 *
 * <p>Source: https://github.com/Michedev/VAE_anomaly_detection/issues/10
 *
 * <p>Bug: {@code if self.device: x.to(device=self.device)} drops the moved copy; {@code x} stays on
 * the CPU and {@code self.model(x)} fails against the model's weights on the GPU (fix: {@code x =
 * x.to(...)}).
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class VaeAnomalyTrainStepDroppedMove {
  private VaeAnomalyTrainStepDroppedMove() {}

  /** {@code VAEAnomaly(input_size, latent_size, L)}: Gaussian encoder and decoder. */
  static final class VaeAnomaly extends Model {
    final Linear encoder = new Linear(8, 2 * 3);
    final Linear decoder = new Linear(3, 2 * 8);
    final int latentSize = 3;

    Map<String, Tensor> forward(Tensor x) {
      Tensor h = encoder.forward(x);
      Tensor mu = h.narrow(1, 0, latentSize);
      Tensor logVar = h.narrow(1, latentSize, latentSize);
      Tensor z = mu.add(logVar.mul(0.5).exp().mul(Tensor.randnLike(mu)));
      Tensor out = decoder.forward(z);
      Tensor reconMu = out.narrow(1, 0, 8);
      Tensor reconLogVar = out.narrow(1, 8, 8);
      Tensor reconLoss = x.sub(reconMu).square().div(reconLogVar.exp()).add(reconLogVar).mul(0.5).sum(1).mean();
      Tensor kl = mu.square().add(logVar.exp()).sub(logVar).sub(1).mul(0.5).sum(1).mean();
      Map<String, Tensor> output = new LinkedHashMap<>();
      output.put("loss", reconLoss.add(kl));
      output.put("kl", kl);
      output.put("recon_loss", reconLoss);
      return output;
    }
  }

  static final class TrainStep {
    final VaeAnomaly model;
    final Adam opt;
    final Device device;

    TrainStep(VaeAnomaly model, Adam opt, Device device) {
      this.model = model;
      this.opt = opt;
      this.device = device;
    }

    /** {@code __call__(self, engine, batch)}. */
    Map<String, Tensor> call(List<Tensor> batch) {
      Tensor x = batch.get(0);
      if (device != null) {
        x.to(device); // bug: in-method
      }
      Map<String, Tensor> predOutput = model.forward(x);
      predOutput.get("loss").backward();
      opt.step();
      return predOutput;
    }
  }

  static void train(VaeAnomaly model, Adam opt, DataLoader dloader, int epochs, Device device) {
    TrainStep step = new TrainStep(model, opt, device);
    for (int epoch = 0; epoch < epochs; epoch++) {
      for (Batch batch : dloader) {
        step.call(batch.tensors());
      }
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    VaeAnomaly model = new VaeAnomaly();
    model.toDevice(device);
    Adam opt = new Adam(model.parameters(), 1e-4);
    DataLoader dloader = DataLoader.builder(new TensorDataset(Tensor.randn(Shape.of(12, 8)))).batchSize(4).build();
    train(model, opt, dloader, 1, device);
  }
}
