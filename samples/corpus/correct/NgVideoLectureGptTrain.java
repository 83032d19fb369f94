package corpus.correct;

import dev.ondevice.Autograd;
import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.annotations.Buffer;
import dev.ondevice.nn.CrossEntropyLoss;
import dev.ondevice.nn.Dropout;
import dev.ondevice.nn.Embedding;
import dev.ondevice.nn.Layer;
import dev.ondevice.nn.LayerNorm;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.nn.ReLU;
import dev.ondevice.nn.Sequential;
import dev.ondevice.optim.AdamW;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Karpathy's "Let's build GPT" {@code gpt.py}: a character-level GPT (heads with a causal {@code
 * tril} buffer, multi-head attention, feed-forward blocks, position embeddings over {@code
 * torch.arange(T, device=device)}), trained with AdamW on batches that {@code get_batch} samples on
 * the host and moves to the device, with {@code estimate_loss} averaging the loss over
 * {@code eval_iters} batches of each split.
 *
 * <p>Source: https://github.com/karpathy/ng-video-lecture/blob/52201428ed7b46804849dea0b3ccf0de9df1a5c3/gpt.py
 *
 * <p>Ported: (commit 5220142) as written, with a tiny configuration (block 8, 2 layers, 2 heads, 32 channels,
 * 30 iterations) and a short repeated text instead of tinyshakespeare; {@code _init_weights} as
 * {@code apply}; the losses of {@code estimate_loss} kept in a float array, as the loop reads each
 * {@code loss.item()}. Left out: {@code generate} (multinomial sampling) and the decoded sample.
 *
 * <p>Outcome: completes
 */
public final class NgVideoLectureGptTrain {
  private NgVideoLectureGptTrain() {}

  static final int BATCH_SIZE = 4;
  static final int BLOCK_SIZE = 8;
  static final int MAX_ITERS = 30;
  static final int EVAL_INTERVAL = 10;
  static final double LEARNING_RATE = 3e-4;
  static final int EVAL_ITERS = 3;
  static final int N_EMBD = 32;
  static final int N_HEAD = 2;
  static final int N_LAYER = 2;
  static final double DROPOUT = 0.2;
  static Device device;
  static int vocabSize;
  static Tensor trainData;
  static Tensor valData;

  /** {@code get_batch(split)}: sampled on the host, moved to the device. */
  static Tensor[] getBatch(String split) {
    Tensor data = split.equals("train") ? trainData : valData;
    long[] ix = Tensor.randint(0, data.size(0) - BLOCK_SIZE, Shape.of(BATCH_SIZE)).toLongArray();
    List<Tensor> xs = new ArrayList<>();
    List<Tensor> ys = new ArrayList<>();
    for (long i : ix) {
      xs.add(data.slice(0, i, i + BLOCK_SIZE));
      ys.add(data.slice(0, i + 1, i + BLOCK_SIZE + 1));
    }
    Tensor x = Tensor.stack(xs).to(device);
    Tensor y = Tensor.stack(ys).to(device);
    return new Tensor[] {x, y};
  }

  static Map<String, Double> estimateLoss(GptLanguageModel model) {
    Map<String, Double> out = new LinkedHashMap<>();
    model.eval();
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      for (String split : List.of("train", "val")) {
        float[] losses = new float[EVAL_ITERS];
        for (int k = 0; k < EVAL_ITERS; k++) {
          Tensor[] xy = getBatch(split);
          Tensor loss = model.forward(xy[0], xy[1])[1];
          losses[k] = (float) loss.item(); // costs time: HostSyncInLoop
        }
        out.put(split, Tensor.of(losses).mean().item());
      }
    }
    model.train();
    return out;
  }

  /** One head of self-attention. */
  static final class Head extends Layer {
    final Linear key = new Linear(N_EMBD, N_EMBD / N_HEAD, false, Device.cpu());
    final Linear query = new Linear(N_EMBD, N_EMBD / N_HEAD, false, Device.cpu());
    final Linear value = new Linear(N_EMBD, N_EMBD / N_HEAD, false, Device.cpu());
    @Buffer Tensor tril = Tensor.arange(BLOCK_SIZE).unsqueeze(1).ge(Tensor.arange(BLOCK_SIZE).unsqueeze(0)).to(DType.FLOAT32);
    final Dropout dropout = new Dropout(DROPOUT);

    @Override
    public Tensor forward(Tensor x) {
      long t = x.size(1);
      Tensor k = key.forward(x);
      Tensor q = query.forward(x);
      Tensor wei = q.matmul(k.transpose(-2, -1)).mul(Math.pow(k.size(-1), -0.5));
      wei = wei.maskedFill(tril.slice(0, 0, t).slice(1, 0, t).eq(0), Double.NEGATIVE_INFINITY);
      wei = dropout.forward(wei.softmax(-1));
      Tensor v = value.forward(x);
      return wei.matmul(v);
    }
  }

  static final class MultiHeadAttention extends Layer {
    final List<Head> heads = new ArrayList<>();
    final Linear proj = new Linear(N_EMBD, N_EMBD);
    final Dropout dropout = new Dropout(DROPOUT);

    MultiHeadAttention(int numHeads) {
      for (int i = 0; i < numHeads; i++) {
        heads.add(new Head());
      }
    }

    @Override
    public Tensor forward(Tensor x) {
      Tensor out = Tensor.cat(heads.stream().map(h -> h.forward(x)).toList(), -1);
      return dropout.forward(proj.forward(out));
    }
  }

  static final class Block extends Layer {
    final MultiHeadAttention sa = new MultiHeadAttention(N_HEAD);
    final Sequential ffwd = new Sequential(new Linear(N_EMBD, 4 * N_EMBD), new ReLU(), new Linear(4 * N_EMBD, N_EMBD), new Dropout(DROPOUT));
    final LayerNorm ln1 = new LayerNorm(N_EMBD);
    final LayerNorm ln2 = new LayerNorm(N_EMBD);

    @Override
    public Tensor forward(Tensor x) {
      x = x.add(sa.forward(ln1.forward(x)));
      return x.add(ffwd.forward(ln2.forward(x)));
    }
  }

  static final class GptLanguageModel extends Model {
    final Embedding tokenEmbeddingTable = new Embedding(vocabSize, N_EMBD);
    final Embedding positionEmbeddingTable = new Embedding(BLOCK_SIZE, N_EMBD);
    final Sequential blocks;
    final LayerNorm lnF = new LayerNorm(N_EMBD);
    final Linear lmHead = new Linear(N_EMBD, vocabSize);
    final CrossEntropyLoss crossEntropy = new CrossEntropyLoss();

    GptLanguageModel() {
      Layer[] bs = new Layer[N_LAYER];
      for (int i = 0; i < N_LAYER; i++) {
        bs[i] = new Block();
      }
      blocks = new Sequential(bs);
      try (Autograd.Scope ignored = Autograd.noGrad()) {
        apply(m -> {
          if (m instanceof Linear l) {
            l.weight().copyFrom(Tensor.randnLike(l.weight()).mul(0.02));
            if (l.bias() != null) {
              l.bias().fill(0);
            }
          } else if (m instanceof Embedding e) {
            e.weight().copyFrom(Tensor.randnLike(e.weight()).mul(0.02));
          }
        });
      }
    }

    Tensor[] forward(Tensor idx, Tensor targets) {
      long t = idx.size(1);
      Tensor tokEmb = tokenEmbeddingTable.forward(idx);
      Tensor posEmb = positionEmbeddingTable.forward(Tensor.arange(t, device));
      Tensor x = lnF.forward(blocks.forward(tokEmb.add(posEmb)));
      Tensor logits = lmHead.forward(x);
      if (targets == null) {
        return new Tensor[] {logits, null};
      }
      long b = logits.size(0);
      long c = logits.size(2);
      Tensor loss = crossEntropy.forward(logits.view(b * t, c), targets.view(b * t));
      return new Tensor[] {logits, loss};
    }
  }

  public static void run(Device runDevice) {
    device = runDevice;
    String text = "First Citizen: Before we proceed any further, hear me speak. All: Speak, speak. ".repeat(4);
    TreeSet<Character> chars = new TreeSet<>();
    for (char ch : text.toCharArray()) {
      chars.add(ch);
    }
    vocabSize = chars.size();
    Map<Character, Long> stoi = new LinkedHashMap<>();
    long i0 = 0;
    for (char ch : chars) {
      stoi.put(ch, i0++);
    }
    long[] encoded = new long[text.length()];
    for (int i = 0; i < encoded.length; i++) {
      encoded[i] = stoi.get(text.charAt(i));
    }
    Tensor data = Tensor.of(encoded);
    long n = (long) (0.9 * data.size(0));
    trainData = data.slice(0, 0, n);
    valData = data.slice(0, n, data.size(0));

    GptLanguageModel model = new GptLanguageModel();
    model.toDevice(device);
    System.out.println(model.parameters().stream().mapToLong(Tensor::numel).sum() / 1e6 + " M parameters");
    AdamW optimizer = new AdamW(model.parameters(), LEARNING_RATE);

    for (int iter = 0; iter < MAX_ITERS; iter++) {
      if (iter % EVAL_INTERVAL == 0 || iter == MAX_ITERS - 1) {
        Map<String, Double> losses = estimateLoss(model);
        System.out.printf("step %d: train loss %.4f, val loss %.4f%n", iter, losses.get("train"), losses.get("val"));
      }
      Tensor[] xy = getBatch("train");
      Tensor loss = model.forward(xy[0], xy[1])[1];
      optimizer.zeroGrad();
      loss.backward();
      optimizer.step();
    }
  }
}
