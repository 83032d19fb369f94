package corpus.correct;

import dev.ondevice.Autograd;
import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.nn.CrossEntropyLoss;
import dev.ondevice.nn.Embedding;
import dev.ondevice.nn.Model;
import dev.ondevice.optim.AdamW;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Karpathy's bigram language model from the "Let's build GPT" lecture: the whole text is one int64
 * tensor on the CPU; {@code get_batch} draws random offsets on the CPU, stacks the windows and
 * moves {@code x, y} to the device; {@code estimate_loss} averages {@code eval_iters} batch losses
 * per split in a CPU tensor {@code losses = torch.zeros(eval_iters)} filled with {@code losses[k]
 * = loss.item()}; the model reads its logits straight from an embedding table and computes the
 * cross entropy itself when given targets.
 *
 * <p>Source: https://github.com/karpathy/ng-video-lecture/blob/267bb9cb72dbc68b3974b33fb1c62d0e88475d97/bigram.py
 *
 * <p>Ported: get_batch, estimate_loss, BigramLanguageModel.forward and the training loop as written
 * (AdamW, evaluation every {@code eval_interval} steps). Left out: reading input.txt (a random
 * token sequence stands in), and {@code generate}, which samples with {@code torch.multinomial}.
 *
 * <p>Outcome: completes
 */
public final class NgVideoLectureBigramEstimateLoss {
  private NgVideoLectureBigramEstimateLoss() {}

  // hyperparameters
  static final int BATCH_SIZE = 8;
  static final int BLOCK_SIZE = 8;
  static final int MAX_ITERS = 30;
  static final int EVAL_INTERVAL = 10;
  static final double LEARNING_RATE = 1e-2;
  static final int EVAL_ITERS = 5;

  static Device device;
  static Tensor trainData;
  static Tensor valData;
  static BigramLanguageModel model;

  static Tensor[] getBatch(String split) {
    Tensor data = split.equals("train") ? trainData : valData;
    Tensor ix = Tensor.randint(0, data.size(0) - BLOCK_SIZE, Shape.of(BATCH_SIZE));
    List<Tensor> xs = new ArrayList<>();
    List<Tensor> ys = new ArrayList<>();
    for (long i : ix.toLongArray()) {
      xs.add(data.slice(0, i, i + BLOCK_SIZE));
      ys.add(data.slice(0, i + 1, i + BLOCK_SIZE + 1));
    }
    Tensor x = Tensor.stack(xs);
    Tensor y = Tensor.stack(ys);
    x = x.to(device); // costs time: CreateThenMove
    y = y.to(device); // costs time: CreateThenMove
    return new Tensor[] {x, y};
  }

  static Map<String, Tensor> estimateLoss() {
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      Map<String, Tensor> out = new LinkedHashMap<>();
      model.eval();
      for (String split : new String[] {"train", "val"}) {
        Tensor losses = Tensor.zeros(EVAL_ITERS);
        for (int k = 0; k < EVAL_ITERS; k++) {
          Tensor[] xy = getBatch(split);
          Tensor[] logitsLoss = model.forward(xy[0], xy[1]);
          losses.select(0, k).fill(logitsLoss[1].item()); // costs time: HostSyncInLoop
        }
        out.put(split, losses.mean());
      }
      model.train();
      return out;
    }
  }

  /** super simple bigram model */
  static final class BigramLanguageModel extends Model {
    final Embedding tokenEmbeddingTable;
    final CrossEntropyLoss crossEntropy = new CrossEntropyLoss();

    BigramLanguageModel(int vocabSize) {
      tokenEmbeddingTable = new Embedding(vocabSize, vocabSize);
    }

    Tensor[] forward(Tensor idx, Tensor targets) {
      Tensor logits = tokenEmbeddingTable.forward(idx);
      Tensor loss;
      if (targets == null) {
        loss = null;
      } else {
        long b = logits.size(0);
        long t = logits.size(1);
        long c = logits.size(2);
        logits = logits.view(b * t, c);
        targets = targets.view(b * t);
        loss = crossEntropy.forward(logits, targets);
      }
      return new Tensor[] {logits, loss};
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    NgVideoLectureBigramEstimateLoss.device = device;
    int vocabSize = 32;
    Tensor data = Tensor.randint(0, vocabSize, Shape.of(500)).to(DType.INT64);
    int n = (int) (0.9 * data.size(0));
    trainData = data.slice(0, 0, n);
    valData = data.slice(0, n, data.size(0));

    model = new BigramLanguageModel(vocabSize);
    BigramLanguageModel m = model;
    m.toDevice(device);
    AdamW optimizer = new AdamW(model.parameters(), LEARNING_RATE);

    for (int iter = 0; iter < MAX_ITERS; iter++) {
      if (iter % EVAL_INTERVAL == 0) {
        Map<String, Tensor> losses = estimateLoss();
        System.out.printf("step %d: train loss %.4f, val loss %.4f%n", iter, losses.get("train").item(),
            losses.get("val").item());
      }
      Tensor[] xy = getBatch("train");
      Tensor[] logitsLoss = model.forward(xy[0], xy[1]);
      optimizer.zeroGrad();
      logitsLoss[1].backward();
      optimizer.step();
    }
  }
}
