package corpus.bugs;

import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.nn.ReLU;
import dev.ondevice.nn.Sequential;
import dev.ondevice.nn.Tanh;
import dev.ondevice.optim.Adam;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Cortex's GAN plugins: a {@code ModelPlugin} holds its networks ({@code self.nets}), its losses
 * ({@code self.losses}) and the results it reports ({@code self.results}); the {@code
 * Discriminator} and {@code Generator} routines run on every training step, and the trainer
 * collects each step's results into {@code _all_epoch_results}, converted with {@code
 * convert_to_numpy} and averaged at the end of the epoch.
 *
 * <p>Source: https://github.com/rdevon/cortex/issues/199 (cortex/built_ins/models/gan.py at
 * 2837b22)
 *
 * <p>Bug: the routines store results with {@code .item()} ({@code Ep=P_samples.mean().item()},
 * {@code difference.item()}, {@code weights.mean().item()}), which makes the host wait for the GPU
 * inside every step although the values are only needed at the end of the epoch. The fix proposed
 * in the issue stores {@code .detach()}ed tensors and lets the epoch-end conversion read them.
 *
 * <p>Outcome: completes (a slowdown)
 */
public final class CortexGanRoutineItemEveryStep {
  private CortexGanRoutineItemEveryStep() {}

  static Tensor softplus(Tensor x) {
    return x.clampMin(0).add(x.abs().neg().exp().log1p());
  }

  static Tensor getPositiveExpectation(Tensor pSamples, String measure) {
    if (measure.equals("GAN")) {
      return softplus(pSamples.neg()).neg().mean();
    } else if (measure.equals("JSD")) {
      return softplus(pSamples.neg()).neg().add(Math.log(2.)).mean();
    }
    throw new UnsupportedOperationException(measure);
  }

  static Tensor getNegativeExpectation(Tensor qSamples, String measure) {
    if (measure.equals("GAN")) {
      return softplus(qSamples.neg()).add(qSamples).mean();
    } else if (measure.equals("JSD")) {
      return softplus(qSamples.neg()).add(qSamples).sub(Math.log(2.)).mean();
    }
    throw new UnsupportedOperationException(measure);
  }

  static Tensor getWeight(Tensor samples, String measure) {
    return samples.pow(2);
  }

  static Tensor generatorLoss(Tensor qSamples, String measure, String lossType) {
    if (lossType.equals("non-saturating")) {
      return getPositiveExpectation(qSamples, measure).neg();
    }
    return getNegativeExpectation(qSamples, measure);
  }

  /** {@code ModelPlugin}: nets, losses and results shared by the plugins of one model. */
  abstract static class ModelPlugin {
    final Map<String, Model> nets;
    final Map<String, Tensor> losses;
    final Map<String, Object> results;

    ModelPlugin(Map<String, Model> nets, Map<String, Tensor> losses, Map<String, Object> results) {
      this.nets = nets;
      this.losses = losses;
      this.results = results;
    }
  }

  static final class Discriminator extends ModelPlugin {
    Discriminator(Map<String, Model> nets, Map<String, Tensor> losses, Map<String, Object> results) {
      super(nets, losses, results);
    }

    void routine(Tensor real, Tensor fake, String measure) {
      Tensor[] s = score(real, fake, measure);
      Tensor difference = s[0].sub(s[1]);
      results.put("Scores.Ep", s[2].mean().item()); // bug: per-step
      results.put("Scores.Eq", s[3].mean().item()); // bug: per-step
      results.put(measure + " distance", difference.item()); // bug: per-step
      losses.put("discriminator", difference.neg());
    }

    Tensor[] score(Tensor xP, Tensor xQ, String measure) {
      Sequential discriminator = (Sequential) nets.get("discriminator");
      Tensor pSamples = discriminator.forward(xP);
      Tensor qSamples = discriminator.forward(xQ);
      return new Tensor[] {getPositiveExpectation(pSamples, measure), getNegativeExpectation(qSamples, measure), pSamples, qSamples};
    }
  }

  static final class Generator extends ModelPlugin {
    Generator(Map<String, Model> nets, Map<String, Tensor> losses, Map<String, Object> results) {
      super(nets, losses, results);
    }

    void routine(Tensor z, String measure, String lossType) {
      Sequential discriminator = (Sequential) nets.get("discriminator");
      Sequential generator = (Sequential) nets.get("generator");
      Tensor xQ = generator.forward(z);
      Tensor samples = discriminator.forward(xQ);
      Tensor gLoss = generatorLoss(samples, measure, lossType);
      Tensor weights = getWeight(samples, measure);
      losses.put("generator", gLoss);
      if (weights != null) {
        results.put("Weights", weights.mean().item()); // bug: per-step
      }
    }
  }

  /** {@code convert_to_numpy} at the end of the epoch: a float stays a float, a tensor is read. */
  static double convertToNumber(Object value) {
    return value instanceof Tensor t ? t.item() : (Double) value;
  }

  public static void run(Device device) {
    Map<String, Model> nets = new LinkedHashMap<>();
    nets.put("discriminator", new Sequential(new Linear(2, 32), new ReLU(), new Linear(32, 32), new ReLU(), new Linear(32, 1)));
    nets.put("generator", new Sequential(new Linear(4, 32), new ReLU(), new Linear(32, 2), new Tanh()));
    for (Model net : nets.values()) {
      net.toDevice(device);
    }
    Map<String, Tensor> losses = new LinkedHashMap<>();
    Map<String, Object> results = new LinkedHashMap<>();
    Discriminator discriminator = new Discriminator(nets, losses, results);
    Generator generator = new Generator(nets, losses, results);
    Adam dOptimizer = new Adam(nets.get("discriminator").parameters(), 1e-3);
    Adam gOptimizer = new Adam(nets.get("generator").parameters(), 1e-3);

    for (int epoch = 0; epoch < 2; epoch++) {
      List<Map<String, Object>> allEpochResults = new ArrayList<>();
      for (int step = 0; step < 5; step++) {
        Tensor real = Tensor.randn(Shape.of(16, 2), device).mul(0.1).add(0.5);
        Tensor z = Tensor.randn(Shape.of(16, 4), device);
        results.clear();
        discriminator.routine(real, ((Sequential) nets.get("generator")).forward(z).detach(), "GAN");
        dOptimizer.zeroGrad();
        losses.get("discriminator").backward();
        dOptimizer.step();
        generator.routine(z, "GAN", "non-saturating");
        gOptimizer.zeroGrad();
        losses.get("generator").backward();
        gOptimizer.step();
        allEpochResults.add(new LinkedHashMap<>(results));
      }
      Map<String, Double> means = new LinkedHashMap<>();
      for (Map<String, Object> r : allEpochResults) {
        for (Map.Entry<String, Object> e : r.entrySet()) {
          means.merge(e.getKey(), convertToNumber(e.getValue()) / allEpochResults.size(), Double::sum);
        }
      }
      System.out.println("epoch " + epoch + ": " + means);
    }
  }
}
