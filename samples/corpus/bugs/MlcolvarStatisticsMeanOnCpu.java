package corpus.bugs;

import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.annotations.Buffer;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.nn.MseLoss;
import dev.ondevice.nn.Sequential;
import dev.ondevice.nn.Tanh;
import dev.ondevice.optim.Adam;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * mlcolvar's {@code Statistics} (running mean and standard deviation by Welford's algorithm, plus
 * min and max), used by {@code DictDataset.get_stats()} to compute the statistics of every key of a
 * dataset, which then set the buffers of the {@code Normalization} block of a collective-variable
 * model (here an autoencoder CV, trained for a few steps).
 *
 * <p>Source: https://github.com/luigibonati/mlcolvar/pull/185 (commit 438d36d)
 *
 * <p>Bug: {@code Statistics} is a plain object whose running {@code mean}, {@code M2} and {@code std}
 * are created at the first {@code update} with {@code torch.zeros(nfeatures)}, on the CPU; with a
 * dataset held on the GPU, {@code delta = sample_mean - self.mean} mixes cuda:0 and cpu. The fix
 * creates them with {@code device=x.device}.
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class MlcolvarStatisticsMeanOnCpu {
  private MlcolvarStatisticsMeanOnCpu() {}

  /** {@code mlcolvar.core.transform.utils.Statistics}. */
  static final class Statistics {
    long count = 0;
    Tensor mean;
    Tensor std;
    Tensor min;
    Tensor max;
    Tensor m2;

    Statistics(Tensor x) {
      update(x);
    }

    void update(Tensor x) {
      if (x == null) {
        return;
      }
      // get batch size
      int ndim = x.dim();
      if (ndim == 0) {
        x = x.reshape(1, 1);
      } else if (ndim == 1) {
        x = x.unsqueeze(1);
      }
      long batchSize = x.size(0);
      long nfeatures = x.size(1);
      long newCount = count + batchSize;

      // Initialize
      if (mean == null) {
        mean = Tensor.zeros(nfeatures); // bug: held-outside-models
        m2 = Tensor.zeros(nfeatures); // bug: held-outside-models
        std = Tensor.zeros(nfeatures); // bug: held-outside-models
      }

      // compute sample mean
      Tensor sampleMean = x.mean(0);
      Tensor sampleM2 = x.sub(sampleMean).pow(2).sum(0);

      // update stats
      Tensor delta = sampleMean.sub(mean); // same bug
      mean.addi(delta.mul((double) batchSize / newCount));
      double corr = (double) batchSize * count / newCount;
      m2.addi(sampleM2.add(delta.pow(2).mul(corr)));
      count = newCount;
      std = m2.div(count).sqrt();

      // compute min/max
      Tensor sampleMin = x.min(0).values();
      Tensor sampleMax = x.max(0).values();
      if (min == null) {
        min = sampleMin;
        max = sampleMax;
      } else {
        min = Tensor.stack(List.of(sampleMin, min)).min(0).values();
        max = Tensor.stack(List.of(sampleMax, max)).max(0).values();
      }
    }

    Map<String, Tensor> toDict() {
      Map<String, Tensor> out = new LinkedHashMap<>();
      out.put("mean", mean);
      out.put("std", std);
      out.put("min", min);
      out.put("max", max);
      return out;
    }
  }

  /** {@code DictDataset}: named tensors of equal length. */
  static final class DictDataset {
    final Map<String, Tensor> dictionary = new LinkedHashMap<>();

    DictDataset(Map<String, Tensor> dictionary) {
      this.dictionary.putAll(dictionary);
    }

    Map<String, Map<String, Tensor>> getStats() {
      Map<String, Map<String, Tensor>> stats = new LinkedHashMap<>();
      for (String k : dictionary.keySet()) {
        stats.put(k, new Statistics(dictionary.get(k)).toDict());
      }
      return stats;
    }
  }

  /** {@code Normalization} in {@code mean_std} mode: subtracts the mean and divides by the range (std). */
  static final class Normalization extends Model {
    @Buffer Tensor mean;
    @Buffer Tensor range;

    Normalization(int inFeatures, Tensor mean, Tensor range) {
      this.mean = mean.clone();
      Tensor r = range.clone();
      this.range = Tensor.where(r.lt(1e-6), Tensor.onesLike(r), r);   // sanitize_range
    }

    Tensor forward(Tensor x) {
      return x.sub(mean).div(range);
    }
  }

  /** {@code AutoEncoderCV}: norm_in, encoder, decoder. */
  static final class AutoEncoderCv extends Model {
    final Normalization normIn;
    final Sequential encoder;
    final Sequential decoder;

    AutoEncoderCv(int inFeatures, Map<String, Tensor> stats) {
      normIn = new Normalization(inFeatures, stats.get("mean"), stats.get("std"));
      encoder = new Sequential(new Linear(inFeatures, 8), new Tanh(), new Linear(8, 2));
      decoder = new Sequential(new Linear(2, 8), new Tanh(), new Linear(8, inFeatures));
    }

    Tensor forwardCv(Tensor x) {
      return encoder.forward(normIn.forward(x));
    }

    Tensor trainingStep(Tensor x, MseLoss loss) {
      Tensor xn = normIn.forward(x);
      return loss.forward(decoder.forward(encoder.forward(xn)), xn);
    }
  }

  public static void run(Device device) {
    // positions of a toy system, put on the GPU by the user as in the issue
    Tensor data = Tensor.randn(Shape.of(64, 6), device).mul(10).add(3);
    Map<String, Tensor> dict = new LinkedHashMap<>();
    dict.put("data", data);
    DictDataset dataset = new DictDataset(dict);

    Map<String, Map<String, Tensor>> stats = dataset.getStats();
    AutoEncoderCv model = new AutoEncoderCv(6, stats.get("data"));
    model.toDevice(device);
    Adam opt = new Adam(model.parameters(), 1e-3);
    MseLoss loss = new MseLoss();
    for (int epoch = 0; epoch < 3; epoch++) {
      Tensor l = model.trainingStep(data, loss);
      opt.zeroGrad();
      l.backward();
      opt.step();
    }
    Tensor cv = model.forwardCv(data);
    System.out.println("cv shape " + cv.shape());
  }
}
