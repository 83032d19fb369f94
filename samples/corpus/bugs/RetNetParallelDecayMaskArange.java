package corpus.bugs;

import dev.ondevice.Device;
import dev.ondevice.Parameter;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.nn.CrossEntropyLoss;
import dev.ondevice.nn.Embedding;
import dev.ondevice.nn.GELU;
import dev.ondevice.nn.LayerNorm;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.nn.Sequential;
import dev.ondevice.optim.AdamW;
import java.util.ArrayList;
import java.util.List;

/**
 * syncdoth/RetNet's multi-scale retention, parallel form: the per-head decays {@code gamma} are a
 * frozen {@code nn.Parameter}; {@code get_parallel_decay_mask(length)} builds the
 * {@code [heads, T, T]} mask {@code gamma ** (n - m)} (lower triangle), and {@code forward} multiplies
 * the scaled {@code q @ k^T} by it, then applies group norm, the SiLU gate and the output projection.
 *
 * <p>Source: https://github.com/syncdoth/RetNet/issues/1 (fixed in commit 48a3984, "handle decay
 * device")
 *
 * <p>Bug: {@code range_tensor = torch.arange(length)} is made on the default device (the CPU), so
 * {@code self.decay.view(-1, 1, 1) ** exponent} mixes the decays on the GPU with a CPU exponent; the
 * fix is {@code torch.arange(length, device=self.decay.device)}.
 *
 * <p>Ported: the parallel forward of MultiScaleRetention, RetNetBlock and RetNetModel with an LM
 * head; left out: xPos rotation, the recurrent and chunkwise forms, the kv cache, and the bias switches (every Linear here has a bias). GroupNorm without
 * affine is written out per head; {@code tril} is a {@code where} on the exponent's sign.
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class RetNetParallelDecayMaskArange {
  private RetNetParallelDecayMaskArange() {}

  static final class MultiScaleRetention extends Model {
    final int numHeads, qkDim, vDim;
    final Linear qkv, gated, proj;
    final Parameter decay;

    MultiScaleRetention(int hidden, int numHeads) {
      this.numHeads = numHeads; qkDim = hidden; vDim = 2 * hidden;
      qkv = new Linear(hidden, 2 * qkDim + vDim);
      gated = new Linear(hidden, vDim);
      proj = new Linear(vDim, hidden);
      double s = Math.log(1.0 / 32), e = Math.log(1.0 / 512);
      double[] gamma = new double[numHeads];
      for (int h = 0; h < numHeads; h++) {
        gamma[h] = 1 - Math.exp(s + (e - s) * h / Math.max(1, numHeads - 1));
      }
      decay = new Parameter(Tensor.of(gamma).to(dev.ondevice.DType.FLOAT32));
      decay.requiresGrad(false);
    }

    Tensor getParallelDecayMask(long length) {
      Tensor rangeTensor = Tensor.arange(length); // bug: in-method
      rangeTensor = rangeTensor.view(1, length, 1).expand(numHeads, length, 1);
      Tensor exponent = rangeTensor.sub(rangeTensor.transpose(-1, -2));
      Tensor decayMask = decay.view(-1, 1, 1).pow(exponent); // same bug
      return Tensor.where(exponent.ge(0), decayMask, Tensor.zerosLike(decayMask));
    }

    Tensor splitHeads(Tensor x, long b, long t) {
      return x.view(b, t, numHeads, -1).transpose(1, 2);
    }

    Tensor forward(Tensor x) {
      long b = x.size(0), t = x.size(1);
      Tensor all = qkv.forward(x);
      Tensor q = splitHeads(all.narrow(-1, 0, qkDim), b, t);
      Tensor k = splitHeads(all.narrow(-1, qkDim, qkDim), b, t);
      Tensor v = splitHeads(all.narrow(-1, 2L * qkDim, vDim), b, t);
      Tensor decayMask = getParallelDecayMask(t);
      Tensor retention = q.matmul(k.transpose(-1, -2)).mul(Math.pow(k.size(-1), -0.5)).mul(decayMask);
      Tensor retentionOut = retention.matmul(v).transpose(1, 2).contiguous().view(b, t, vDim);
      Tensor grouped = retentionOut.view(b * t, numHeads, vDim / numHeads);
      Tensor mean = grouped.mean(-1, true);
      Tensor var = grouped.sub(mean).square().mean(-1, true);
      Tensor normed = grouped.sub(mean).div(var.add(1e-5).sqrt()).view(b, t, vDim);
      Tensor g = gated.forward(x);
      return proj.forward(g.mul(g.sigmoid()).mul(normed));
    }
  }

  static final class RetNetBlock extends Model {
    final MultiScaleRetention msr;
    final Sequential ffn;
    final LayerNorm ln1, ln2;

    RetNetBlock(int hidden, int heads) {
      msr = new MultiScaleRetention(hidden, heads);
      ffn = new Sequential(new Linear(hidden, 2 * hidden), new GELU(), new Linear(2 * hidden, hidden));
      ln1 = new LayerNorm(hidden); ln2 = new LayerNorm(hidden);
    }

    Tensor forward(Tensor x) {
      Tensor y = x.add(msr.forward(ln1.forward(x)));
      return y.add(ffn.forward(ln2.forward(y)));
    }
  }

  static final class RetNetModel extends Model {
    final Embedding embedding;
    final List<RetNetBlock> blocks = new ArrayList<>();
    final Linear lmHead;

    RetNetModel(int vocab, int hidden, int heads, int layers) {
      embedding = new Embedding(vocab, hidden);
      for (int i = 0; i < layers; i++) {
        blocks.add(new RetNetBlock(hidden, heads));
      }
      lmHead = new Linear(hidden, vocab);
    }

    Tensor forward(Tensor inputIds) {
      Tensor h = embedding.forward(inputIds);
      for (RetNetBlock block : blocks) {
        h = block.forward(h);
      }
      return lmHead.forward(h);
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    RetNetModel model = new RetNetModel(100, 32, 4, 2);
    model.toDevice(device);
    AdamW optimizer = new AdamW(model.parameters(), 1e-3);
    Tensor inputIds = Tensor.randint(0, 100, Shape.of(2, 9), device);
    Tensor logits = model.forward(inputIds.slice(1, 0, 8));
    Tensor loss = new CrossEntropyLoss().forward(logits.reshape(-1, 100), inputIds.slice(1, 1, 9).reshape(-1));
    optimizer.zeroGrad();
    loss.backward();
    optimizer.step();
    System.out.printf("loss %.4f%n", loss.item());
  }
}
