package corpus.correct;

import dev.ondevice.Autograd;
import dev.ondevice.Cuda;
import dev.ondevice.DType;
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
import dev.ondevice.nn.Reduction;
import dev.ondevice.optim.AdamW;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * Karpathy's makemore with {@code --type gru}: the RNN keeps its starting hidden state as a
 * parameter ({@code self.start = nn.Parameter(torch.zeros(1, n_embd2))}) and expands it to the
 * batch in {@code forward}; the GRU cell concatenates input and state; the loss ignores the
 * {@code -1} targets that pad each word. Training draws batches from an {@code
 * InfiniteDataLoader} with pinned memory and ships each to {@code args.device}; on CUDA it calls
 * {@code torch.cuda.synchronize()} every step to time it; {@code evaluate} collects {@code
 * loss.item()} of each batch in a Python list and averages it with {@code
 * torch.tensor(losses).mean().item()}.
 *
 * <p>Source: https://github.com/karpathy/makemore/blob/f61811b994280cb12ddae15ef5800baa2e3a1ca4/makemore.py
 *
 * <p>Ported: GRUCell, RNN, evaluate, CharDataset's {@code __getitem__} layout (a {@code <START>}
 * token, the word, then {@code -1} targets), InfiniteDataLoader and the training loop as written.
 * {@code F.cross_entropy(..., ignore_index=-1)} is written out as the masked mean it computes (the
 * runtime's loss has no {@code ignore_index}). Left out: the other model types, sampling, the
 * TensorBoard writer and checkpointing; the names file is replaced by random words.
 *
 * <p>Outcome: completes
 */
public final class MakemoreGruEvaluate {
  private MakemoreGruEvaluate() {}

  static final class ModelConfig {
    int blockSize;
    int vocabSize;
    int nEmbd = 16;
    int nEmbd2 = 16;
  }

  static Tensor crossEntropyIgnoreIndex(Tensor logits, Tensor targets, long ignoreIndex) {
    Tensor valid = targets.ne(ignoreIndex);
    Tensor safeTargets = Tensor.where(valid, targets, Tensor.zerosLike(targets));
    Tensor losses = new CrossEntropyLoss(Reduction.NONE).forward(logits, safeTargets);
    Tensor weights = valid.to(DType.FLOAT32);
    return losses.mul(weights).sum().div(weights.sum());
  }

  static final class GruCell extends Model {
    final Linear xhToZ;
    final Linear xhToR;
    final Linear xhToHbar;

    GruCell(ModelConfig config) {
      xhToZ = new Linear(config.nEmbd + config.nEmbd2, config.nEmbd2);
      xhToR = new Linear(config.nEmbd + config.nEmbd2, config.nEmbd2);
      xhToHbar = new Linear(config.nEmbd + config.nEmbd2, config.nEmbd2);
    }

    Tensor forward(Tensor xt, Tensor hprev) {
      Tensor xh = Tensor.cat(List.of(xt, hprev), 1);
      Tensor r = xhToR.forward(xh).sigmoid();
      Tensor hprevReset = r.mul(hprev);
      Tensor xhr = Tensor.cat(List.of(xt, hprevReset), 1);
      Tensor hbar = xhToHbar.forward(xhr).tanh();
      Tensor z = xhToZ.forward(xh).sigmoid();
      return z.rsub(1.0).mul(hprev).add(z.mul(hbar));
    }
  }

  static final class Rnn extends Model {
    final int blockSize;
    final int vocabSize;
    final Parameter start;
    final Embedding wte;
    final GruCell cell;
    final Linear lmHead;

    Rnn(ModelConfig config) {
      blockSize = config.blockSize;
      vocabSize = config.vocabSize;
      start = new Parameter(Tensor.zeros(1, config.nEmbd2));
      wte = new Embedding(config.vocabSize, config.nEmbd);
      cell = new GruCell(config);
      lmHead = new Linear(config.nEmbd2, vocabSize);
    }

    Tensor[] forward(Tensor idx, Tensor targets) {
      long b = idx.size(0);
      long t = idx.size(1);
      Tensor emb = wte.forward(idx);
      Tensor hprev = start.expand(b, start.size(1));
      List<Tensor> hiddens = new ArrayList<>();
      for (int i = 0; i < t; i++) {
        Tensor xt = emb.select(1, i);
        Tensor ht = cell.forward(xt, hprev);
        hprev = ht;
        hiddens.add(ht);
      }
      Tensor hidden = Tensor.stack(hiddens, 1);
      Tensor logits = lmHead.forward(hidden);
      Tensor loss = null;
      if (targets != null) {
        loss = crossEntropyIgnoreIndex(logits.view(-1, logits.size(-1)), targets.view(-1), -1);
      }
      return new Tensor[] {logits, loss};
    }
  }

  static double evaluate(Rnn model, TensorDataset dataset, int batchSize, Integer maxBatches, Device device) {
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      model.eval();
      DataLoader loader = DataLoader.builder(dataset).batchSize(batchSize).shuffle(7).build();
      List<Double> losses = new ArrayList<>();
      int i = 0;
      for (Batch batch : loader) {
        List<Tensor> moved = new ArrayList<>();
        for (Tensor t : batch.tensors()) {
          moved.add(t.to(device));
        }
        Tensor x = moved.get(0);
        Tensor y = moved.get(1);
        Tensor loss = model.forward(x, y)[1];
        losses.add(loss.item()); // costs time: HostSyncInLoop
        if (maxBatches != null && i >= maxBatches) {
          break;
        }
        i++;
      }
      double meanLoss = Tensor.of(losses.stream().mapToDouble(Double::doubleValue).toArray()).mean().item();
      model.train();
      return meanLoss;
    }
  }

  /** CharDataset.__getitem__ for every word: x = [0, word...], y = [word..., 0, -1, -1, ...]. */
  static TensorDataset charDataset(int numWords, int vocabSize, int maxWordLength, java.util.Random random) {
    long[] xs = new long[numWords * (maxWordLength + 1)];
    long[] ys = new long[numWords * (maxWordLength + 1)];
    for (int w = 0; w < numWords; w++) {
      int len = 1 + random.nextInt(maxWordLength);
      int base = w * (maxWordLength + 1);
      for (int k = 0; k < len; k++) {
        long ch = 1 + random.nextInt(vocabSize - 1);
        xs[base + 1 + k] = ch;
        ys[base + k] = ch;
      }
      for (int k = len + 1; k <= maxWordLength; k++) {
        ys[base + k] = -1;
      }
    }
    return new TensorDataset(Tensor.of(xs, numWords, maxWordLength + 1), Tensor.of(ys, numWords, maxWordLength + 1));
  }

  /** InfiniteDataLoader: re-iterates the loader when it runs out. */
  static final class InfiniteDataLoader {
    final DataLoader trainLoader;
    Iterator<Batch> dataIter;

    InfiniteDataLoader(TensorDataset dataset, int batchSize) {
      trainLoader = DataLoader.builder(dataset).batchSize(batchSize).shuffle(3407).pinMemory(true).build();
      dataIter = trainLoader.iterator();
    }

    Batch next() {
      if (!dataIter.hasNext()) {
        dataIter = trainLoader.iterator();
      }
      return dataIter.next();
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    java.util.Random random = new java.util.Random(3407);
    int vocabSize = 12;
    int maxWordLength = 6;
    TensorDataset trainDataset = charDataset(64, vocabSize, maxWordLength, random);
    TensorDataset testDataset = charDataset(16, vocabSize, maxWordLength, random);
    ModelConfig config = new ModelConfig();
    config.vocabSize = vocabSize;
    config.blockSize = maxWordLength + 1;
    Rnn model = new Rnn(config);
    model.toDevice(device);
    AdamW optimizer = new AdamW(model.parameters(), 5e-4).weightDecay(0.01).betas(0.9, 0.99).eps(1e-8);
    InfiniteDataLoader batchLoader = new InfiniteDataLoader(trainDataset, 8);
    int step = 0;
    int maxSteps = 12;
    while (true) {
      long t0 = System.nanoTime();
      Batch batch = batchLoader.next();
      List<Tensor> moved = new ArrayList<>();
      for (Tensor t : batch.tensors()) {
        moved.add(t.to(device));
      }
      Tensor x = moved.get(0);
      Tensor y = moved.get(1);
      Tensor loss = model.forward(x, y)[1];
      model.zeroGrad();
      loss.backward();
      optimizer.step();
      if (device.isCuda()) {
        Cuda.synchronize(); // costs time: HostSyncInLoop
      }
      long t1 = System.nanoTime();
      if (step % 5 == 0) {
        System.out.printf("step %d | loss %.4f | step time %.2fms%n", step, loss.item(), (t1 - t0) / 1e6); // costs time: HostSyncInLoop
      }
      if (step > 0 && step % 10 == 0) {
        double trainLoss = evaluate(model, trainDataset, 16, 2, device);
        double testLoss = evaluate(model, testDataset, 16, 2, device);
        System.out.printf("step %d train loss: %.4f test loss: %.4f%n", step, trainLoss, testLoss);
      }
      step += 1;
      if (maxSteps >= 0 && step >= maxSteps) {
        break;
      }
    }
  }
}
