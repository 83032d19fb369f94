package corpus.correct;

import dev.ondevice.Autograd;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.nn.CrossEntropyLoss;
import dev.ondevice.nn.Embedding;
import dev.ondevice.nn.Model;
import dev.ondevice.optim.AdamW;
import dev.ondevice.optim.Gradients;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * nanoGPT's training loop: {@code get_batch} builds each batch on the host and copies it with
 * {@code pin_memory().to(device, non_blocking=True)}, the next batch is fetched while the micro-steps
 * accumulate gradients, and the loss is read with {@code loss.item()} only every
 * {@code log_interval} iterations; {@code estimate_loss} fills a CPU tensor of losses every
 * {@code eval_interval} iterations.
 *
 * <p>Source: https://github.com/karpathy/nanoGPT/blob/master/train.py
 *
 * <p>Ported: get_batch, estimate_loss, get_lr and the training loop (lr set per iteration,
 * gradient accumulation, clipping, zero_grad, periodic logging) with the script's globals as static
 * fields. Left out: DDP, autocast and the GradScaler (disabled for float32 in the original: plain
 * backward and step here), torch.compile, checkpoint saving, MFU, wandb, the memmap files (random
 * token arrays), configure_optimizers' two weight-decay groups (one AdamW group here), and GPT
 * itself (a bigram model with the same forward(idx, targets) returning logits and loss).
 *
 * <p>Outcome: completes
 */
public final class NanoGptGradientAccumulation {
  private NanoGptGradientAccumulation() {}

  record LogitsAndLoss(Tensor logits, Tensor loss) {}

  record XY(Tensor x, Tensor y) {}

  static final class BigramLanguageModel extends Model {
    final Embedding tokenEmbeddingTable = new Embedding(65, 65);

    LogitsAndLoss forward(Tensor idx, Tensor targets) {
      Tensor logits = tokenEmbeddingTable.forward(idx);
      Tensor loss = new CrossEntropyLoss().forward(logits.view(-1, logits.size(-1)), targets.view(-1));
      return new LogitsAndLoss(logits, loss);
    }
  }

  static int evalInterval = 4;
  static int logInterval = 2;
  static int evalIters = 3;
  static int gradientAccumulationSteps = 4;
  static int batchSize = 4;
  static int blockSize = 8;
  static double learningRate = 1e-3;
  static int maxIters = 8;
  static int warmupIters = 2;
  static int lrDecayIters = 8;
  static double minLr = 1e-4;
  static double gradClip = 1.0;
  static Device device;
  static String deviceType;
  static long[] trainData;
  static long[] valData;
  static BigramLanguageModel model;

  static XY getBatch(String split) {
    long[] data = split.equals("train") ? trainData : valData;
    long[] ix = Tensor.randint(0, data.length - blockSize, Shape.of(batchSize)).toLongArray();
    List<Tensor> xs = new ArrayList<>();
    List<Tensor> ys = new ArrayList<>();
    for (long i : ix) {
      xs.add(Tensor.of(java.util.Arrays.copyOfRange(data, (int) i, (int) i + blockSize)));
      ys.add(Tensor.of(java.util.Arrays.copyOfRange(data, (int) i + 1, (int) i + 1 + blockSize)));
    }
    Tensor x = Tensor.stack(xs);
    Tensor y = Tensor.stack(ys);
    if (deviceType.equals("cuda")) {
      // pin arrays x,y, which allows us to move them to GPU asynchronously (non_blocking=True)
      x = x.pinMemory().to(device, true);
      y = y.pinMemory().to(device, true);
    } else {
      x = x.to(device);
      y = y.to(device);
    }
    return new XY(x, y);
  }

  static Map<String, Tensor> estimateLoss() {
    Map<String, Tensor> out = new LinkedHashMap<>();
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      model.eval();
      for (String split : List.of("train", "val")) {
        Tensor losses = Tensor.zeros(evalIters);
        for (int k = 0; k < evalIters; k++) {
          XY xy = getBatch(split);
          LogitsAndLoss r = model.forward(xy.x(), xy.y());
          losses.select(0, k).fill(r.loss().item()); // costs time: HostSyncInLoop
        }
        out.put(split, losses.mean());
      }
      model.train();
    }
    return out;
  }

  static double getLr(int it) {
    if (it < warmupIters) {
      return learningRate * it / warmupIters;
    }
    if (it > lrDecayIters) {
      return minLr;
    }
    double decayRatio = (double) (it - warmupIters) / (lrDecayIters - warmupIters);
    double coeff = 0.5 * (1.0 + Math.cos(Math.PI * decayRatio));
    return minLr + coeff * (learningRate - minLr);
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    NanoGptGradientAccumulation.device = device;
    deviceType = device.isCuda() ? "cuda" : "cpu";
    trainData = Tensor.randint(0, 65, Shape.of(500)).toLongArray();
    valData = Tensor.randint(0, 65, Shape.of(100)).toLongArray();
    model = new BigramLanguageModel();
    model.toDevice(device);
    AdamW optimizer = new AdamW(model.parameters(), learningRate).betas(0.9, 0.95).weightDecay(0.1);
    int iterNum = 0;
    double bestValLoss = 1e9;

    XY xy = getBatch("train"); // fetch the very first batch
    Tensor loss = null;
    while (true) {
      double lr = getLr(iterNum);
      optimizer.setLearningRate(lr);
      if (iterNum % evalInterval == 0) {
        Map<String, Tensor> losses = estimateLoss();
        System.out.printf("step %d: train loss %.4f, val loss %.4f%n", iterNum, losses.get("train").item(),
            losses.get("val").item());
        if (losses.get("val").item() < bestValLoss) {
          bestValLoss = losses.get("val").item();
        }
      }
      for (int microStep = 0; microStep < gradientAccumulationSteps; microStep++) {
        LogitsAndLoss r = model.forward(xy.x(), xy.y());
        loss = r.loss().div(gradientAccumulationSteps); // scale the loss to account for gradient accumulation
        xy = getBatch("train"); // immediately async prefetch next batch while model is doing the forward pass
        loss.backward();
      }
      if (gradClip != 0.0) {
        Gradients.clipNorm(model.parameters(), gradClip);
      }
      optimizer.step();
      optimizer.zeroGrad();
      if (iterNum % logInterval == 0) {
        double lossf = loss.item() * gradientAccumulationSteps; // note: this is a CPU-GPU sync point
        System.out.printf("iter %d: loss %.4f%n", iterNum, lossf);
      }
      iterNum++;
      if (iterNum > maxIters) {
        break;
      }
    }
  }
}
