package dev.ondevice.internal.cpu;

import dev.ondevice.internal.backend.HostStorage;
import dev.ondevice.internal.backend.ScalarType;
import dev.ondevice.internal.backend.Strided;
import java.nio.LongBuffer;

/**
 * Indexing kernels on host memory: gather and scatter-add along a dimension, index-select and
 * index-add of slices. Every index is checked; an index out of range is reported with the op, the
 * value and the size it had to stay below.
 */
public final class IndexKernels {
  private IndexKernels() {}

  /** {@code out[p] = in[p with coordinate dim replaced by index[p]]}. */
  public static void gather(Strided in, int dim, Strided index, Strided out) {
    int limit = in.size(dim);
    int step = in.stride(dim);
    int[] inStrides = in.strides().clone();
    inStrides[dim] = 0;
    int[] inSized = sizedStrides(inStrides, index.sizes());
    LongBuffer idx = index.host().longs();
    HostStorage src = in.host();
    HostStorage dst = out.host();
    ScalarType t = in.dtype();
    Loops.forEach(
        index.sizes(),
        new int[][] {inSized, index.strides(), out.strides()},
        new int[] {in.offset(), index.offset(), out.offset()},
        (n, off, st) -> {
          for (int i = 0, p = off[0], q = off[1], r = off[2];
              i < n;
              i++, p += st[0], q += st[1], r += st[2]) {
            long k = checked("gather", idx.get(q), dim, limit);
            Elements.copy(src, p + (int) k * step, dst, r, t);
          }
        });
  }

  /**
   * {@code target[p with coordinate dim replaced by index[p]] += src[p]}; sequential, as indices
   * may repeat.
   */
  public static void scatterAdd(Strided target, int dim, Strided index, Strided src) {
    int limit = target.size(dim);
    int step = target.stride(dim);
    int[] tStrides = target.strides().clone();
    tStrides[dim] = 0;
    int[] tSized = sizedStrides(tStrides, index.sizes());
    LongBuffer idx = index.host().longs();
    HostStorage s = src.host();
    HostStorage d = target.host();
    ScalarType t = target.dtype();
    Loops.forEach(
        index.sizes(),
        new int[][] {tSized, index.strides(), src.strides()},
        new int[] {target.offset(), index.offset(), src.offset()},
        (n, off, st) -> {
          for (int i = 0, p = off[0], q = off[1], r = off[2];
              i < n;
              i++, p += st[0], q += st[1], r += st[2]) {
            long k = checked("scatterAdd", idx.get(q), dim, limit);
            int at = p + (int) k * step;
            Elements.setDouble(
                d, t, at, Elements.getDouble(d, t, at) + Elements.getDouble(s, t, r));
          }
        },
        false);
  }

  /** Copies slice {@code index[i]} of {@code in} along {@code dim} to slice i of {@code out}. */
  public static void indexSelect(Strided in, int dim, Strided index, Strided out) {
    int count = index.size(0);
    int limit = in.size(dim);
    LongBuffer idx = index.host().longs();
    Parallel.forRange(
        count,
        Math.max(1, Loops.GRAIN / Math.max(1, slice(out, dim).numel())),
        (from, to) -> {
          for (int i = from; i < to; i++) {
            long k =
                checked("indexSelect", idx.get(index.offset() + i * index.stride(0)), dim, limit);
            copySlice(select(in, dim, (int) k), select(out, dim, i));
          }
        });
  }

  /** Adds slice i of {@code src} to slice {@code index[i]} of {@code target} along {@code dim}. */
  public static void indexAdd(Strided target, int dim, Strided index, Strided src) {
    int count = index.size(0);
    int limit = target.size(dim);
    LongBuffer idx = index.host().longs();
    for (int i = 0; i < count; i++) {
      long k = checked("indexAdd", idx.get(index.offset() + i * index.stride(0)), dim, limit);
      Strided t = select(target, dim, (int) k);
      BinaryKernels.apply(dev.ondevice.internal.backend.BinaryOp.ADD, t, select(src, dim, i), t);
    }
  }

  private static long checked(String op, long k, int dim, int limit) {
    if (k < 0 || k >= limit) {
      throw new IndexOutOfBoundsException(
          op
              + ": index "
              + k
              + " is out of bounds for dimension "
              + dim
              + " with size "
              + limit
              + " (argument 'index')");
    }
    return k;
  }

  /** Strides of the input for the index space; dimensions past the input's rank do not occur. */
  private static int[] sizedStrides(int[] strides, int[] sizes) {
    return strides.length == sizes.length
        ? strides
        : java.util.Arrays.copyOf(strides, sizes.length);
  }

  private static Strided slice(Strided s, int dim) {
    return select(s, dim, 0);
  }

  private static Strided select(Strided s, int dim, int i) {
    int[] sizes = s.sizes().clone();
    sizes[dim] = 1;
    return s.withLayout(s.offset() + i * s.stride(dim), sizes, s.strides());
  }

  private static void copySlice(Strided from, Strided to) {
    Loops.forEach(
        to.sizes(),
        new int[][] {from.strides(), to.strides()},
        new int[] {from.offset(), to.offset()},
        (n, off, st) -> {
          for (int i = 0, p = off[0], q = off[1]; i < n; i++, p += st[0], q += st[1]) {
            Elements.copy(from.host(), p, to.host(), q, from.dtype());
          }
        },
        false);
  }
}
