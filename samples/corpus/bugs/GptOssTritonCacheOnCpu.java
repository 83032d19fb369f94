package corpus.bugs;

import dev.ondevice.Autograd;
import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.nn.Embedding;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import java.util.ArrayList;
import java.util.List;

/**
 * gpt-oss's Triton inference path: the Responses API server loads the model on the GPU, builds
 * one KV {@code Cache} object per block and runs a warm-up prefill, each attention block
 * appending its keys and values to its cache at the cache's offset.
 *
 * <p>Source: https://github.com/openai/gpt-oss/issues/271
 *
 * <p>Bug: {@code get_infer_next_token()} creates every {@code Cache(CONCURRENT_SESSIONS, CONTEXT,
 * n_kv_heads)} without {@code device}, so its k, v and offset tensors are on the CPU; the first
 * prefill's {@code Cache.extend} adds the CPU offset to indices made on the key's CUDA device.
 * ({@code index_copy_}, which this API lacks, is written as a one-hot product.)
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class GptOssTritonCacheOnCpu {
  private GptOssTritonCacheOnCpu() {}

  static final int CONTEXT = 32;
  static final int CONCURRENT_SESSIONS = 1;

  /** gpt_oss/triton/model.py Cache: a plain object (batch of one, heads flattened). */
  static final class Cache {
    Tensor k;
    Tensor v;
    final Tensor offset;
    final int nCtx;

    Cache(int batchSize, int nCtx, int kvDim) {
      this(batchSize, nCtx, kvDim, null);
    }

    Cache(int batchSize, int nCtx, int kvDim, Device device) {
      this.nCtx = nCtx;
      this.k = device == null ? Tensor.zeros(nCtx, kvDim) : Tensor.zeros(nCtx, kvDim, device);
      this.v = device == null ? Tensor.zeros(nCtx, kvDim) : Tensor.zeros(nCtx, kvDim, device);
      this.offset = Tensor.zeros(Shape.of(1), DType.INT64, device == null ? Device.cpu() : device);
    }

    Tensor[] extend(Tensor newK, Tensor newV) {
      long n = newK.size(0);
      Tensor indices = Tensor.arange(0, n, newK.device()).add(offset);
      Tensor scatter = Tensor.oneHot(indices, nCtx).to(newK.dtype()).t();
      k = k.add(scatter.matmul(newK));
      v = v.add(scatter.matmul(newV));
      offset.addi(n);
      return new Tensor[] {k, v};
    }
  }

  /** AttentionBlock (rope and sinks left out). */
  static final class AttentionBlock extends Model {
    final int dim;
    final Linear qkv;
    final Linear out;

    AttentionBlock(int dim, Device device) {
      this.dim = dim;
      qkv = new Linear(dim, 3 * dim, device);
      out = new Linear(dim, dim, device);
    }

    Tensor forward(Tensor x, Cache cache) {
      long n = x.size(0);
      Tensor parts = qkv.forward(x);
      Tensor q = parts.narrow(1, 0, dim), k = parts.narrow(1, dim, dim), v = parts.narrow(1, 2L * dim, dim);
      Tensor end = cache.offset.add(n);
      Tensor[] kv = cache.extend(k, v);
      Tensor valid = Tensor.arange(cache.nCtx, x.device()).lt(end);
      Tensor scores = q.matmul(kv[0].t()).mul(1.0 / Math.sqrt(dim)).maskedFill(valid.logicalNot(), -1e9);
      return x.add(out.forward(scores.softmax(1).matmul(kv[1])));
    }
  }

  /** Transformer: embedding, blocks, unembedding. */
  static final class Transformer extends Model {
    final Embedding embedding;
    final List<AttentionBlock> block = new ArrayList<>();
    final Linear unembedding;

    Transformer(int vocab, int dim, int layers, Device device) {
      embedding = new Embedding(vocab, dim, device);
      for (int i = 0; i < layers; i++) {
        block.add(new AttentionBlock(dim, device));
      }
      unembedding = new Linear(dim, vocab, false, device);
    }

    Tensor forward(Tensor tokens, List<Cache> caches) {
      Tensor x = embedding.forward(tokens);
      for (int i = 0; i < block.size(); i++) {
        x = block.get(i).forward(x, caches.get(i));
      }
      return unembedding.forward(x);
    }

    Tensor prefill(Tensor tokens, List<Cache> caches) {
      return forward(tokens, caches);
    }
  }

  /** gpt_oss/responses_api/inference/triton.py get_infer_next_token, up to the warm-up prefill. */
  static List<Cache> getInferNextToken(Transformer model, Device device) {
    List<Cache> caches = new ArrayList<>();
    for (int i = 0; i < model.block.size(); i++) {
      caches.add(new Cache(CONCURRENT_SESSIONS, CONTEXT, model.block.get(i).dim)); // bug: held-outside-models
    }
    model.prefill(Tensor.zeros(Shape.of(4), DType.INT64, device), caches);
    return caches;
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      Transformer model = new Transformer(50, 16, 2, device);
      model.eval();
      getInferNextToken(model, device);
    }
  }
}
