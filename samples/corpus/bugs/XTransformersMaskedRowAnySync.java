package corpus.bugs;

import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.Model;

/**
 * Multi-head attention with a key padding mask in the style of x-transformers: an
 * {@code Attention} layer projects q, k, v and calls {@code Attend}, which computes the
 * attention and zeroes the output of query rows whose keys are all masked.
 *
 * <p>Source: https://github.com/lucidrains/x-transformers/pull/355
 *
 * <p>Bug: {@code Attend} checks {@code if exists(row_is_entirely_masked) and
 * row_is_entirely_masked.any():} before the {@code masked_fill}; the Python truth value of a
 * CUDA tensor is an {@code .item()}, a device-to-host sync in every attention call.
 *
 * <p>Outcome: completes (costs time)
 */
public final class XTransformersMaskedRowAnySync {
  private XTransformersMaskedRowAnySync() {}

  /** x_transformers/attend.py. */
  static final class Attend extends Model {
    Tensor forward(Tensor q, Tensor k, Tensor v, Tensor mask) {
      long batch = q.size(0);
      long heads = q.size(1);
      long qLen = q.size(2);
      long kLen = k.size(2);
      Tensor rowIsEntirelyMasked = null;
      if (mask != null) {
        mask = mask.view(batch, 1, 1, kLen).expand(batch, heads, qLen, kLen);
        rowIsEntirelyMasked = mask.to(DType.FLOAT32).sum(3, false).eq(0); // ~mask.any(dim=-1)
      }
      Tensor sim = q.matmul(k.transpose(2, 3)).mul(1.0 / Math.sqrt(q.size(3)));
      if (mask != null) {
        sim = sim.maskedFill(mask.logicalNot(), -1e9);
      }
      Tensor out = sim.softmax(3).matmul(v);
      if (rowIsEntirelyMasked != null && rowIsEntirelyMasked.max().itemAsBoolean()) { // bug: per-step
        out = out.maskedFill(rowIsEntirelyMasked.unsqueeze(3), 0.0);
      }
      return out;
    }
  }

  /** x_transformers.Attention: projections around Attend. */
  static final class Attention extends Model {
    final int heads;
    final Linear toQ;
    final Linear toK;
    final Linear toV;
    final Linear toOut;
    final Attend attend = new Attend();

    Attention(int dim, int heads) {
      this.heads = heads;
      toQ = new Linear(dim, dim, false, Device.cpu());
      toK = new Linear(dim, dim, false, Device.cpu());
      toV = new Linear(dim, dim, false, Device.cpu());
      toOut = new Linear(dim, dim);
    }

    Tensor split(Tensor t) {
      return t.view(t.size(0), t.size(1), heads, t.size(2) / heads).transpose(1, 2);
    }

    Tensor forward(Tensor x, Tensor mask) {
      Tensor q = split(toQ.forward(x));
      Tensor k = split(toK.forward(x));
      Tensor v = split(toV.forward(x));
      Tensor out = attend.forward(q, k, v, mask);
      out = out.transpose(1, 2).contiguous().view(x.size(0), x.size(1), x.size(2));
      return toOut.forward(out);
    }
  }

  /** Runs the program with small random data on {@code device}. */
  public static void run(Device device) throws Exception {
    Attention attn = new Attention(16, 4);
    attn.toDevice(device);
    for (int step = 0; step < 4; step++) {
      Tensor x = Tensor.randn(Shape.of(2, 6, 16), device);
      Tensor mask = Tensor.rand(Shape.of(2, 6), device).gt(0.3);
      Tensor out = attn.forward(x, mask);
      out.sum().backward();
    }
  }
}
