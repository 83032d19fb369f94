package dev.ondevice.internal.backend;

/**
 * A window sliding over one {@code height x width} plane: where each output position's window lies,
 * clipped to the plane, and which output positions see a given kernel offset inside the plane
 * rather than in the padding. Public for its sizes, which the CUDA backend's launches read.
 */
public final class WindowGrid {
  private final Window2d window;
  private final int height;
  private final int width;
  private final int outHeight;
  private final int outWidth;

  /**
   * The grid of {@code window} over a plane of the given size.
   *
   * @throws IllegalArgumentException if the window does not fit the padded plane once
   */
  WindowGrid(String op, Window2d window, int height, int width) {
    this.window = window;
    this.height = height;
    this.width = width;
    this.outHeight = window.outHeight(height);
    this.outWidth = window.outWidth(width);
    if (outHeight < 1 || outWidth < 1) {
      throw new IllegalArgumentException(
          op
              + ": a plane of "
              + height
              + "x"
              + width
              + " is too small for the window ("
              + window
              + ")");
    }
  }

  public int height() {
    return height;
  }

  public int width() {
    return width;
  }

  public int outHeight() {
    return outHeight;
  }

  public int outWidth() {
    return outWidth;
  }

  /** Whether the windows are 2x2 at stride 2 without padding: disjoint, all inside the plane. */
  public boolean isDisjointPairs() {
    return window.kernelH() == 2
        && window.kernelW() == 2
        && window.strideH() == 2
        && window.strideW() == 2
        && window.padH() == 0
        && window.padW() == 0;
  }

  /** Output positions per plane. */
  public int positions() {
    return outHeight * outWidth;
  }

  /** The first plane row of the window at output row {@code oh}. */
  public int firstRow(int oh) {
    return Math.max(0, oh * window.strideH() - window.padH());
  }

  /** One past the last plane row of the window at output row {@code oh}. */
  public int endRow(int oh) {
    return Math.min(height, oh * window.strideH() - window.padH() + window.kernelH());
  }

  /** The first plane column of the window at output column {@code ow}. */
  public int firstColumn(int ow) {
    return Math.max(0, ow * window.strideW() - window.padW());
  }

  /** One past the last plane column of the window at output column {@code ow}. */
  public int endColumn(int ow) {
    return Math.min(width, ow * window.strideW() - window.padW() + window.kernelW());
  }

  /**
   * The plane row that kernel row {@code i} covers at output row {@code oh} (outside the plane in
   * the padding).
   */
  public int sourceRow(int oh, int i) {
    return oh * window.strideH() - window.padH() + i;
  }

  /** The plane column that kernel column {@code j} covers at output column {@code ow}. */
  public int sourceColumn(int ow, int j) {
    return ow * window.strideW() - window.padW() + j;
  }

  /** The first output row at which kernel row {@code i} is inside the plane. */
  public int firstInsideRow(int i) {
    return clamp(ceilDiv(window.padH() - i, window.strideH()), outHeight);
  }

  /** One past the last output row at which kernel row {@code i} is inside the plane. */
  public int endInsideRow(int i) {
    return clamp(ceilDiv(height + window.padH() - i, window.strideH()), outHeight);
  }

  /** The first output column at which kernel column {@code j} is inside the plane. */
  public int firstInsideColumn(int j) {
    return clamp(ceilDiv(window.padW() - j, window.strideW()), outWidth);
  }

  /** One past the last output column at which kernel column {@code j} is inside the plane. */
  public int endInsideColumn(int j) {
    return clamp(ceilDiv(width + window.padW() - j, window.strideW()), outWidth);
  }

  private static int ceilDiv(int a, int b) {
    return -Math.floorDiv(-a, b);
  }

  private static int clamp(int v, int max) {
    return Math.max(0, Math.min(max, v));
  }
}
