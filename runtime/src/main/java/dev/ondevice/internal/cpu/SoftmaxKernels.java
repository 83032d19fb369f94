package dev.ondevice.internal.cpu;

import dev.ondevice.internal.backend.HostStorage;
import dev.ondevice.internal.backend.ScalarType;
import dev.ondevice.internal.backend.Strided;

/**
 * Softmax and log-softmax along one dimension, numerically stable (the maximum is subtracted
 * first).
 */
public final class SoftmaxKernels {
  private SoftmaxKernels() {}

  /** Softmax (or log-softmax) of {@code in} along {@code dim} into contiguous {@code out}. */
  public static void softmax(Strided in, int dim, boolean log, Strided out) {
    int size = in.size(dim);
    int outer = 1;
    for (int d = 0; d < dim; d++) {
      outer *= in.size(d);
    }
    int inner = 1;
    for (int d = dim + 1; d < in.rank(); d++) {
      inner *= in.size(d);
    }
    if (size == 0) {
      return;
    }
    int lines = outer * inner;
    int innerCount = inner;
    int[] sizes = in.sizes();
    int[] strides = in.strides();
    int inOffset = in.offset();
    HostStorage src = in.host();
    HostStorage dst = out.host();
    ScalarType t = in.dtype();
    int step = strides[dim];
    int outStep = inner;
    Parallel.forRange(
        lines,
        Math.max(1, Loops.GRAIN / size),
        (from, to) -> {
          double[] buf = new double[size];
          for (int line = from; line < to; line++) {
            int o = line / innerCount;
            int i = line % innerCount;
            int base =
                inOffset
                    + offsetOf(o, 0, dim, sizes, strides)
                    + offsetOf(i, dim + 1, sizes.length, sizes, strides);
            double max = Double.NEGATIVE_INFINITY;
            for (int j = 0, p = base; j < size; j++, p += step) {
              double v = Elements.getDouble(src, t, p);
              buf[j] = v;
              if (v > max || Double.isNaN(v)) {
                max = v;
              }
            }
            if (max == Double.NEGATIVE_INFINITY) {
              max = 0;
            }
            double sum = 0;
            for (int j = 0; j < size; j++) {
              sum += Math.exp(buf[j] - max);
            }
            int outBase = out.offset() + o * size * innerCount + i;
            if (log) {
              double logSum = Math.log(sum);
              for (int j = 0, q = outBase; j < size; j++, q += outStep) {
                Elements.setDouble(dst, t, q, (buf[j] - max) - logSum);
              }
            } else {
              for (int j = 0, q = outBase; j < size; j++, q += outStep) {
                Elements.setDouble(dst, t, q, Math.exp(buf[j] - max) / sum);
              }
            }
          }
        });
  }

  /** The offset of linear index {@code idx} over dimensions {@code [from, to)}. */
  private static int offsetOf(int idx, int from, int to, int[] sizes, int[] strides) {
    int off = 0;
    for (int d = to - 1; d >= from; d--) {
      off += (idx % sizes[d]) * strides[d];
      idx /= sizes[d];
    }
    return off;
  }
}
