package corpus.correct;

import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.annotations.Buffer;
import dev.ondevice.nn.CrossEntropyLoss;
import dev.ondevice.nn.Dropout;
import dev.ondevice.nn.Embedding;
import dev.ondevice.nn.GELU;
import dev.ondevice.nn.Layer;
import dev.ondevice.nn.LayerNorm;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.optim.AdamW;
import java.util.ArrayList;
import java.util.List;

/**
 * nanoGPT's GPT: causal self-attention masked with a registered lower-triangular {@code bias}
 * buffer, and positions made with {@code arange(0, t, device=idx.device)} in {@code GPT.forward}.
 *
 * <p>Source: https://github.com/karpathy/nanoGPT/blob/master/model.py
 *
 * <p>Ported: CausalSelfAttention (its non-flash path, the one that registers the {@code bias}
 * buffer), MLP, Block, GPT.forward with its {@code pos} arange on the input's device and the loss,
 * and a few AdamW steps. Left out: the flash-attention branch, weight tying, the custom init,
 * {@code ignore_index=-1} (CrossEntropyLoss has none), from_pretrained and generate. The runtime's
 * LayerNorm stands for nanoGPT's LayerNorm with bias; {@code torch.tril(ones)} is built from two
 * aranges and {@code split} is three {@code narrow}s (the API has neither).
 *
 * <p>Outcome: completes
 */
public final class NanoGptCausalSelfAttention {
  private NanoGptCausalSelfAttention() {}

  record GPTConfig(int blockSize, int vocabSize, int nLayer, int nHead, int nEmbd, double dropout) {}

  record Output(Tensor logits, Tensor loss) {}

  static final class CausalSelfAttention extends Layer {
    final Linear cAttn;
    final Linear cProj;
    final Dropout attnDropout;
    final Dropout residDropout;
    final int nHead;
    final int nEmbd;
    @Buffer Tensor bias;

    CausalSelfAttention(GPTConfig config) {
      cAttn = new Linear(config.nEmbd(), 3 * config.nEmbd());
      cProj = new Linear(config.nEmbd(), config.nEmbd());
      attnDropout = new Dropout(config.dropout());
      residDropout = new Dropout(config.dropout());
      nHead = config.nHead();
      nEmbd = config.nEmbd();
      long n = config.blockSize();
      Tensor tril = Tensor.arange(n).unsqueeze(1).ge(Tensor.arange(n).unsqueeze(0)).to(DType.FLOAT32);
      bias = tril.view(1, 1, n, n);
    }

    @Override
    public Tensor forward(Tensor x) {
      long b = x.size(0), t = x.size(1), c = x.size(2);
      Tensor qkv = cAttn.forward(x);
      Tensor q = qkv.narrow(2, 0, nEmbd), k = qkv.narrow(2, nEmbd, nEmbd), v = qkv.narrow(2, 2L * nEmbd, nEmbd);
      k = k.view(b, t, nHead, c / nHead).transpose(1, 2);
      q = q.view(b, t, nHead, c / nHead).transpose(1, 2);
      v = v.view(b, t, nHead, c / nHead).transpose(1, 2);
      Tensor att = q.matmul(k.transpose(-2, -1)).mul(1.0 / Math.sqrt(k.size(-1)));
      att = att.maskedFill(bias.slice(2, 0, t).slice(3, 0, t).eq(0), Double.NEGATIVE_INFINITY);
      att = att.softmax(-1);
      att = attnDropout.forward(att);
      Tensor y = att.matmul(v);
      y = y.transpose(1, 2).contiguous().view(b, t, c);
      return residDropout.forward(cProj.forward(y));
    }
  }

  static final class MLP extends Layer {
    final Linear cFc;
    final GELU gelu = new GELU();
    final Linear cProj;
    final Dropout dropout;

    MLP(GPTConfig config) {
      cFc = new Linear(config.nEmbd(), 4 * config.nEmbd());
      cProj = new Linear(4 * config.nEmbd(), config.nEmbd());
      dropout = new Dropout(config.dropout());
    }

    @Override
    public Tensor forward(Tensor x) {
      return dropout.forward(cProj.forward(gelu.forward(cFc.forward(x))));
    }
  }

  static final class Block extends Layer {
    final LayerNorm ln1;
    final CausalSelfAttention attn;
    final LayerNorm ln2;
    final MLP mlp;

    Block(GPTConfig config) {
      ln1 = new LayerNorm(config.nEmbd());
      attn = new CausalSelfAttention(config);
      ln2 = new LayerNorm(config.nEmbd());
      mlp = new MLP(config);
    }

    @Override
    public Tensor forward(Tensor x) {
      x = x.add(attn.forward(ln1.forward(x)));
      return x.add(mlp.forward(ln2.forward(x)));
    }
  }

  static final class GPT extends Model {
    final GPTConfig config;
    final Embedding wte;
    final Embedding wpe;
    final Dropout drop;
    final List<Block> h = new ArrayList<>();
    final LayerNorm lnF;
    final Linear lmHead;

    GPT(GPTConfig config) {
      this.config = config;
      wte = new Embedding(config.vocabSize(), config.nEmbd());
      wpe = new Embedding(config.blockSize(), config.nEmbd());
      drop = new Dropout(config.dropout());
      for (int i = 0; i < config.nLayer(); i++) {
        h.add(new Block(config));
      }
      lnF = new LayerNorm(config.nEmbd());
      lmHead = new Linear(config.nEmbd(), config.vocabSize(), false, Device.cpu());
    }

    Output forward(Tensor idx, Tensor targets) {
      Device device = idx.device();
      long t = idx.size(1);
      if (t > config.blockSize()) {
        throw new IllegalArgumentException("Cannot forward sequence of length " + t);
      }
      Tensor pos = Tensor.arange(0, t, device);
      Tensor tokEmb = wte.forward(idx);
      Tensor posEmb = wpe.forward(pos);
      Tensor x = drop.forward(tokEmb.add(posEmb));
      for (Block block : h) {
        x = block.forward(x);
      }
      x = lnF.forward(x);
      if (targets != null) {
        Tensor logits = lmHead.forward(x);
        Tensor loss = new CrossEntropyLoss().forward(logits.view(-1, logits.size(-1)), targets.view(-1));
        return new Output(logits, loss);
      }
      return new Output(lmHead.forward(x.narrow(1, t - 1, 1)), null);
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    GPTConfig config = new GPTConfig(8, 32, 2, 2, 16, 0.0);
    GPT model = new GPT(config);
    model.toDevice(device);
    AdamW optimizer = new AdamW(model.parameters(), 1e-3);
    for (int step = 0; step < 3; step++) {
      Tensor idx = Tensor.randint(0, config.vocabSize(), Shape.of(4, config.blockSize()), device);
      Tensor targets = Tensor.randint(0, config.vocabSize(), Shape.of(4, config.blockSize()), device);
      Output out = model.forward(idx, targets);
      optimizer.zeroGrad();
      out.loss().backward();
      optimizer.step();
    }
    model.eval();
    Output last = model.forward(Tensor.randint(0, config.vocabSize(), Shape.of(2, 5), device), null);
    System.out.println("logits " + last.logits().shape());
  }
}
