package corpus.bugs;

import dev.ondevice.Autograd;
import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Chunk-by-chunk causal video generation with a KV cache (the Self-Forcing
 * {@code CausalWanSelfAttention}): every attention layer appends the chunk's keys and values to
 * its cache, rolling the cache once the local-attention window is full, and keeps the write
 * positions in two one-element tensors of the cache dict.
 *
 * <p>Source: https://github.com/Robbyant/lingbot-world-v2/pull/3
 *
 * <p>Bug: {@code CausalWanSelfAttention.forward} reads {@code kv_cache["global_end_index"]} and
 * {@code kv_cache["local_end_index"]} with {@code .item()}: blocking GPU-to-CPU syncs per layer,
 * per forward, per chunk.
 *
 * <p>Outcome: completes (costs time)
 */
public final class LingbotCausalAttentionKvIndexItem {
  private LingbotCausalAttentionKvIndexItem() {}

  /** wan/modules/causal_model.py: the self-attention of one block (rope left out). */
  static final class CausalWanSelfAttention extends Model {
    final int dim;
    final int localAttnSize;
    final int maxAttentionSize;
    final Linear q;
    final Linear k;
    final Linear v;
    final Linear o;

    CausalWanSelfAttention(int dim, int localAttnSize) {
      this.dim = dim;
      this.localAttnSize = this.maxAttentionSize = localAttnSize;
      q = new Linear(dim, dim);
      k = new Linear(dim, dim);
      v = new Linear(dim, dim);
      o = new Linear(dim, dim);
    }

    Tensor forward(Tensor x, Map<String, Tensor> kvCache, long currentStart) {
      Tensor query = q.forward(x), key = k.forward(x), value = v.forward(x);
      long currentEnd = currentStart + query.size(1);
      long kvCacheSize = kvCache.get("k").size(1);
      long numNewTokens = query.size(1);
      long localEndIndex;
      if (localAttnSize != -1
          && currentEnd > kvCache.get("global_end_index").itemAsLong() // bug: per-step
          && numNewTokens + kvCache.get("local_end_index").itemAsLong() > kvCacheSize) { // bug: per-step
        long numEvictedTokens = numNewTokens + kvCache.get("local_end_index").itemAsLong() - kvCacheSize; // bug: per-step
        long numRolledTokens = kvCache.get("local_end_index").itemAsLong() - numEvictedTokens; // bug: per-step
        for (String name : List.of("k", "v")) {
          Tensor cache = kvCache.get(name);
          cache.narrow(1, 0, numRolledTokens).copyFrom(cache.narrow(1, numEvictedTokens, numRolledTokens).clone());
        }
        localEndIndex = kvCache.get("local_end_index").itemAsLong() + currentEnd // bug: per-step
            - kvCache.get("global_end_index").itemAsLong() - numEvictedTokens; // bug: per-step
      } else {
        localEndIndex = kvCache.get("local_end_index").itemAsLong() + currentEnd // bug: per-step
            - kvCache.get("global_end_index").itemAsLong(); // bug: per-step
      }
      long localStartIndex = localEndIndex - numNewTokens;
      kvCache.get("k").narrow(1, localStartIndex, numNewTokens).copyFrom(key);
      kvCache.get("v").narrow(1, localStartIndex, numNewTokens).copyFrom(value);
      long from = Math.max(0, localEndIndex - maxAttentionSize);
      Tensor kWindow = kvCache.get("k").slice(1, from, localEndIndex);
      Tensor vWindow = kvCache.get("v").slice(1, from, localEndIndex);
      Tensor attn = query.matmul(kWindow.transpose(1, 2)).mul(1.0 / Math.sqrt(dim)).softmax(2);
      Tensor out = o.forward(attn.matmul(vWindow));
      kvCache.get("global_end_index").fill(currentEnd);
      kvCache.get("local_end_index").fill(localEndIndex);
      return out;
    }
  }

  /** The causal model: a stack of attention blocks, one cache dict each. */
  static final class CausalWanModel extends Model {
    final List<CausalWanSelfAttention> blocks = new ArrayList<>();

    CausalWanModel(int dim, int depth, int localAttnSize) {
      for (int i = 0; i < depth; i++) {
        blocks.add(new CausalWanSelfAttention(dim, localAttnSize));
      }
    }

    Tensor forward(Tensor x, List<Map<String, Tensor>> kvCaches, long currentStart) {
      for (int i = 0; i < blocks.size(); i++) {
        x = x.add(blocks.get(i).forward(x, kvCaches.get(i), currentStart));
      }
      return x;
    }
  }

  /** The inference pipeline's _initialize_kv_cache: tensors on the generation device. */
  static List<Map<String, Tensor>> initializeKvCache(int depth, int cacheSize, int dim, Device device) {
    List<Map<String, Tensor>> caches = new ArrayList<>();
    for (int i = 0; i < depth; i++) {
      Map<String, Tensor> cache = new HashMap<>();
      cache.put("k", Tensor.zeros(Shape.of(1, cacheSize, dim), device));
      cache.put("v", Tensor.zeros(Shape.of(1, cacheSize, dim), device));
      cache.put("global_end_index", Tensor.zeros(Shape.of(1), DType.INT64, device));
      cache.put("local_end_index", Tensor.zeros(Shape.of(1), DType.INT64, device));
      caches.add(cache);
    }
    return caches;
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    int dim = 16, depth = 3, chunk = 4;
    CausalWanModel model = new CausalWanModel(dim, depth, 12);
    model.toDevice(device);
    List<Map<String, Tensor>> kvCaches = initializeKvCache(depth, 12, dim, device);
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      Tensor noise = Tensor.randn(Shape.of(1, 6 * chunk, dim), device);
      for (int block = 0; block < 6; block++) {
        Tensor x = noise.narrow(1, (long) block * chunk, chunk);
        model.forward(x, kvCaches, (long) block * chunk);
      }
    }
  }
}
