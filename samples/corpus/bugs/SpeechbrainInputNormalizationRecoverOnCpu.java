package corpus.bugs;

import dev.ondevice.Autograd;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.annotations.Buffer;
import dev.ondevice.io.Checkpoint;
import dev.ondevice.io.MapLocation;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.nn.NllLoss;
import dev.ondevice.optim.Adam;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * speechbrain's {@code InputNormalization} with {@code norm_type="global"}: during training it
 * updates running global statistics ({@code glob_mean}, {@code glob_std}) from each batch and
 * normalizes the features with them; the checkpointer saves the statistics with {@code _save} and,
 * when an experiment is recovered for evaluation, restores them with {@code _load}, which reads the
 * file with {@code torch.load(path, map_location="cpu")} into the module's statistics.
 *
 * <p>Source: https://github.com/speechbrain/speechbrain/pull/1841
 *
 * <p>Bug: after the checkpoint is recovered, {@code glob_mean} and {@code glob_std} are the CPU
 * tensors that {@code _load} read, while the module and the features are on CUDA, so evaluation
 * right after loading fails in {@code (x - self.glob_mean) / self.glob_std}; the fix moved the
 * loaded statistics to the features' device.
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class SpeechbrainInputNormalizationRecoverOnCpu {
  private SpeechbrainInputNormalizationRecoverOnCpu() {}

  static final class InputNormalization extends Model {
    @Buffer Tensor globMean;
    @Buffer Tensor globStd;
    int count = 0;

    InputNormalization(int nFeats) {
      globMean = Tensor.zeros(Shape.of(nFeats));
      globStd = Tensor.ones(Shape.of(nFeats));
    }

    Tensor forward(Tensor x) {
      if (isTraining()) {
        Tensor currentMean = x.mean(new int[] {0, 1}, false).detach();
        Tensor currentStd = x.std(new int[] {0, 1}, true, false).clampMin(1e-10).detach();
        if (count == 0) {
          globMean = currentMean;
          globStd = currentStd;
        } else {
          double weight = 1.0 / (count + 1);
          globMean = globMean.mul(1 - weight).add(currentMean.mul(weight));
          globStd = globStd.mul(1 - weight).add(currentStd.mul(weight));
        }
        count += 1;
      }
      return x.sub(globMean).div(globStd); // same bug
    }

    void save(Path path) throws Exception {
      Map<String, Tensor> stats = new LinkedHashMap<>();
      stats.put("glob_mean", globMean);
      stats.put("glob_std", globStd);
      Checkpoint.save(path, stats, null);
    }

    void load(Path path) throws Exception {
      Map<String, Tensor> stats = Checkpoint.load(path, MapLocation.to(Device.cpu())).stateDict();
      globMean = stats.get("glob_mean"); // bug: training-state
      globStd = stats.get("glob_std"); // same bug
    }
  }

  /** The recipe's modules: normalization, then a linear classifier with log-softmax. */
  static final class Classifier extends Model {
    final InputNormalization meanVarNorm = new InputNormalization(20);
    final Linear output = new Linear(20, 5);

    Tensor forward(Tensor feats) {
      Tensor x = meanVarNorm.forward(feats);
      return output.forward(x.mean(1)).logSoftmax(-1);
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    Path ckptDir = Files.createTempDirectory("speechbrain-ckpt");
    Classifier modules = new Classifier();
    modules.toDevice(device);
    Adam optimizer = new Adam(modules.parameters(), 1e-3);
    NllLoss nll = new NllLoss();
    modules.train();
    for (int step = 0; step < 4; step++) {
      Tensor feats = Tensor.randn(Shape.of(4, 30, 20), device).mul(3.0).add(1.0);
      Tensor labels = Tensor.randint(0, 5, Shape.of(4), device);
      Tensor loss = nll.forward(modules.forward(feats), labels);
      optimizer.zeroGrad();
      loss.backward();
      optimizer.step();
    }
    modules.meanVarNorm.save(ckptDir.resolve("normalizer.ckpt"));

    // evaluate: a fresh brain recovers the best checkpoint
    Classifier evalModules = new Classifier();
    evalModules.toDevice(device);
    evalModules.meanVarNorm.load(ckptDir.resolve("normalizer.ckpt"));
    evalModules.eval();
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      Tensor feats = Tensor.randn(Shape.of(2, 30, 20), device);
      System.out.println(evalModules.forward(feats).argmax(-1).cpu());
    }
  }
}
