package dev.ondevice;

import dev.ondevice.internal.backend.ReduceOp;
import java.util.Locale;

/** Reductions over dimensions and their gradients. */
final class Reductions {
  private Reductions() {}

  private static String name(ReduceOp op) {
    return op.name().toLowerCase(Locale.ROOT);
  }

  /** Reduces over {@code dims} (null: all). */
  static Tensor reduce(ReduceOp op, Tensor a, int[] dims, boolean keepdim) {
    String name = name(op);
    int rank = a.dim();
    boolean all = dims == null;
    int[] d = all ? allDims(rank) : Checks.dims(name, dims, rank);
    if (rank == 0) {
      d = new int[0];
    }
    if (op.returnsIndices() && !all && d.length != 1) {
      throw new IllegalArgumentException(
          name + ": positions can be found over one dimension or all of them, not " + d.length);
    }
    if (op == ReduceOp.MEAN && !a.dtype().isFloatingPoint()) {
      throw new IllegalArgumentException(
          "mean: the input must have a floating-point dtype, got "
              + a.dtype()
              + "; convert it with to(DType.FLOAT32)");
    }
    DType inType = a.dtype() == DType.BOOL ? DType.INT64 : a.dtype();
    Tensor in = a.to(inType);
    DType outType = op.returnsIndices() ? DType.INT64 : inType;
    int[] keptSizes = in.data.sizes().clone();
    for (int k : d) {
      keptSizes[k] = 1;
    }
    if (op != ReduceOp.SUM && op != ReduceOp.MEAN && op != ReduceOp.PROD) {
      checkNotEmpty(name, a, keptSizes);
    }
    Tensor out = Creation.empty(keptSizes, outType, a.device());
    if (op.returnsIndices() && all && rank > 1) {
      Tensor pos = reduce(op, in.reshape(-1), new int[] {0}, false);
      return keepdim ? pos.reshape(Shape.of(keptSizes).toArray()) : pos;
    }
    in.data.storage().backend().reduce(op, in.data, d, out.data);
    Tensor result = keepdim ? out : out.reshape(dropped(keptSizes, d));
    if (a.dtype() == DType.BOOL && (op == ReduceOp.MAX || op == ReduceOp.MIN)) {
      result = result.to(DType.BOOL);
    }
    if (!outType.isFloatingPoint()) {
      return result;
    }
    int[] reduced = d;
    Tensor original = in;
    Tensor kept = out;
    Tensor[] saved =
        op == ReduceOp.SUM || op == ReduceOp.MEAN
            ? new Tensor[0]
            : op == ReduceOp.PROD ? new Tensor[] {in} : new Tensor[] {in, out};
    return Node.record(
        name,
        result,
        new Tensor[] {in},
        saved,
        (g, needs) -> {
          Tensor gk = g.reshape(Shape.of(kept.data.sizes()).toArray()).expandAs(original);
          return switch (op) {
            case SUM -> new Tensor[] {gk};
            case MEAN ->
                new Tensor[] {gk.div((double) original.numel() / Math.max(1, kept.numel()))};
            case PROD -> new Tensor[] {gk.mul(productOfOthers(original, reduced))};
            default -> {
              // The gradient is shared by the elements equal to the result, or by the NaNs where
              // the
              // result is a NaN, as PyTorch's evenly_distribute_backward.
              Tensor extremum = kept.expandAs(original);
              Tensor hits =
                  original
                      .eq(extremum)
                      .logicalOr(original.isnan().logicalAnd(extremum.isnan()))
                      .to(g.dtype());
              Tensor count = hits.sum(reduced, true);
              yield new Tensor[] {gk.mul(hits).div(count)};
            }
          };
        });
  }

  /**
   * For each element, the product of the other elements of its reduced region: the gradient of
   * prod. Unlike the product divided by the element (NaN at a zero), it is right where elements are
   * zero, as in PyTorch.
   */
  private static Tensor productOfOthers(Tensor in, int[] dims) {
    Tensor isZero = in.eq(0.0);
    Tensor zeros = isZero.to(in.dtype()).sum(dims, true);
    Tensor zero = Creation.scalarOn(0, in.dtype(), in.device());
    Tensor nonZero = Tensor.where(isZero, Creation.scalarOn(1, in.dtype(), in.device()), in);
    Tensor product = reduce(ReduceOp.PROD, nonZero, dims, true).expandAs(in);
    Tensor atZero = Tensor.where(zeros.eq(1.0), product, zero);
    Tensor elsewhere = Tensor.where(zeros.eq(0.0), product.div(nonZero), zero);
    return Tensor.where(isZero, atZero, elsewhere);
  }

  /**
   * Max, min and their positions have no identity: reducing an empty region to a non-empty result
   * is an error, raised here rather than by the kernel so that it is immediate on every device.
   */
  private static void checkNotEmpty(String op, Tensor a, int[] keptSizes) {
    if (a.numel() == 0 && Shape.of(keptSizes).numel() > 0) {
      throw new IllegalArgumentException(
          op
              + ": cannot reduce over an empty dimension of a tensor of shape "
              + a.shape()
              + "; the operation has no identity");
    }
  }

  private static int[] allDims(int rank) {
    int[] d = new int[rank];
    for (int i = 0; i < rank; i++) {
      d[i] = i;
    }
    return d;
  }

  private static long[] dropped(int[] sizes, int[] dims) {
    long[] out = new long[sizes.length - dims.length];
    for (int i = 0, j = 0, k = 0; i < sizes.length; i++) {
      if (k < dims.length && dims[k] == i) {
        k++;
      } else {
        out[j++] = sizes[i];
      }
    }
    return out;
  }

  static ValuesAndIndices extremes(boolean max, Tensor a, int dim, boolean keepdim) {
    String name = max ? "max" : "min";
    if (a.dtype() == DType.BOOL) {
      throw new IllegalArgumentException(
          name + ": not supported on bool tensors; convert with to(DType.INT64)");
    }
    int d = a.dim() == 0 ? Checks.dim(name, dim, 0) : Checks.dim(name, dim, a.dim());
    if (a.dim() == 0) {
      return new ValuesAndIndices(
          a.clone(), Tensor.full(Shape.scalar(), 0, DType.INT64, a.device()));
    }
    int[] keptSizes = a.data.sizes().clone();
    keptSizes[d] = 1;
    checkNotEmpty(name, a, keptSizes);
    Tensor values = Creation.empty(keptSizes, a.dtype(), a.device());
    Tensor indices = Creation.empty(keptSizes, DType.INT64, a.device());
    a.data.storage().backend().reduceWithIndices(max, a.data, d, values.data, indices.data);
    long[] outShape = keepdim ? Shape.of(keptSizes).toArray() : dropped(keptSizes, new int[] {d});
    Tensor v = values.reshape(outShape);
    Tensor i = indices.reshape(outShape);
    if (!a.dtype().isFloatingPoint()) {
      return new ValuesAndIndices(v, i);
    }
    Node.record(
        name,
        v,
        new Tensor[] {a},
        new Tensor[] {i},
        (g, needs) -> {
          Tensor z = Tensor.zeros(a.shape(), g.dtype(), g.device());
          Tensor gk = g.reshape(Shape.of(keptSizes).toArray());
          z.data.storage().backend().scatterAdd(z.data, d, indices.data, gk.contiguous().data);
          return new Tensor[] {z};
        });
    return new ValuesAndIndices(v, i);
  }

  static Tensor var(Tensor a, int[] dims, boolean unbiased, boolean keepdim) {
    Checks.floating("var", "self", a);
    int[] d = Checks.dims("var", dims, a.dim());
    long n = 1;
    for (int k : d) {
      n *= a.dim() == 0 ? 1 : a.data.size(k);
    }
    Tensor centered = a.sub(a.mean(d, true));
    long denominator = Math.max(0, n - (unbiased ? 1 : 0));
    return centered.square().sum(d, keepdim).div((double) denominator);
  }
}
