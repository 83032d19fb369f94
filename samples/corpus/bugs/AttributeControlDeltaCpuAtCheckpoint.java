package corpus.bugs;

import dev.ondevice.Autograd;
import dev.ondevice.Device;
import dev.ondevice.Parameter;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.io.Safetensors;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.nn.MseLoss;
import dev.ondevice.optim.AdamW;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * CompVis attribute-control's {@code learn_delta.py}: an {@code EmbeddingDelta} (one learned vector
 * per text encoder, a {@code ParameterDict}) is moved to {@code cfg.device} and optimized so that
 * the frozen diffusion model's noise prediction for the delta-edited prompt matches a guided target;
 * every {@code ckpt_logging_freq} steps an intermediate checkpoint is saved.
 *
 * <p>Source: https://github.com/CompVis/attribute-control/pull/4 (commit 7f9f2ae)
 *
 * <p>Bug: the intermediate checkpoint is written with {@code 'delta': delta.cpu().state_dict()};
 * {@code Module.cpu()} moves the delta in place, so the next step adds CPU delta vectors to the
 * CUDA prompt embeddings ("Fix device mismatch issue after 10% optimization"). The fix saves {@code
 * delta.state_dict()}.
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class AttributeControlDeltaCpuAtCheckpoint {
  private AttributeControlDeltaCpuAtCheckpoint() {}

  /** {@code PromptEmbedding}: token-wise embeddings per text encoder. */
  record PromptEmbedding(String prompt, Map<String, Tensor> tokenwiseEmbeddings) {}

  /** One entry of the {@code ParameterDict}. */
  static final class DeltaVector extends Model {
    final Parameter delta;

    DeltaVector(int d) {
      delta = new Parameter(Tensor.zeros(d));
    }
  }

  static final class EmbeddingDelta extends Model {
    final Map<String, DeltaVector> tokenwiseDelta = new LinkedHashMap<>();

    EmbeddingDelta(Map<String, Integer> dims) {
      dims.forEach((k, d) -> tokenwiseDelta.put(k, new DeltaVector(d)));
    }

    PromptEmbedding apply(PromptEmbedding emb, boolean[] tokenMaskBits, Tensor alpha) {
      Map<String, Tensor> tokenwiseEmbeddings = new LinkedHashMap<>();
      for (Map.Entry<String, DeltaVector> e : tokenwiseDelta.entrySet()) {
        Tensor tEmbs = emb.tokenwiseEmbeddings().get(e.getKey());
        float[] tokenMask = new float[(int) tEmbs.size(0)];
        for (int i = 0; i < tokenMask.length; i++) {
          tokenMask[i] = tokenMaskBits[i] ? 1 : 0;
        }
        Tensor mask = Tensor.of(tokenMask, Shape.of(tokenMask.length), tEmbs.device()).unsqueeze(-1);
        tokenwiseEmbeddings.put(e.getKey(), tEmbs.add(mask.mul(alpha).mul(e.getValue().delta.unsqueeze(0)))); // same bug
      }
      return new PromptEmbedding(emb.prompt(), tokenwiseEmbeddings);
    }
  }

  /** The frozen SDXL stand-in: embeds prompts and predicts noise from both encoders' embeddings. */
  static final class FrozenDiffusionModel extends Model {
    final Linear clipL = new Linear(8, 8);
    final Linear clipG = new Linear(12, 8);

    PromptEmbedding embedPrompt(String prompt, Device device) {
      Tensor tokens = Tensor.randn(Shape.of(4, 8), device);
      return new PromptEmbedding(prompt, Map.of("clip_l", tokens, "clip_g", Tensor.randn(Shape.of(4, 12), device)));
    }

    Tensor predictEps(List<PromptEmbedding> embs, Tensor xT) {
      Tensor cond = Tensor.stack(embs.stream().map(e -> clipL.forward(e.tokenwiseEmbeddings().get("clip_l"))
          .add(clipG.forward(e.tokenwiseEmbeddings().get("clip_g"))).mean(0)).toList());
      return xT.mul(0.9).add(cond);
    }
  }

  public static void run(Device device) throws Exception {
    FrozenDiffusionModel model = new FrozenDiffusionModel();
    model.toDevice(device);
    int batchSize = 2;
    int maxSteps = 6;
    int ckptLoggingFreq = 2;
    double scaleMin = 0.1;
    double scaleMax = 2.0;
    EmbeddingDelta delta = new EmbeddingDelta(Map.of("clip_l", 8, "clip_g", 12));
    delta.toDevice(device);
    AdamW optimizer = new AdamW(delta.parameters(), 0.1);
    Path ckptOutputDir = Files.createTempDirectory("checkpoints");
    MseLoss mse = new MseLoss();
    boolean[] patternMask = {false, true, true, false};

    for (int globalStep = 0; globalStep < maxSteps; globalStep++) {
      List<PromptEmbedding> target;
      Tensor xT;
      Tensor epsTarget;
      Tensor scaleCpu;
      try (Autograd.Scope ignored = Autograd.noGrad()) {
        target = List.of(model.embedPrompt("a photo of a person", device), model.embedPrompt("a person", device));
        List<PromptEmbedding> positive = List.of(model.embedPrompt("an old person", device), model.embedPrompt("old", device));
        List<PromptEmbedding> negative = List.of(model.embedPrompt("a young person", device), model.embedPrompt("young", device));
        xT = Tensor.randn(Shape.of(batchSize, 8), device);
        Tensor epsP = model.predictEps(positive, xT);
        Tensor epsT = model.predictEps(target, xT);
        Tensor epsN = model.predictEps(negative, xT);
        Tensor scale = Tensor.rand(Shape.of(batchSize), device).mul(scaleMax - scaleMin).add(scaleMin);
        scaleCpu = scale.cpu(); // costs time: HostSyncInLoop
        epsTarget = epsT.add(scale.unsqueeze(-1).mul(epsP.sub(epsN)));
      }
      List<PromptEmbedding> edited = new java.util.ArrayList<>();
      for (int iP = 0; iP < target.size(); iP++) {
        edited.add(delta.apply(target.get(iP), patternMask, scaleCpu.get(iP)));
      }
      Tensor epsDelta = model.predictEps(edited, xT.detach());
      Tensor loss = mse.forward(epsDelta, epsTarget.detach());
      loss.backward();
      double lossSum = loss.detach().item(); // costs time: HostSyncInLoop
      optimizer.step();
      optimizer.zeroGrad();

      if ((globalStep + 1) % ckptLoggingFreq == 0) {
        Path checkpointPath = ckptOutputDir.resolve("delta_step_" + (globalStep + 1) + ".safetensors");
        delta.toDevice(Device.cpu()); // bug: in-method
        Safetensors.save(delta.stateDict(), Map.of("loss", Double.toString(lossSum)), checkpointPath);
        System.out.println("Saved intermediate checkpoint to " + checkpointPath);
      }
    }
  }
}
