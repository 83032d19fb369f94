package dev.ondevice;

import dev.ondevice.internal.backend.Strided;
import java.util.Arrays;

/** Matrix products with PyTorch's matmul rules, and softmax. */
final class LinearAlgebra {
  private LinearAlgebra() {}

  static Tensor matmul(Tensor a, Tensor b) {
    Checks.sameDevice("matmul", a, "other", b);
    if (!a.device().equals(b.device())) {
      throw new DeviceMismatchException(a.device(), b.device(), "other", "matmul");
    }
    if (a.dim() == 0 || b.dim() == 0) {
      throw new IllegalArgumentException(
          "matmul: both arguments need at least one dimension, got shapes "
              + a.shape()
              + " (self) and "
              + b.shape()
              + " (argument 'other'); use mul for scalars");
    }
    DType t = DType.promote(a.dtype(), b.dtype());
    if (t == DType.BOOL) {
      throw new IllegalArgumentException("matmul: not defined for bool tensors");
    }
    long k = a.size(-1);
    long kb = b.dim() == 1 ? b.size(0) : b.size(-2);
    if (k != kb) {
      throw new IllegalArgumentException(
          "matmul: shapes "
              + a.shape()
              + " (self) and "
              + b.shape()
              + " (argument 'other') cannot be multiplied ("
              + k
              + " != "
              + kb
              + ")");
    }
    Tensor ac = a.to(t);
    Tensor bc = b.to(t);
    Tensor a2 = a.dim() == 1 ? ac.unsqueeze(0) : ac;
    Tensor b2 = b.dim() == 1 ? bc.unsqueeze(1) : bc;
    Tensor out = mm(a2, b2);
    if (a.dim() == 1) {
      out = out.squeeze(-2);
    }
    if (b.dim() == 1) {
      out = out.squeeze(-1);
    }
    return out;
  }

  /**
   * {@code x W^T + b} for {@code x [..., in]}, {@code W [out, in]}, {@code b [out]} (or null), as
   * PyTorch's {@code linear}, followed by relu where {@code relu}: one matrix product with the
   * weight passed transposed and the bias and relu in its output pass ({@link
   * dev.ondevice.internal.backend.Backend#linear}), and a backward that applies relu's gradient
   * first, then computes the weight's gradient directly in its layout.
   */
  static Tensor linear(Tensor x, Tensor w, Tensor b, boolean relu) {
    String name = relu ? "linearRelu" : "linear";
    if (!x.device().equals(w.device())) {
      throw new DeviceMismatchException(
          x.device(),
          w.device(),
          "weight",
          name,
          "If the weight is a model's parameter, move the model where its input is (model.toDevice("
              + x.device()
              + ")), once, before using it, or move the input where the model is");
    }
    if (b != null && !b.device().equals(w.device())) {
      throw new DeviceMismatchException(w.device(), b.device(), "bias", name);
    }
    if (w.dim() != 2
        || x.dim() == 0
        || x.size(-1) != w.size(1)
        || (b != null && (b.dim() != 1 || b.size(0) != w.size(0)))) {
      throw new IllegalArgumentException(
          name
              + ": input "
              + x.shape()
              + ", weight "
              + w.shape()
              + " and bias "
              + (b == null ? "none" : b.shape())
              + " do not fit: expected input [..., in], weight [out, in], bias [out]");
    }
    Checks.floating(name, "input", x);
    int in = (int) w.size(1);
    int out = (int) w.size(0);
    long[] outShape = x.shape().toArray();
    outShape[outShape.length - 1] = out;
    Tensor x2 = x.dim() == 2 ? x : x.reshape(-1, in);
    // Mixed floating dtypes promote, as in matmul and conv2d: a float64 input to a float32 layer
    // gives float64, never a silently rounded input.
    DType t =
        b == null
            ? DType.promote(x.dtype(), w.dtype())
            : DType.promote(DType.promote(x.dtype(), w.dtype()), b.dtype());
    Tensor y;
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      y = product(x2.to(t), w.to(t).t(), b == null ? null : b.to(t).contiguous(), relu);
    }
    Tensor result = x.dim() == 2 ? y : y.reshape(outShape);
    Tensor[] inputs = b == null ? new Tensor[] {x, w} : new Tensor[] {x, w, b};
    Tensor[] saved = Node.savedForProduct(x, w);
    if (relu) {
      saved = Arrays.copyOf(saved, saved.length + 1);
      saved[saved.length - 1] = y;
    }
    return Node.record(
        name,
        result,
        inputs,
        saved,
        (g, needs) -> {
          Tensor g2 = g.dim() == 2 ? g : g.reshape(-1, out);
          if (relu) {
            g2 = Pointwise.reluBackward(g2, y);
          }
          Tensor[] grads = new Tensor[inputs.length];
          if (needs[0]) {
            Tensor gx = mm(g2, w.to(t)).to(x.dtype());
            grads[0] = x.dim() == 2 ? gx : gx.reshape(x.shape().toArray());
          }
          if (needs[1]) {
            grads[1] = mm(g2.t(), x2.to(t)).to(w.dtype());
          }
          if (inputs.length == 3 && needs[2]) {
            grads[2] = g2.sum(0).to(b.dtype());
          }
          return grads;
        });
  }

  /**
   * {@code act(a b + bias)} for {@code a [M, K]}, {@code b [K, N]}, {@code bias [N]} contiguous (or
   * null), act relu or the identity, as one backend call; not differentiable.
   */
  private static Tensor product(Tensor a, Tensor b, Tensor bias, boolean relu) {
    Tensor a2 = gemmReady(a);
    Tensor b2 = gemmReady(b);
    Tensor out = Creation.empty(new int[] {a.data.size(0), b.data.size(1)}, a.dtype(), a.device());
    out.data
        .storage()
        .backend()
        .linear(
            as3d(a2.data), as3d(b2.data), bias == null ? null : bias.data, relu, as3d(out.data));
    return out;
  }

  /**
   * The product of {@code [..., M, K]} and {@code [..., K, N]}, batch dimensions broadcast;
   * differentiable.
   */
  static Tensor mm(Tensor a, Tensor b) {
    Tensor out;
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      out = b.dim() == 2 ? folded(a, b) : batched(a, b);
    }
    int[] aSizes = a.data.sizes();
    int[] bSizes = b.data.sizes();
    return Node.record(
        "matmul",
        out,
        new Tensor[] {a, b},
        Node.savedForProduct(a, b),
        (g, needs) ->
            new Tensor[] {
              needs[0] ? Views.sumToShape(mm(g, b.transpose(-1, -2)), aSizes) : null,
              needs[1] ? Views.sumToShape(mm(a.transpose(-1, -2), g), bSizes) : null
            });
  }

  /** {@code [..., M, K] x [K, N]}: the batch folds into M, one BLAS call. */
  private static Tensor folded(Tensor a, Tensor b) {
    int[] as = a.data.sizes();
    int k = as[as.length - 1];
    int n = b.data.size(1);
    long rows = 1;
    for (int i = 0; i < as.length - 1; i++) {
      rows *= as[i];
    }
    Tensor a2 = gemmReady(a.reshape(rows, k));
    int m = a2.data.size(0);
    Tensor out = Creation.empty(new int[] {m, n}, a.dtype(), a.device());
    out.data.storage().backend().matmul(as3d(a2.data), as3d(gemmReady(b).data), as3d(out.data));
    long[] shape = new long[as.length];
    for (int i = 0; i < as.length - 1; i++) {
      shape[i] = as[i];
    }
    shape[as.length - 1] = n;
    return out.reshape(shape);
  }

  private static Tensor batched(Tensor a, Tensor b) {
    int[] as = a.data.sizes();
    int[] bs = b.data.sizes();
    int[] aBatch = Arrays.copyOf(as, as.length - 2);
    int[] bBatch = Arrays.copyOf(bs, bs.length - 2);
    int[] batch =
        Checks.broadcast(
            "matmul", aBatch, "batch dimensions of self", bBatch, "batch dimensions of other");
    int m = as[as.length - 2];
    int k = as[as.length - 1];
    int n = bs[bs.length - 1];
    int count = 1;
    for (int s : batch) {
      count *= s;
    }
    Tensor a3 = gemmReady(a.expand(dims(batch, m, k)).reshape(count, m, k));
    Tensor b3 = gemmReady(b.expand(dims(batch, k, n)).reshape(count, k, n));
    Tensor out = Creation.empty(new int[] {count, m, n}, a.dtype(), a.device());
    out.data.storage().backend().matmul(a3.data, b3.data, out.data);
    return out.reshape(dims(batch, m, n));
  }

  private static long[] dims(int[] batch, int rows, int cols) {
    long[] d = new long[batch.length + 2];
    for (int i = 0; i < batch.length; i++) {
      d[i] = batch[i];
    }
    d[batch.length] = rows;
    d[batch.length + 1] = cols;
    return d;
  }

  /** The tensor itself when each matrix is row- or column-major, else a contiguous copy. */
  private static Tensor gemmReady(Tensor t) {
    int r = t.dim();
    int rs = t.data.stride(r - 2);
    int cs = t.data.stride(r - 1);
    int rows = t.data.size(r - 2);
    int cols = t.data.size(r - 1);
    boolean rowMajor = (cs == 1 || cols == 1) && (rows == 1 || rs >= Math.max(1, cols));
    boolean colMajor = (rs == 1 || rows == 1) && (cols == 1 || cs >= Math.max(1, rows));
    return rowMajor || colMajor ? t : t.contiguous();
  }

  private static Strided as3d(Strided s) {
    if (s.rank() == 3) {
      return s;
    }
    return s.withLayout(
        s.offset(), new int[] {1, s.size(0), s.size(1)}, new int[] {0, s.stride(0), s.stride(1)});
  }

  static Tensor softmax(Tensor a, int dim, boolean log) {
    String name = log ? "logSoftmax" : "softmax";
    Checks.floating(name, "self", a);
    int d = a.dim() == 0 ? Checks.dim(name, dim, 0) : Checks.dim(name, dim, a.dim());
    if (a.dim() == 0) {
      Tensor constant = log ? Tensor.zerosLike(a) : Tensor.onesLike(a);
      return Node.record(
          name, constant, new Tensor[] {a}, (g, needs) -> new Tensor[] {Tensor.zerosLike(g)});
    }
    Tensor in = a.contiguous();
    Tensor out = Creation.empty(in.data.sizes().clone(), a.dtype(), a.device());
    in.data.storage().backend().softmax(in.data, d, log, out.data);
    return Node.record(
        name,
        out,
        new Tensor[] {a},
        new Tensor[] {out},
        (g, needs) ->
            new Tensor[] {
              log ? g.sub(out.exp().mul(g.sum(d, true))) : out.mul(g.sub(g.mul(out).sum(d, true)))
            });
  }
}
