package dev.ondevice.internal.cpu;

import dev.ondevice.internal.backend.Coalesced;
import dev.ondevice.internal.backend.ReduceOp;
import dev.ondevice.internal.backend.ScalarType;
import dev.ondevice.internal.backend.Strided;
import java.nio.DoubleBuffer;
import java.nio.FloatBuffer;

/**
 * Sums over the outer dimension of a row-major region, the gradient of a broadcast bias ({@code
 * grad.sum(0)}): the general reduction walks each column with the row stride, a cache line per
 * element, where this adds whole rows into a vector of double accumulators. Each column is summed
 * in the same order, row after row from 0, so the results are the general path's, bit for bit.
 */
final class ColumnSums {
  /** Columns per block: the accumulators and one row's slice stay in the L1 cache. */
  private static final int BLOCK = 1024;

  private static final ThreadLocal<double[]> ACCUMULATORS =
      ThreadLocal.withInitial(() -> new double[BLOCK]);
  private static final ThreadLocal<float[]> ROW = ThreadLocal.withInitial(() -> new float[BLOCK]);

  private ColumnSums() {}

  /**
   * Whether a float sum or mean reduces one dimension whose stride spans the kept elements, which
   * are contiguous in the input: the rows and columns of a row-major matrix.
   */
  static boolean applies(
      ReduceOp op, ScalarType dtype, Coalesced kept, Coalesced reduced, int columns) {
    return (op == ReduceOp.SUM || op == ReduceOp.MEAN)
        && dtype.isFloatingPoint()
        && kept.sizes.length == 1
        && reduced.sizes.length == 1
        && kept.strides[0][0] == 1
        && reduced.strides[0][0] >= columns
        && columns >= 16
        && reduced.sizes[0] > 1;
  }

  /** Writes the sums (or means) of the {@code count} rows into {@code out}. */
  static void run(
      boolean mean, Strided in, Coalesced kept, Coalesced reduced, Strided out, int count) {
    int columns = kept.sizes[0];
    int rowStride = reduced.strides[0][0];
    int outStride = kept.strides[1][0];
    int grain = Math.max(BLOCK, Loops.GRAIN / count);
    Parallel.forRange(
        columns,
        grain,
        (from, to) -> {
          double[] acc = ACCUMULATORS.get();
          for (int j0 = from; j0 < to; j0 += BLOCK) {
            int len = Math.min(BLOCK, to - j0);
            java.util.Arrays.fill(acc, 0, len, 0.0);
            addRows(in, in.offset() + j0, rowStride, count, acc, len);
            for (int j = 0; j < len; j++) {
              double v = mean ? acc[j] / count : acc[j];
              Elements.setDouble(out.host(), out.dtype(), out.offset() + (j0 + j) * outStride, v);
            }
          }
        });
  }

  private static void addRows(
      Strided in, int start, int rowStride, int rows, double[] acc, int len) {
    if (in.dtype() == ScalarType.FLOAT32) {
      FloatBuffer f = in.host().floats();
      float[] row = ROW.get();
      for (int r = 0, p = start; r < rows; r++, p += rowStride) {
        f.get(p, row, 0, len);
        for (int j = 0; j < len; j++) {
          acc[j] += row[j];
        }
      }
    } else {
      DoubleBuffer d = in.host().doubles();
      for (int r = 0, p = start; r < rows; r++, p += rowStride) {
        for (int j = 0; j < len; j++) {
          acc[j] += d.get(p + j);
        }
      }
    }
  }
}
