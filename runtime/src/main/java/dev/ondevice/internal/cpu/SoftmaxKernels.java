package dev.ondevice.internal.cpu;

import dev.ondevice.internal.backend.HostStorage;
import dev.ondevice.internal.backend.Strided;

/**
 * Softmax and log-softmax along one dimension, numerically stable (the maximum is subtracted
 * first), one {@link SoftmaxLine} at a time.
 */
public final class SoftmaxKernels {
  private SoftmaxKernels() {}

  /** Softmax (or log-softmax) of {@code in} along {@code dim} into contiguous {@code out}. */
  public static void softmax(Strided in, int dim, boolean log, Strided out) {
    Lines lines = new Lines(in.sizes(), dim);
    if (lines.size == 0) {
      return;
    }
    HostStorage src = in.host();
    HostStorage dst = out.host();
    int step = in.stride(dim);
    int outStep = out.stride(dim);
    Parallel.forRange(
        lines.count,
        Math.max(1, Loops.GRAIN / lines.size),
        (from, to) -> {
          SoftmaxLine line = new SoftmaxLine(in.dtype(), lines.size);
          for (int l = from; l < to; l++) {
            line.load(src, lines.offset(in, l), step);
            if (log) {
              line.writeLog(dst, lines.offset(out, l), outStep);
            } else {
              line.writeSoftmax(dst, lines.offset(out, l), outStep);
            }
          }
        });
  }
}
