package corpus.bugs;

import dev.ondevice.Device;
import dev.ondevice.Parameter;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.nn.Model;
import dev.ondevice.optim.Adam;
import java.util.ArrayList;
import java.util.List;

/**
 * fvdb-reality-capture's Gaussian-splat reconstruction runner: each step renders the splats for a
 * training view, computes the photometric loss, steps the optimizer, updates the tqdm progress bar
 * with the loss, and later in the same step logs the loss to the metrics writer.
 *
 * <p>Source: https://github.com/openvdb/fvdb-reality-capture/pull/144
 *
 * <p>Bug: "Calling {@code loss.item()} twice within the loop at separate points reduces the
 * throughput since we need to wait for the kernel streams to flush twice instead of once"; the fix
 * defers the progress-bar read to the place where the loss is read for logging (5-10% faster).
 *
 * <p>Outcome: completes (costs time)
 */
public final class FvdbSplatTrainingLossItemTwice {
  private FvdbSplatTrainingLossItemTwice() {}

  /** A splat model reduced to per-Gaussian colors and opacities splatted by fixed weights. */
  static final class GaussianSplat3d extends Model {
    final Parameter sh0 = new Parameter(Tensor.rand(Shape.of(64, 3)));
    final Parameter logitOpacities = new Parameter(Tensor.zeros(Shape.of(64)));

    Tensor render(Tensor splatWeights) {
      Tensor alphas = logitOpacities.sigmoid().unsqueeze(0).mul(splatWeights);
      return alphas.matmul(sh0);     // [pixels, 3]
    }
  }

  static final class ProgressBar {
    String description = "";

    void setDescription(String d) {
      description = d;
    }
  }

  static final class MetricsWriter {
    final List<String> lines = new ArrayList<>();

    void log(String key, double value, int step) {
      lines.add(key + "=" + value + "@" + step);
    }
  }

  static final class SceneOptimizationRunner {
    final GaussianSplat3d model;
    final Adam optimizer;
    final Device device;
    final ProgressBar pbar = new ProgressBar();
    final MetricsWriter writer = new MetricsWriter();
    final int logEvery = 1;

    SceneOptimizationRunner(GaussianSplat3d model, Device device) {
      this.model = model;
      this.device = device;
      this.optimizer = new Adam(model.parameters(), 1e-2);
    }

    void train(List<Tensor[]> views, int steps) {
      for (int step = 0; step < steps; step++) {
        Tensor[] view = views.get(step % views.size());
        Tensor weights = view[0].to(device);
        Tensor gtImage = view[1].to(device);
        Tensor predImage = model.render(weights);
        Tensor l1loss = predImage.sub(gtImage).abs().mean();
        Tensor loss = l1loss;
        optimizer.zeroGrad();
        loss.backward();
        optimizer.step();
        pbar.setDescription(String.format("loss=%.3f", loss.item())); // bug: in-method
        if (step % logEvery == 0) {
          writer.log("train/loss", loss.item(), step); // costs time: HostSyncInLoop
        }
      }
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    GaussianSplat3d model = new GaussianSplat3d();
    model.toDevice(device);
    List<Tensor[]> views = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      views.add(new Tensor[] {Tensor.rand(Shape.of(100, 64)).div(64), Tensor.rand(Shape.of(100, 3))});
    }
    SceneOptimizationRunner runner = new SceneOptimizationRunner(model, device);
    runner.train(views, 6);
    System.out.println(runner.pbar.description);
  }
}
