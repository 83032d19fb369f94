package corpus.bugs;

import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.optim.AdamW;
import java.util.List;

/**
 * Transformer Engine's unfused dot-product attention with a {@code "padding"} mask given as
 * cumulative sequence lengths: when the caller passes {@code cu_seqlens_q/kv} and no mask, {@code
 * UnfusedDotProductAttention.forward} asks {@code dpa_utils.get_padding_mask} for one on every
 * forward pass, then masks the scores before the softmax. Here it runs in a small self-attention
 * block trained on batches of packed sequences.
 *
 * <p>Source: https://github.com/NVIDIA/TransformerEngine/pull/3268 ("Build the attention padding
 * mask without host syncs"; the code before it: transformer_engine/pytorch/attention/
 * dot_product_attention/utils.py at 002a3e5)
 *
 * <p>Bug: {@code get_padding_mask} loops over the batch and builds each row as {@code
 * torch.Tensor([False] * seqlens_q[i] + [True] * (max_seqlen_q - seqlens_q[i]))}: {@code
 * seqlens_q[i]} is an element of a CUDA tensor used as a Python int, an implicit {@code .item()},
 * one device synchronisation per sequence per forward, plus a host-built mask copied to the GPU.
 * The fix computes the mask on the device as {@code positions >= seqlens}.
 *
 * <p>Outcome: completes (a slowdown)
 */
public final class TePaddingMaskHostLoop {
  private TePaddingMaskHostLoop() {}

  /** {@code dot_product_attention/utils.py}. */
  static final class DpaUtils {
    private DpaUtils() {}

    /** Convert cu_seqlens to attention_mask: (mask_q, mask_kv), each {@code [b, 1, 1, s]}, true = padding. */
    static Tensor[] getPaddingMask(int batchSize, Tensor cuSeqlensQ, Tensor cuSeqlensKv, int maxSeqlenQ, int maxSeqlenKv) {
      Tensor seqlensQ = cuSeqlensQ.slice(0, 1, batchSize + 1).sub(cuSeqlensQ.slice(0, 0, batchSize));
      Tensor seqlensKv = cuSeqlensKv.slice(0, 1, batchSize + 1).sub(cuSeqlensKv.slice(0, 0, batchSize));
      Tensor attentionMaskQ = null;
      Tensor attentionMaskKv = null;
      for (int i = 0; i < batchSize; i++) {
        long lenQ = seqlensQ.select(0, i).itemAsLong(); // bug: per-step
        boolean[] rowQ = new boolean[maxSeqlenQ];
        for (int j = (int) lenQ; j < maxSeqlenQ; j++) {
          rowQ[j] = true;
        }
        Tensor q = Tensor.of(rowQ).unsqueeze(0).unsqueeze(0).unsqueeze(0);
        attentionMaskQ = attentionMaskQ == null ? q : Tensor.cat(List.of(attentionMaskQ, q), 0);
        long lenKv = seqlensKv.select(0, i).itemAsLong(); // bug: per-step
        boolean[] rowKv = new boolean[maxSeqlenKv];
        for (int j = (int) lenKv; j < maxSeqlenKv; j++) {
          rowKv[j] = true;
        }
        Tensor kv = Tensor.of(rowKv).unsqueeze(0).unsqueeze(0).unsqueeze(0);
        attentionMaskKv = attentionMaskKv == null ? kv : Tensor.cat(List.of(attentionMaskKv, kv), 0);
      }
      return new Tensor[] {
        attentionMaskQ.to(Device.cuda()), // same bug
        attentionMaskKv.to(Device.cuda()), // same bug
      };
    }
  }

  /** {@code UnfusedDotProductAttention}: softmax(QK^T / sqrt(d), masked) V. */
  static final class UnfusedDotProductAttention extends Model {
    final double softmaxScale;

    UnfusedDotProductAttention(int headDim) {
      this.softmaxScale = 1 / Math.sqrt(headDim);
    }

    /** q, k, v: {@code [b, h, s, d]}. */
    Tensor forward(Tensor q, Tensor k, Tensor v, String attnMaskType, Tensor[] attentionMask,
        Tensor cuSeqlensQ, Tensor cuSeqlensKv, int maxSeqlenQ, int maxSeqlenKv) {
      int batchSize = (int) q.size(0);
      if (attnMaskType.contains("padding") && attentionMask == null && cuSeqlensQ != null) {
        attentionMask = DpaUtils.getPaddingMask(batchSize, cuSeqlensQ, cuSeqlensKv, maxSeqlenQ, maxSeqlenKv);
      }
      Tensor scores = q.matmul(k.transpose(2, 3)).mul(softmaxScale);
      if (attentionMask != null) {
        Tensor full = attentionMask[0].squeeze(1).unsqueeze(3).logicalOr(attentionMask[1]);
        scores = scores.maskedFill(full, -10000.0);
      }
      return scores.softmax(-1).matmul(v);
    }
  }

  /** A self-attention block: QKV projection, the core attention, output projection. */
  static final class SelfAttention extends Model {
    final int heads;
    final int headDim;
    final Linear qkv;
    final Linear proj;
    final UnfusedDotProductAttention core;

    SelfAttention(int hidden, int heads) {
      this.heads = heads;
      this.headDim = hidden / heads;
      qkv = new Linear(hidden, 3 * hidden);
      proj = new Linear(hidden, hidden);
      core = new UnfusedDotProductAttention(headDim);
    }

    Tensor forward(Tensor x, Tensor cuSeqlens, int maxSeqlen) {
      long b = x.size(0), s = x.size(1);
      Tensor[] parts = new Tensor[3];
      Tensor y = qkv.forward(x);
      for (int i = 0; i < 3; i++) {
        parts[i] = y.narrow(2, (long) i * heads * headDim, (long) heads * headDim).view(b, s, heads, headDim).transpose(1, 2);
      }
      Tensor ctx = core.forward(parts[0], parts[1], parts[2], "padding", null, cuSeqlens, cuSeqlens, maxSeqlen, maxSeqlen);
      return proj.forward(ctx.transpose(1, 2).reshape(b, s, heads * headDim));
    }
  }

  public static void run(Device device) {
    int hidden = 16, maxSeqlen = 8, batch = 4;
    SelfAttention layer = new SelfAttention(hidden, 2);
    layer.toDevice(device);
    AdamW optimizer = new AdamW(layer.parameters());
    long[][] lengths = {{8, 5, 3, 6}, {2, 8, 7, 4}, {5, 5, 5, 1}};
    for (long[] lens : lengths) {
      long[] cu = new long[batch + 1];
      for (int i = 0; i < batch; i++) {
        cu[i + 1] = cu[i] + lens[i];
      }
      Tensor cuSeqlens = Tensor.of(cu, Shape.of(batch + 1), device);
      Tensor x = Tensor.randn(Shape.of(batch, maxSeqlen, hidden), device);
      optimizer.zeroGrad();
      Tensor loss = layer.forward(x, cuSeqlens, maxSeqlen).square().mean();
      loss.backward();
      optimizer.step();
    }
    System.out.println("3 steps, dtype " + DType.FLOAT32);
  }
}
