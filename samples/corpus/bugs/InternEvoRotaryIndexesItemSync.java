package corpus.bugs;

import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.annotations.OnDevice;
import dev.ondevice.data.Batch;
import dev.ondevice.data.DataLoader;
import dev.ondevice.data.TensorDataset;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import dev.ondevice.optim.AdamW;
import java.util.List;

/**
 * Packed-sequence training with InternEvo's rotary position embedding: the attention layer passes
 * the packed tokens' position {@code indexes} to {@code RotaryEmbedding._forward}, which grows its
 * cos/sin tables to the largest position and rotates q and k with the rows at those positions.
 *
 * <p>Source: https://github.com/InternLM/InternEvo/issues/122
 *
 * <p>Bug: {@code _update_cos_sin_cache} computes {@code seqlen = indexes.max().item() + 1} from the
 * CUDA {@code indexes} on every forward of every layer, a CPU synchronisation that leaves bubbles
 * between GPU kernels ("item() in rotary embedding"). (The inverse frequencies and the tables, plain
 * attributes there, are {@code @OnDevice} fields here, as the processor requires; the code rebuilds
 * the tables on a device change either way.)
 *
 * <p>Outcome: completes (costs time)
 */
public final class InternEvoRotaryIndexesItemSync {
  private InternEvoRotaryIndexesItemSync() {}

  /** internlm/model/embedding.py RotaryEmbedding (scale_base = 0). */
  static final class RotaryEmbedding extends Model {
    final int dim;
    @OnDevice Tensor invFreq;
    long seqLenCached = 0;
    @OnDevice Tensor cosCached;
    @OnDevice Tensor sinCached;

    RotaryEmbedding(int dim, Device device) {
      this.dim = dim;
      invFreq = Tensor.arange(0.0, dim, 2.0, DType.FLOAT32, device).div(dim).mul(Math.log(10000)).exp().reciprocal();
    }

    void updateCosSinCache(Tensor x, Tensor indexes) {
      long seqlen = indexes.max().itemAsLong() + 1; // bug: per-step
      if (seqlen > seqLenCached || !cosCached.device().equals(x.device())) {
        seqLenCached = seqlen;
        Tensor t = Tensor.arange(0.0, seqlen, 1.0, DType.FLOAT32, x.device());
        Tensor freqs = t.unsqueeze(1).mul(invFreq.to(t.device()).unsqueeze(0));
        cosCached = freqs.cos();
        sinCached = freqs.sin();
      }
    }

    /** _forward: rotates q and k of the packed qkv (tokens, 3, heads, head_dim). */
    Tensor forward(Tensor qkv, Tensor indexes) {
      updateCosSinCache(qkv, indexes);
      Tensor cos = cosCached.indexSelect(0, indexes).unsqueeze(1);
      Tensor sin = sinCached.indexSelect(0, indexes).unsqueeze(1);
      Tensor q = rotate(qkv.select(1, 0), cos, sin);
      Tensor k = rotate(qkv.select(1, 1), cos, sin);
      return Tensor.stack(List.of(q, k, qkv.select(1, 2)), 1);
    }

    static Tensor rotate(Tensor x, Tensor cos, Tensor sin) {
      long half = x.size(2) / 2;
      Tensor x1 = x.narrow(2, 0, half);
      Tensor x2 = x.narrow(2, half, half);
      return Tensor.cat(List.of(x1.mul(cos).sub(x2.mul(sin)), x1.mul(sin).add(x2.mul(cos))), 2);
    }
  }

  /** A packed multi-head self-attention layer (attention reduced to a per-token mix). */
  static final class MHA extends Model {
    final int heads;
    final int headDim;
    final Linear wqkv;
    final Linear out;
    final RotaryEmbedding rotaryEmb;

    MHA(int dim, int heads) {
      this.heads = heads;
      this.headDim = dim / heads;
      wqkv = new Linear(dim, 3 * dim);
      out = new Linear(dim, dim);
      rotaryEmb = new RotaryEmbedding(headDim, Device.cpu());
    }

    Tensor forward(Tensor x, Tensor indexes) {
      Tensor qkv = wqkv.forward(x).view(x.size(0), 3, heads, headDim);
      qkv = rotaryEmb.forward(qkv, indexes);
      Tensor q = qkv.select(1, 0);
      Tensor k = qkv.select(1, 1);
      Tensor v = qkv.select(1, 2);
      Tensor gate = q.mul(k).sum(2, true).sigmoid();
      return x.add(out.forward(gate.mul(v).reshape(x.size(0), heads * headDim)));
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    MHA layer = new MHA(16, 4);
    layer.toDevice(device);
    AdamW optimizer = new AdamW(layer.parameters(), 1e-3);
    long[] positions = new long[24];
    for (int i = 0; i < positions.length; i++) {
      positions[i] = i % 8; // three packed sequences of 8 tokens per row of 24
    }
    Tensor allIndexes = Tensor.of(positions).view(1, 24).expand(4, 24).contiguous();
    DataLoader loader = DataLoader.builder(new TensorDataset(Tensor.randn(Shape.of(4, 24, 16)), allIndexes))
        .batchSize(1).build();
    for (Batch batch : loader) {
      Tensor x = batch.inputs().to(device).squeeze(0);
      Tensor indexes = batch.targets().to(device).squeeze(0);
      Tensor loss = layer.forward(x, indexes).square().mean();
      optimizer.zeroGrad();
      loss.backward();
      optimizer.step();
    }
  }
}
