package corpus.correct;

import dev.ondevice.Autograd;
import dev.ondevice.Device;
import dev.ondevice.Parameter;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.data.Batch;
import dev.ondevice.data.DataLoader;
import dev.ondevice.data.TensorDataset;
import dev.ondevice.nn.CrossEntropyLoss;
import dev.ondevice.nn.Embedding;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.optim.AdamW;
import java.util.HashMap;
import java.util.Map;

/**
 * OpenCLIP's contrastive loss: the ground-truth labels are {@code torch.arange(num_logits,
 * device=image_features.device)}, cached per device in a plain dict {@code self.labels}, and the
 * loss is the mean of the image and text cross-entropies.
 *
 * <p>Source: https://github.com/mlfoundations/open_clip/blob/00aa464c20f60168d8220ea25da4adbbe5129eba/src/open_clip/loss.py
 *
 * <p>Ported: ClipLoss for world_size 1 (logits both ways with {@code logit_scale}, the label
 * cache keyed by device with {@code prev_num_logits}, the two cross-entropies), a small CLIP-style
 * model returning normalised features and {@code logit_scale.exp()}, and a training loop in the
 * manner of open_clip's train.py (batches moved with {@code non_blocking=True}, logit_scale clamped
 * to [0, ln 100] after each step). Left out: gather_features and the distributed branches,
 * horovod, CoCaLoss, autocast. ClipLoss is a plain class here (the runtime's losses are not
 * models) and keeps its labels in a {@code Map<Device, Tensor>} as the original keeps a dict.
 *
 * <p>Outcome: completes
 */
public final class OpenClipClipLossLabelCache {
  private OpenClipClipLossLabelCache() {}

  static final class ClipLoss {
    final boolean cacheLabels;
    int prevNumLogits = 0;
    final Map<Device, Tensor> labels = new HashMap<>();
    final CrossEntropyLoss crossEntropy = new CrossEntropyLoss();

    ClipLoss(boolean cacheLabels) {
      this.cacheLabels = cacheLabels;
    }

    Tensor forward(Tensor imageFeatures, Tensor textFeatures, Tensor logitScale) {
      Device device = imageFeatures.device();
      Tensor logitsPerImage = logitScale.mul(imageFeatures.matmul(textFeatures.t()));
      Tensor logitsPerText = logitScale.mul(textFeatures.matmul(imageFeatures.t()));
      int numLogits = (int) logitsPerImage.size(0);
      Tensor target;
      if (prevNumLogits != numLogits || !labels.containsKey(device)) {
        target = Tensor.arange(numLogits, device);
        if (cacheLabels) {
          labels.put(device, target);
          prevNumLogits = numLogits;
        }
      } else {
        target = labels.get(device);
      }
      return crossEntropy.forward(logitsPerImage, target).add(crossEntropy.forward(logitsPerText, target)).div(2);
    }
  }

  static Tensor normalize(Tensor x) {
    return x.div(x.square().sum(-1, true).sqrt().clampMin(1e-12));
  }

  static final class Clip extends Model {
    final Linear visual = new Linear(48, 16);
    final Embedding tokenEmbedding = new Embedding(30, 16);
    final Linear textProjection = new Linear(16, 16);
    final Parameter logitScale = new Parameter(Tensor.full(Shape.of(), Math.log(1 / 0.07)));

    Tensor[] forward(Tensor image, Tensor text) {
      Tensor imageFeatures = normalize(visual.forward(image.flatten(1)));
      Tensor textFeatures = normalize(textProjection.forward(tokenEmbedding.forward(text).mean(1)));
      return new Tensor[] {imageFeatures, textFeatures, logitScale.exp()};
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    TensorDataset data = new TensorDataset(Tensor.randn(Shape.of(24, 3, 4, 4)), Tensor.randint(0, 30, Shape.of(24, 6)));
    DataLoader loader = DataLoader.builder(data).batchSize(8).shuffle(0).pinMemory(true).build();
    Clip model = new Clip();
    model.toDevice(device);
    AdamW optimizer = new AdamW(model.parameters(), 5e-4);
    ClipLoss loss = new ClipLoss(true);
    for (int epoch = 0; epoch < 2; epoch++) {
      for (Batch batch : loader) {
        Tensor images = batch.inputs().to(device, true);
        Tensor texts = batch.targets().to(device, true);
        optimizer.zeroGrad();
        Tensor[] out = model.forward(images, texts);
        Tensor totalLoss = loss.forward(out[0], out[1], out[2]);
        totalLoss.backward();
        optimizer.step();
        try (Autograd.Scope s = Autograd.noGrad()) {
          model.logitScale.copyFrom(model.logitScale.clamp(0, Math.log(100)));
        }
      }
    }
    if (loss.labels.size() != 1 || !loss.labels.containsKey(device)) {
      throw new IllegalStateException("expected one cached label tensor, for " + device);
    }
  }
}
