package dev.ondevice.internal.backend;

import java.util.Arrays;

/**
 * The argument checks of the sliding-window kernels, on every backend: operand sizes against the
 * window, dtypes, and every element a view can address inside its storage. Each failure names the
 * kernel, the operand and the sizes, so a caller's mistake never surfaces as a bare buffer index
 * error.
 */
public final class WindowChecks {
  private WindowChecks() {}

  /** Throws unless {@code s} is a floating-point operand of rank {@code rank}. */
  public static void floating(String op, String name, Strided s, int rank) {
    if (s.rank() != rank) {
      throw new IllegalArgumentException(
          op
              + ": "
              + name
              + " must have "
              + rank
              + " dimensions, got sizes "
              + Arrays.toString(s.sizes()));
    }
    if (!s.dtype().isFloatingPoint()) {
      throw new IllegalArgumentException(
          op + ": " + name + " must be float32 or float64, got " + s.dtype());
    }
  }

  /** Throws unless {@code s} has the dtype of {@code reference}. */
  public static void sameType(String op, String name, Strided s, ScalarType reference) {
    if (s.dtype() != reference) {
      throw new IllegalArgumentException(
          op + ": " + name + " is " + s.dtype() + " but the input is " + reference);
    }
  }

  /** Throws unless {@code s} has exactly the sizes {@code expected}. */
  public static void sizes(String op, String name, Strided s, int[] expected, Window2d window) {
    if (!Arrays.equals(s.sizes(), expected)) {
      throw new IllegalArgumentException(
          op
              + ": "
              + name
              + " has sizes "
              + Arrays.toString(s.sizes())
              + " but the window ("
              + window
              + ") needs "
              + Arrays.toString(expected));
    }
  }

  /**
   * Checks the operands of im2col ({@code in} {@code [N,C,H,W]} into {@code cols} {@code
   * [N,C,kh,kw,OH,OW]}) and returns the window's grid over the plane.
   */
  public static WindowGrid unfold(Strided in, Window2d window, Strided cols) {
    return imageAndColumns("unfold2d", "input", in, window, cols);
  }

  /**
   * Checks the operands of col2im ({@code cols} into {@code out} {@code [N,C,H,W]}) and returns the
   * grid.
   */
  public static WindowGrid fold(Strided cols, Window2d window, Strided out) {
    return imageAndColumns("fold2d", "out", out, window, cols);
  }

  /**
   * The checks im2col and col2im share: an image {@code [N,C,H,W]} and its columns {@code
   * [N,C,kh,kw,OH,OW]}.
   */
  private static WindowGrid imageAndColumns(
      String op, String imageName, Strided image, Window2d window, Strided cols) {
    floating(op, imageName, image, 4);
    WindowGrid grid = new WindowGrid(op, window, image.size(2), image.size(3));
    sameType(op, "columns", cols, image.dtype());
    sizes(
        op,
        "columns",
        cols,
        new int[] {
          image.size(0),
          image.size(1),
          window.kernelH(),
          window.kernelW(),
          grid.outHeight(),
          grid.outWidth()
        },
        window);
    inStorage(op, "columns", cols);
    inStorage(op, imageName, image);
    return grid;
  }

  /**
   * Checks the operands of max pooling ({@code in} {@code [N,C,H,W]} into {@code values} and int64
   * {@code indices} {@code [N,C,OH,OW]}) and returns the grid.
   */
  public static WindowGrid maxPool(Strided in, Window2d window, Strided values, Strided indices) {
    floating("maxPool2d", "input", in, 4);
    WindowGrid grid = new WindowGrid("maxPool2d", window, in.size(2), in.size(3));
    int[] outSizes = {in.size(0), in.size(1), grid.outHeight(), grid.outWidth()};
    sameType("maxPool2d", "values", values, in.dtype());
    sizes("maxPool2d", "values", values, outSizes, window);
    sizes("maxPool2d", "indices", indices, outSizes, window);
    indexType("maxPool2d", indices);
    inStorage("maxPool2d", "input", in);
    inStorage("maxPool2d", "values", values);
    inStorage("maxPool2d", "indices", indices);
    return grid;
  }

  /**
   * Checks the operands of the max-pooling gradient ({@code gradOut} and {@code indices} into
   * {@code out}).
   */
  public static void maxPoolBackward(Strided gradOut, Strided indices, Strided out) {
    floating("maxPool2dBackward", "out", out, 4);
    floating("maxPool2dBackward", "gradOut", gradOut, 4);
    sameType("maxPool2dBackward", "gradOut", gradOut, out.dtype());
    indexType("maxPool2dBackward", indices);
    if (!Arrays.equals(gradOut.sizes(), indices.sizes())
        || gradOut.size(0) != out.size(0)
        || gradOut.size(1) != out.size(1)) {
      throw new IllegalArgumentException(
          "maxPool2dBackward: gradOut "
              + Arrays.toString(gradOut.sizes())
              + ", indices "
              + Arrays.toString(indices.sizes())
              + " and out "
              + Arrays.toString(out.sizes())
              + " must agree on N and C, and gradOut and indices on every size");
    }
    inStorage("maxPool2dBackward", "gradOut", gradOut);
    inStorage("maxPool2dBackward", "indices", indices);
    inStorage("maxPool2dBackward", "out", out);
  }

  private static void indexType(String op, Strided indices) {
    if (indices.dtype() != ScalarType.INT64) {
      throw new IllegalArgumentException(op + ": indices must be int64, got " + indices.dtype());
    }
  }

  /** Throws unless every element of {@code s} lies inside its storage. */
  public static void inStorage(String op, String name, Strided s) {
    if (s.numel() == 0) {
      return;
    }
    long lo = s.offset();
    long hi = s.offset();
    for (int d = 0; d < s.rank(); d++) {
      long reach = (long) (s.size(d) - 1) * s.stride(d);
      if (reach < 0) {
        lo += reach;
      } else {
        hi += reach;
      }
    }
    long capacity = s.storage().byteSize() / s.dtype().byteSize();
    if (lo < 0 || hi >= capacity) {
      throw new IndexOutOfBoundsException(
          op
              + ": "
              + name
              + " (sizes "
              + Arrays.toString(s.sizes())
              + ", strides "
              + Arrays.toString(s.strides())
              + ", offset "
              + s.offset()
              + ") reaches elements "
              + lo
              + " to "
              + hi
              + " of a storage of "
              + capacity);
    }
  }
}
