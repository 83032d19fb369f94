package dev.ondevice.internal.cpu;

import dev.ondevice.internal.backend.HostStorage;
import dev.ondevice.internal.backend.Strided;
import dev.ondevice.internal.backend.Window2d;
import dev.ondevice.internal.backend.WindowChecks;
import dev.ondevice.internal.backend.WindowGrid;
import java.nio.LongBuffer;

/**
 * Max pooling over 2-d windows and its gradient on host memory, split over the {@code N*C} image
 * planes; each plane is processed in heap scratch (see {@link Planes}) and moved with bulk copies.
 */
public final class PoolKernels {
  private PoolKernels() {}

  /**
   * The maximum of each window of {@code in} ({@code [N,C,H,W]}) into {@code values} ({@code
   * [N,C,OH,OW]}), and its flat position {@code h * W + w} in the plane into the int64 {@code
   * indices}. The padding never wins; a NaN does, as in PyTorch.
   */
  public static void maxPool2d(Strided in, Window2d window, Strided values, Strided indices) {
    WindowGrid grid = WindowChecks.maxPool(in, window, values, indices);
    int channels = in.size(1);
    int[] is = in.strides();
    int[] vs = values.strides();
    int[] xs = indices.strides();
    HostStorage src = in.host();
    LongBuffer positions = indices.host().longs();
    Parallel.forRange(
        in.size(0) * channels,
        grain(grid),
        (from, to) -> {
          Planes p = Planes.of(in.dtype(), grid.height() * grid.width(), grid.positions(), 1);
          long[] best = new long[grid.positions()];
          for (int q = from; q < to; q++) {
            int n = q / channels;
            int c = q % channels;
            p.loadPlane(
                src,
                in.offset() + n * is[0] + c * is[1],
                is[2],
                is[3],
                grid.height(),
                grid.width());
            p.maxPool(0, grid, best);
            p.storeRow(
                0,
                values.host(),
                values.offset() + n * vs[0] + c * vs[1],
                vs[2],
                vs[3],
                grid.outHeight(),
                grid.outWidth());
            storePositions(
                positions, indices.offset() + n * xs[0] + c * xs[1], xs[2], xs[3], grid, best);
          }
        });
  }

  /**
   * The gradient of {@link #maxPool2d}: {@code out} ({@code [N,C,H,W]}) is overwritten with zeros
   * plus each element of {@code gradOut} ({@code [N,C,OH,OW]}) added at the plane position {@code
   * indices} holds for it.
   *
   * @throws IndexOutOfBoundsException naming the position when one lies outside its plane
   */
  public static void maxPool2dBackward(Strided gradOut, Strided indices, Strided out) {
    WindowChecks.maxPoolBackward(gradOut, indices, out);
    int channels = out.size(1);
    int height = out.size(2);
    int width = out.size(3);
    int oh = gradOut.size(2);
    int ow = gradOut.size(3);
    int[] gs = gradOut.strides();
    int[] xs = indices.strides();
    int[] os = out.strides();
    LongBuffer positions = indices.host().longs();
    int grain = Math.max(1, Loops.GRAIN / Math.max(1, height * width));
    Parallel.forRange(
        out.size(0) * channels,
        grain,
        (from, to) -> {
          Planes p = Planes.of(out.dtype(), height * width, oh * ow, 1);
          long[] at = new long[oh * ow];
          for (int q = from; q < to; q++) {
            int n = q / channels;
            int c = q % channels;
            loadPositions(
                positions, indices.offset() + n * xs[0] + c * xs[1], xs[2], xs[3], oh, ow, at);
            checkPositions(at, height, width);
            p.zeroPlane();
            p.loadRow(
                0, gradOut.host(), gradOut.offset() + n * gs[0] + c * gs[1], gs[2], gs[3], oh, ow);
            p.addAt(0, at, at.length);
            p.storePlane(
                out.host(), out.offset() + n * os[0] + c * os[1], os[2], os[3], height, width);
          }
        });
  }

  private static void checkPositions(long[] at, int height, int width) {
    long limit = (long) height * width;
    for (long k : at) {
      if (k < 0 || k >= limit) {
        throw new IndexOutOfBoundsException(
            "maxPool2dBackward: position "
                + k
                + " is outside a plane of "
                + height
                + "x"
                + width
                + " (argument 'indices')");
      }
    }
  }

  private static void storePositions(
      LongBuffer b, int base, int rs, int cs, WindowGrid grid, long[] from) {
    int rows = grid.outHeight();
    int cols = grid.outWidth();
    if (cs == 1 && rs == cols) {
      b.put(base, from, 0, rows * cols);
      return;
    }
    for (int r = 0, k = 0; r < rows; r++) {
      for (int c = 0; c < cols; c++) {
        b.put(base + r * rs + c * cs, from[k++]);
      }
    }
  }

  private static void loadPositions(
      LongBuffer b, int base, int rs, int cs, int rows, int cols, long[] into) {
    if (cs == 1 && rs == cols) {
      b.get(base, into, 0, rows * cols);
      return;
    }
    for (int r = 0, k = 0; r < rows; r++) {
      for (int c = 0; c < cols; c++) {
        into[k++] = b.get(base + r * rs + c * cs);
      }
    }
  }

  /** Planes per thread chunk. */
  private static int grain(WindowGrid grid) {
    return Math.max(1, Loops.GRAIN / Math.max(1, grid.height() * grid.width()));
  }
}
