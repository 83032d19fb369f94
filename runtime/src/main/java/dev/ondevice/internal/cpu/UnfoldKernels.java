package dev.ondevice.internal.cpu;

import dev.ondevice.internal.backend.HostStorage;
import dev.ondevice.internal.backend.Strided;
import dev.ondevice.internal.backend.Window2d;
import dev.ondevice.internal.backend.WindowChecks;
import dev.ondevice.internal.backend.WindowGrid;

/**
 * im2col and col2im on host memory, the data movement of convolution by matrix product. Work is
 * split over the {@code N*C} image planes; each plane is read once into heap scratch, and every
 * kernel offset's block of window positions is built there with array copies and written with one
 * bulk copy when its layout allows (see {@link Planes}).
 */
public final class UnfoldKernels {
  private UnfoldKernels() {}

  /**
   * {@code out[n,c,i,j,oh,ow] = in[n,c, oh*strideH - padH + i, ow*strideW - padW + j]}, 0 in the
   * padding. {@code in} is {@code [N,C,H,W]}; {@code out} has sizes {@code [N,C,kh,kw,OH,OW]} and
   * any strides.
   */
  public static void unfold2d(Strided in, Window2d window, Strided out) {
    WindowGrid grid = WindowChecks.unfold(in, window, out);
    int channels = in.size(1);
    int kh = window.kernelH();
    int kw = window.kernelW();
    int[] is = in.strides();
    int[] os = out.strides();
    HostStorage src = in.host();
    HostStorage dst = out.host();
    Parallel.forRange(
        in.size(0) * channels,
        grain(window, grid),
        (from, to) -> {
          Planes p = Planes.of(in.dtype(), grid.height() * grid.width(), grid.positions(), kh * kw);
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
            int base = out.offset() + n * os[0] + c * os[1];
            for (int i = 0; i < kh; i++) {
              for (int j = 0; j < kw; j++) {
                int k = i * kw + j;
                gatherOffset(p, k, grid, window, i, j);
                p.storeRow(
                    k,
                    dst,
                    base + i * os[2] + j * os[3],
                    os[4],
                    os[5],
                    grid.outHeight(),
                    grid.outWidth());
              }
            }
          }
        });
  }

  /**
   * The adjoint of {@link #unfold2d}: {@code out[n,c,h,w]} is the sum of the elements of {@code
   * cols} ({@code [N,C,kh,kw,OH,OW]}, any strides) whose window position covers {@code (h, w)}.
   * {@code out} ({@code [N,C,H,W]}) is overwritten.
   */
  public static void fold2d(Strided cols, Window2d window, Strided out) {
    WindowGrid grid = WindowChecks.fold(cols, window, out);
    int channels = out.size(1);
    int kh = window.kernelH();
    int kw = window.kernelW();
    int[] cs = cols.strides();
    int[] os = out.strides();
    HostStorage src = cols.host();
    HostStorage dst = out.host();
    Parallel.forRange(
        out.size(0) * channels,
        grain(window, grid),
        (from, to) -> {
          Planes p = Planes.of(out.dtype(), grid.height() * grid.width(), grid.positions(), 1);
          for (int q = from; q < to; q++) {
            int n = q / channels;
            int c = q % channels;
            p.zeroPlane();
            int base = cols.offset() + n * cs[0] + c * cs[1];
            for (int i = 0; i < kh; i++) {
              for (int j = 0; j < kw; j++) {
                p.loadRow(
                    0,
                    src,
                    base + i * cs[2] + j * cs[3],
                    cs[4],
                    cs[5],
                    grid.outHeight(),
                    grid.outWidth());
                scatterOffset(p, grid, window, i, j);
              }
            }
            p.storePlane(
                dst,
                out.offset() + n * os[0] + c * os[1],
                os[2],
                os[3],
                grid.height(),
                grid.width());
          }
        });
  }

  /**
   * Row {@code k} of the scratch: the plane elements kernel offset {@code (i, j)} sees, 0 in the
   * padding.
   */
  private static void gatherOffset(
      Planes p, int k, WindowGrid grid, Window2d window, int i, int j) {
    int oh0 = grid.firstInsideRow(i);
    int ow0 = grid.firstInsideColumn(j);
    int rows = grid.endInsideRow(i) - oh0;
    int count = grid.endInsideColumn(j) - ow0;
    if (rows > 0 && count > 0) {
      p.gather(
          k,
          grid.sourceRow(oh0, i) * grid.width() + grid.sourceColumn(ow0, j),
          window.strideH() * grid.width(),
          oh0 * grid.outWidth() + ow0,
          grid.outWidth(),
          rows,
          count,
          window.strideW());
    }
  }

  /** Adds the loaded row of kernel offset {@code (i, j)} into the plane, skipping the padding. */
  private static void scatterOffset(Planes p, WindowGrid grid, Window2d window, int i, int j) {
    int oh0 = grid.firstInsideRow(i);
    int ow0 = grid.firstInsideColumn(j);
    int rows = grid.endInsideRow(i) - oh0;
    int count = grid.endInsideColumn(j) - ow0;
    if (rows > 0 && count > 0) {
      p.scatterAdd(
          0,
          oh0 * grid.outWidth() + ow0,
          grid.outWidth(),
          grid.sourceRow(oh0, i) * grid.width() + grid.sourceColumn(ow0, j),
          window.strideH() * grid.width(),
          rows,
          count,
          window.strideW());
    }
  }

  /** Planes per thread chunk: enough work to be worth a thread. */
  private static int grain(Window2d window, WindowGrid grid) {
    return Math.max(
        1, Loops.GRAIN / Math.max(1, window.kernelH() * window.kernelW() * grid.positions()));
  }
}
