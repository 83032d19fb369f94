package corpus.bugs;

import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;

/**
 * llaisys's operator test {@code test/ops/self_attention.py}: {@code torch_self_attention} is the
 * PyTorch reference for the causal, grouped-query self-attention operator; it builds an additive
 * bias ({@code torch.zeros(L, S, device=query.device)}), fills it with {@code -inf} above the
 * shifted diagonal of a {@code torch.ones(L, S, dtype=torch.bool).tril(diagonal=S-L)} mask, repeats
 * the key and value heads for the query heads, and writes {@code softmax(q k^T * scale + bias) v}
 * into {@code attn_val}; the test draws {@code q, k, v} on the device under test and compares the
 * operator's output with it.
 *
 * <p>Source: https://github.com/InfiniTensor/llaisys/pull/11
 *
 * <p>Bug: the mask is created without a device, on the CPU, so with {@code --device nvidia} {@code
 * attn_bias.masked_fill_(temp_mask.logical_not(), float("-inf"))} fails with "expected self and
 * mask to be on the same device, but got mask on cpu and self on cuda:0"; the fix passes {@code
 * device=query.device} to {@code torch.ones}. (The reference's no-op {@code attn_bias.to(query.dtype)}
 * is left out; {@code tril} is written with two {@code arange}s, {@code repeat_interleave} with
 * {@code expand}.)
 *
 * <p>Outcome: throws DeviceMismatchException
 */
public final class LlaisysSelfAttentionTestMaskOnCpu {
  private LlaisysSelfAttentionTestMaskOnCpu() {}

  static Tensor repeatInterleaveHeads(Tensor t, int repeats) {
    long h = t.size(0);
    long s = t.size(1);
    long d = t.size(2);
    return t.unsqueeze(1).expand(h, repeats, s, d).reshape(h * repeats, s, d);
  }

  static void torchSelfAttention(Tensor attnVal, Tensor query, Tensor key, Tensor value, double scale) {
    query = query.transpose(-2, -3);
    key = key.transpose(-2, -3);
    value = value.transpose(-2, -3);
    long l = query.size(-2);
    long s = key.size(-2);
    Tensor attnBias = Tensor.zeros(Shape.of(l, s), query.dtype(), query.device());

    Tensor tempMask = Tensor.arange(s).unsqueeze(0).le(Tensor.arange(l).unsqueeze(1).add(s - l)); // bug: in-method
    attnBias = attnBias.maskedFill(tempMask.logicalNot(), Double.NEGATIVE_INFINITY); // same bug

    key = repeatInterleaveHeads(key, (int) (query.size(-3) / key.size(-3)));
    value = repeatInterleaveHeads(value, (int) (query.size(-3) / value.size(-3)));

    Tensor attnWeight = query.matmul(key.transpose(-2, -1)).mul(scale);
    attnWeight = attnWeight.add(attnBias);
    attnWeight = attnWeight.softmax(-1);
    attnVal.copyFrom(attnWeight.matmul(value).transpose(-2, -3));
  }

  static void testOpSelfAttention(int qlen, int kvlen, int nh, int nkvh, int hd, Device device) {
    System.out.printf("   qlen=%d kvlen=%d nh=%d nkvh=%d hd=%d%n", qlen, kvlen, nh, nkvh, hd);
    Tensor q = Tensor.randn(Shape.of(qlen, nh, hd), device);
    Tensor k = Tensor.randn(Shape.of(kvlen, nkvh, hd), device);
    Tensor v = Tensor.randn(Shape.of(kvlen, nkvh, hd), device);
    double scale = 1.0 / Math.sqrt(hd);
    Tensor attnVal = Tensor.zeros(Shape.of(qlen, nh, hd), DType.FLOAT32, device);
    torchSelfAttention(attnVal, q, k, v, scale);
    System.out.println(attnVal.shape());
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    int[][] testShapes = {{2, 2, 1, 1, 4}, {5, 11, 4, 2, 8}};
    for (int[] shape : testShapes) {
      testOpSelfAttention(shape[0], shape[1], shape[2], shape[3], shape[4], device);
    }
  }
}
