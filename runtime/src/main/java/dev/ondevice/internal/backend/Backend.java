package dev.ondevice.internal.backend;

import java.util.Optional;

/**
 * The kernels of one device. Tensors call these after validating shapes, dtypes and devices; a
 * backend may run them asynchronously, in order, and must make results visible to later kernels and
 * to host reads. Internal to the runtime: the extension point of the CPU, emulated and CUDA
 * backends, which {@link BackendProvider}s make and {@link Backends} finds by device type.
 *
 * <p>Unless said otherwise, operands have equal sizes (broadcast operands have stride 0), the
 * output is freshly allocated or written in place, and all operands live on this backend's device.
 */
public interface Backend {
  /** The device. */
  DeviceId device();

  /** The device for people, as {@code cuda:0 (emulated)}. */
  String describe();

  /** Memory of at least {@code bytes}, contents unspecified. */
  Storage allocate(long bytes);

  /** Writes {@code value} (converted to the output dtype) to every element. */
  void fill(Strided out, double value);

  /** Writes {@code from[i]} to {@code to[i]}, converting dtypes. */
  void copy(Strided from, Strided to);

  /** {@code out = op(in)}; in and out share their dtype except for LOGICAL_NOT (bool out). */
  void unary(UnaryOp op, Strided in, Strided out);

  /** {@code out = a op b}; a and b share a dtype; out is bool for comparisons. */
  void binary(BinaryOp op, Strided a, Strided b, Strided out);

  /** {@code out = a op s}, or {@code s op a} when {@code scalarFirst}. */
  void binaryScalar(BinaryOp op, Strided a, double s, boolean scalarFirst, Strided out);

  /**
   * {@code target += alpha * other} in place; {@code other} has the target's sizes (stride 0 where
   * broadcast).
   */
  void scaledAdd(Strided target, Strided other, double alpha);

  /** The gradient of relu: {@code out = output > 0 ? grad : 0}. */
  void reluBackward(Strided grad, Strided output, Strided out);

  /**
   * One SGD update of {@code param} and its momentum {@code buffer} (null without momentum) in
   * place, from {@code grad}; all of one floating dtype and the parameter's sizes.
   */
  void sgdStep(Strided param, Strided grad, Strided buffer, SgdStep step);

  /**
   * One Adam or AdamW update of {@code param} and its moments in place, from {@code grad}; {@code
   * maxExpAvgSq} is null without AMSGrad. All of one floating dtype and the parameter's sizes.
   */
  void adamStep(
      Strided param,
      Strided grad,
      Strided expAvg,
      Strided expAvgSq,
      Strided maxExpAvgSq,
      AdamStep step);

  /** {@code out = cond ? a : b}; cond is bool. */
  void where(Strided cond, Strided a, Strided b, Strided out);

  /**
   * Reduces {@code in} over {@code dims} (ascending). {@code out} has the rank of {@code in}, size
   * 1 on the reduced dimensions. Index reductions write int64 positions along the one reduced
   * dimension, or flat positions when every dimension is reduced.
   */
  void reduce(ReduceOp op, Strided in, int[] dims, Strided out);

  /**
   * Max ({@code max}) or min over one dimension: values and int64 positions, size 1 on {@code dim}.
   */
  void reduceWithIndices(boolean max, Strided in, int dim, Strided values, Strided indices);

  /**
   * Batched matrix product: {@code [B,M,K] x [B,K,N] -> [B,M,N]}, out contiguous. Batch strides may
   * be 0.
   */
  void matmul(Strided a, Strided b, Strided out);

  /**
   * {@link #matmul} with an epilogue in the product's output pass: {@code out = a @ b}, plus {@code
   * bias} ({@code [N]}, contiguous, added to every row; null for none), then {@code max(out, 0)}
   * where {@code relu}. By default the product, then the add and the relu in place.
   */
  default void linear(Strided a, Strided b, Strided bias, boolean relu, Strided out) {
    matmul(a, b, out);
    if (bias != null) {
      int[] strides = new int[out.rank()];
      strides[out.rank() - 1] = 1;
      binary(BinaryOp.ADD, out, bias.withLayout(bias.offset(), out.sizes().clone(), strides), out);
    }
    if (relu) {
      unary(UnaryOp.RELU, out, out);
    }
  }

  /** Softmax or log-softmax along {@code dim}; out contiguous, same sizes. */
  void softmax(Strided in, int dim, boolean log, Strided out);

  /**
   * Cross entropy against class indices along {@code dim}, in one op: {@code logProbs} (contiguous,
   * {@code in}'s sizes) is the log-softmax of {@code in}, and {@code losses} ({@code in}'s sizes
   * without {@code dim}) holds {@code -logProbs} at the class {@code target} (int64, the losses'
   * sizes) names on each line. By default {@link #softmax}, {@link #gather} and a negation.
   */
  default void crossEntropy(Strided in, int dim, Strided target, Strided logProbs, Strided losses) {
    softmax(in, dim, true, logProbs);
    gather(logProbs, dim, withUnitDim(target, dim), withUnitDim(losses, dim));
    unary(UnaryOp.NEG, losses, losses);
  }

  /**
   * The gradient of {@link #crossEntropy} with respect to its input: {@code out} (contiguous, the
   * log-probabilities' sizes) is {@code (exp(logProbs) - onehot(target)) * grad}, {@code grad}
   * having the target's sizes. By default an exponential, a scatter-add of -1 at the targets and a
   * product.
   */
  default void crossEntropyBackward(
      Strided logProbs, int dim, Strided target, Strided grad, Strided out) {
    unary(UnaryOp.EXP, logProbs, out);
    Strided index = withUnitDim(target, dim);
    Storage cell = allocate(out.dtype().byteSize());
    Strided minusOne = new Strided(cell, out.dtype(), 0, index.sizes(), new int[index.rank()]);
    fill(minusOne.withLayout(0, new int[0], new int[0]), -1);
    scatterAdd(out, dim, index, minusOne);
    int[] strides = withUnitDim(grad, dim).strides().clone();
    strides[dim] = 0;
    binary(BinaryOp.MUL, out, grad.withLayout(grad.offset(), out.sizes().clone(), strides), out);
    cell.free("after the gradient of crossEntropy it held -1 for (freed in the order of the work)");
  }

  /** {@code s} with a dimension of size 1 inserted at {@code dim}. */
  private static Strided withUnitDim(Strided s, int dim) {
    int rank = s.rank() + 1;
    int[] sizes = new int[rank];
    int[] strides = new int[rank];
    for (int d = 0, from = 0; d < rank; d++) {
      if (d == dim) {
        sizes[d] = 1;
      } else {
        sizes[d] = s.size(from);
        strides[d] = s.stride(from);
        from++;
      }
    }
    return s.withLayout(s.offset(), sizes, strides);
  }

  /** {@code out[..i..] = in[..index[..i..]..]} along {@code dim}. */
  void gather(Strided in, int dim, Strided index, Strided out);

  /** {@code target[..index[..i..]..] += src[..i..]} along {@code dim}. */
  void scatterAdd(Strided target, int dim, Strided index, Strided src);

  /** Picks the slices {@code index} (1-d int64) of {@code in} along {@code dim}. */
  void indexSelect(Strided in, int dim, Strided index, Strided out);

  /**
   * Adds slice {@code i} of {@code src} to slice {@code index[i]} of {@code target} along {@code
   * dim}.
   */
  void indexAdd(Strided target, int dim, Strided index, Strided src);

  /**
   * im2col: {@code out[n,c,i,j,oh,ow] = in[n,c, oh*strideH - padH + i, ow*strideW - padW + j]}, 0
   * in the padding. {@code in} is {@code [N,C,H,W]} and floating-point; {@code out} has sizes
   * {@code [N,C,kh,kw,OH,OW]} and any strides, so that a convolution can lay it out as the {@code
   * [C*kh*kw, N*OH*OW]} matrix of one product.
   */
  void unfold2d(Strided in, Window2d window, Strided out);

  /**
   * col2im, the adjoint of {@link #unfold2d}: {@code out[n,c,h,w]} ({@code [N,C,H,W]}) is
   * overwritten with the sum of the elements of {@code cols} ({@code [N,C,kh,kw,OH,OW]}, any
   * strides) whose window covers {@code (h, w)}.
   */
  void fold2d(Strided cols, Window2d window, Strided out);

  /**
   * Max pooling of {@code in} ({@code [N,C,H,W]}) into {@code values} ({@code [N,C,OH,OW]}) and the
   * int64 flat plane positions {@code h * W + w} of the maxima into {@code indices}; the padding
   * never wins.
   */
  void maxPool2d(Strided in, Window2d window, Strided values, Strided indices);

  /**
   * The gradient of {@link #maxPool2d}: {@code out} ({@code [N,C,H,W]}) is overwritten with zeros
   * plus each element of {@code gradOut} added at its position in {@code indices}.
   */
  void maxPool2dBackward(Strided gradOut, Strided indices, Strided out);

  /**
   * Fills {@code out} with draws of a counter-based generator: element i uses counter {@code
   * counter + i}.
   */
  void random(RandomKind kind, double a, double b, long seed, long counter, Strided out);

  /** {@code out[i] = 1} with probability {@code p[i]}, else 0. */
  void bernoulli(Strided p, long seed, long counter, Strided out);

  /** {@code out[i] = start + i * step}; out contiguous. */
  void arange(double start, double step, Strided out);

  /** Waits until all queued work has run; counts a host synchronisation. */
  void synchronize();

  /** The device's name for people, as {@code NVIDIA H200}; {@link #describe()} by default. */
  default String name() {
    return describe();
  }

  /**
   * Memory of this device: {@code [allocated, reserved, peak allocated]} bytes. By default what a
   * host backend counts of its live storages, reserving what it allocates.
   */
  default long[] memory() {
    if (this instanceof HostBackend h) {
      long live = h.liveBytes().get();
      return new long[] {live, live, h.peakBytes().get()};
    }
    return new long[3];
  }

  /**
   * Direct convolution kernels for operands of {@code type}, or empty when this backend convolves
   * by {@link #unfold2d}, a matrix product and {@link #fold2d} (the default).
   */
  default Optional<Conv2dKernels> conv2dKernels(ScalarType type) {
    return Optional.empty();
  }

  /** Gives cached, unused memory back to the system; nothing by default. */
  default void emptyCache() {}

  /** Stops the device's streams once their queued work has run; nothing by default. */
  default void close() {}
}
