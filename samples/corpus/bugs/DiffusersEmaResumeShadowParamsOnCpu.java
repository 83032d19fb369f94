package corpus.bugs;

import dev.ondevice.Autograd;
import dev.ondevice.Device;
import dev.ondevice.Parameter;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.io.Checkpoint;
import dev.ondevice.io.MapLocation;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.nn.MseLoss;
import dev.ondevice.optim.AdamW;
import dev.ondevice.optim.Gradients;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * diffusers {@code examples/text_to_image/train_text_to_image.py} with {@code --use_ema}: the EMA of
 * the UNet is a {@code training_utils.EMAModel} (a plain object holding {@code shadow_params}, a
 * list of tensors), moved with {@code ema_unet.to(accelerator.device)} after {@code
 * accelerator.prepare}; accelerate's save and load hooks write it with {@code save_pretrained} and,
 * on {@code --resume_from_checkpoint}, read it back with {@code EMAModel.from_pretrained} and {@code
 * ema_unet.load_state_dict(load_model.state_dict())}; after every optimizer step the loop calls
 * {@code ema_unet.step(unet.parameters())}.
 *
 * <p>Source: https://github.com/huggingface/diffusers/pull/2382 (commit ca980fd0d1, "[Examples]
 * Make sure EMA works with any device")
 *
 * <p>Bug: on resume the load hook runs after {@code ema_unet.to(accelerator.device)}:
 * {@code from_pretrained} builds the EMA from a UNet loaded on the CPU, and {@code load_state_dict}
 * replaces the moved {@code shadow_params} with those CPU tensors, so the first {@code
 * ema_unet.step} computes {@code s_param - param} across devices; the fix added {@code
 * ema_unet.to(accelerator.device)} right after the {@code load_state_dict} in the hook.
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class DiffusersEmaResumeShadowParamsOnCpu {
  private DiffusersEmaResumeShadowParamsOnCpu() {}

  /** The UNet, reduced to a conditioned MLP over flattened latents. */
  static final class UNet2DConditionModel extends Model {
    final Linear timeEmbedding = new Linear(1, 32);
    final Linear convIn = new Linear(16, 32);
    final Linear crossAttn = new Linear(8, 32);
    final Linear convOut = new Linear(32, 16);

    Tensor forward(Tensor sample, Tensor timestep, Tensor encoderHiddenStates) {
      Tensor temb = timeEmbedding.forward(timestep.unsqueeze(1)).tanh();
      Tensor h = convIn.forward(sample).add(temb).add(crossAttn.forward(encoderHiddenStates)).relu();
      return convOut.forward(h);
    }

    static UNet2DConditionModel fromPretrained(Path path) throws IOException {
      UNet2DConditionModel model = new UNet2DConditionModel();
      model.loadStateDict(Checkpoint.load(path.resolve("model.safetensors"), MapLocation.to(Device.cpu())).stateDict(),
          true);
      return model;
    }

    void savePretrained(Path path) throws IOException {
      Files.createDirectories(path);
      Checkpoint.save(path.resolve("model.safetensors"), this, null);
    }
  }

  /** src/diffusers/training_utils.py EMAModel. */
  static final class EmaModel {
    List<Tensor> shadowParams;
    double decay;
    double minDecay = 0.0;
    int updateAfterStep = 0;
    int optimizationStep = 0;
    Double curDecayValue;

    EmaModel(List<Parameter> parameters, double decay) {
      this.shadowParams = new ArrayList<>();
      for (Parameter p : parameters) {
        shadowParams.add(p.detach().clone());
      }
      this.decay = decay;
    }

    static EmaModel fromPretrained(Path path) throws IOException {
      UNet2DConditionModel model = UNet2DConditionModel.fromPretrained(path);
      EmaModel emaModel = new EmaModel(model.parameters(), 0.9999);
      Map<String, Object> emaKwargs = new HashMap<>();
      emaKwargs.put("optimization_step", Integer.parseInt(Files.readString(path.resolve("optimization_step")).trim()));
      emaModel.loadStateDict(emaKwargs);
      return emaModel;
    }

    void savePretrained(Path path) throws IOException {
      UNet2DConditionModel model = new UNet2DConditionModel();
      copyTo(model.parameters());
      model.savePretrained(path);
      Files.writeString(path.resolve("optimization_step"), Integer.toString(optimizationStep));
    }

    double getDecay(int optimizationStep) {
      int step = Math.max(0, optimizationStep - updateAfterStep - 1);
      if (step <= 0) {
        return 0.0;
      }
      double curDecayValue = (1.0 + step) / (10.0 + step);
      curDecayValue = Math.min(curDecayValue, decay);
      return Math.max(curDecayValue, minDecay);
    }

    void step(List<Parameter> parameters) {
      try (Autograd.Scope ignored = Autograd.noGrad()) {
        optimizationStep += 1;
        double decay = getDecay(optimizationStep);
        curDecayValue = decay;
        double oneMinusDecay = 1 - decay;
        for (int i = 0; i < shadowParams.size(); i++) {
          Tensor sParam = shadowParams.get(i);
          Parameter param = parameters.get(i);
          if (param.requiresGrad()) {
            sParam.subi(sParam.sub(param).mul(oneMinusDecay)); // same bug
          } else {
            sParam.copyFrom(param);
          }
        }
      }
    }

    void copyTo(List<Parameter> parameters) {
      try (Autograd.Scope ignored = Autograd.noGrad()) {
        for (int i = 0; i < shadowParams.size(); i++) {
          parameters.get(i).detach().copyFrom(shadowParams.get(i).to(parameters.get(i).device()));
        }
      }
    }

    void to(Device device) {
      List<Tensor> moved = new ArrayList<>();
      for (Tensor p : shadowParams) {
        moved.add(p.to(device));
      }
      shadowParams = moved;
    }

    Map<String, Object> stateDict() {
      Map<String, Object> state = new HashMap<>();
      state.put("decay", decay);
      state.put("min_decay", minDecay);
      state.put("optimization_step", optimizationStep);
      state.put("update_after_step", updateAfterStep);
      state.put("shadow_params", shadowParams);
      return state;
    }

    @SuppressWarnings("unchecked")
    void loadStateDict(Map<String, Object> stateDict) {
      decay = (Double) stateDict.getOrDefault("decay", decay);
      minDecay = (Double) stateDict.getOrDefault("min_decay", minDecay);
      optimizationStep = (Integer) stateDict.getOrDefault("optimization_step", optimizationStep);
      updateAfterStep = (Integer) stateDict.getOrDefault("update_after_step", updateAfterStep);
      Object shadow = stateDict.get("shadow_params");
      if (shadow != null) {
        shadowParams = new ArrayList<>((List<Tensor>) shadow);
      }
    }
  }

  /** The script's main(): models, hooks, resume and the training loop. */
  static final class TrainTextToImage {
    final Device device;
    final boolean useEma = true;
    final UNet2DConditionModel unet = new UNet2DConditionModel();
    final EmaModel emaUnet;
    final AdamW optimizer;
    final MseLoss mseLoss = new MseLoss();
    int globalStep;

    TrainTextToImage(Device device) {
      this.device = device;
      this.emaUnet = new EmaModel(new UNet2DConditionModel().parameters(), 0.9999);
      this.optimizer = new AdamW(unet.parameters(), 1e-4);
      unet.toDevice(device);                      // accelerator.prepare(unet, optimizer, ...)
      if (useEma) {
        emaUnet.to(device);
      }
    }

    void saveModelHook(Path outputDir) throws IOException {
      if (useEma) {
        emaUnet.savePretrained(outputDir.resolve("unet_ema"));
      }
      unet.savePretrained(outputDir.resolve("unet"));
    }

    void loadModelHook(Path inputDir) throws IOException {
      if (useEma) {
        EmaModel loadModel = EmaModel.fromPretrained(inputDir.resolve("unet_ema"));
        emaUnet.loadStateDict(loadModel.stateDict()); // bug: training-state
      }
      UNet2DConditionModel loadModel = UNet2DConditionModel.fromPretrained(inputDir.resolve("unet"));
      unet.loadStateDict(loadModel.stateDict(), true);
    }

    void saveState(Path savePath) throws IOException {
      saveModelHook(savePath);
    }

    void loadState(Path path) throws IOException {
      loadModelHook(path);
    }

    void train(int maxTrainSteps, Path outputDir, Path resumeFrom) throws IOException {
      if (resumeFrom != null) {
        loadState(resumeFrom);
        globalStep = Integer.parseInt(resumeFrom.getFileName().toString().split("-")[1]);
      }
      unet.train();
      while (globalStep < maxTrainSteps) {
        Tensor latents = Tensor.randn(Shape.of(4, 16), device);          // vae.encode(pixel_values)
        Tensor encoderHiddenStates = Tensor.randn(Shape.of(4, 8), device); // text_encoder(input_ids)
        Tensor noise = Tensor.randnLike(latents);
        Tensor timesteps = Tensor.randint(0, 1000, Shape.of(4), device);
        Tensor alpha = timesteps.div(1000.0).unsqueeze(1);
        Tensor noisyLatents = latents.mul(alpha.rsub(1.0).sqrt()).add(noise.mul(alpha.sqrt()));
        Tensor modelPred = unet.forward(noisyLatents, timesteps.div(1000.0), encoderHiddenStates);
        Tensor loss = mseLoss.forward(modelPred, noise);
        loss.backward();
        Gradients.clipNorm(unet.parameters(), 1.0);
        optimizer.step();
        optimizer.zeroGrad();
        if (useEma) {
          emaUnet.step(unet.parameters());
        }
        globalStep += 1;
        if (globalStep % 2 == 0) {
          saveState(outputDir.resolve("checkpoint-" + globalStep));
        }
      }
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    Path outputDir = Files.createTempDirectory("sd-model-finetuned");
    try {
      new TrainTextToImage(device).train(2, outputDir, null);
      new TrainTextToImage(device).train(4, outputDir, outputDir.resolve("checkpoint-2"));
    } finally {
      try (Stream<Path> files = Files.walk(outputDir)) {
        for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      }
    }
  }
}
