package dev.ondevice.internal.backend;

/**
 * The sliding window of a 2-d convolution or pooling: kernel size, stride and zero padding along
 * height and width (no dilation). Output sizes follow PyTorch's floor rule: {@code (in + 2 * pad -
 * kernel) / stride + 1}. Internal to the runtime.
 *
 * @param kernelH kernel height, at least 1
 * @param kernelW kernel width, at least 1
 * @param strideH vertical step, at least 1
 * @param strideW horizontal step, at least 1
 * @param padH rows of padding above and below, at least 0
 * @param padW columns of padding left and right, at least 0
 */
public record Window2d(int kernelH, int kernelW, int strideH, int strideW, int padH, int padW) {
  /** Validates the sizes. */
  public Window2d {
    if (kernelH < 1 || kernelW < 1 || strideH < 1 || strideW < 1 || padH < 0 || padW < 0) {
      throw new IllegalArgumentException(
          "Window2d: kernel and stride must be positive and padding"
              + " non-negative, got kernel "
              + kernelH
              + "x"
              + kernelW
              + ", stride "
              + strideH
              + "x"
              + strideW
              + ", padding "
              + padH
              + "x"
              + padW);
    }
  }

  /** The output height for an input of height {@code h}; below 1 when the window does not fit. */
  public int outHeight(int h) {
    return Math.floorDiv(h + 2 * padH - kernelH, strideH) + 1;
  }

  /** The output width for an input of width {@code w}; below 1 when the window does not fit. */
  public int outWidth(int w) {
    return Math.floorDiv(w + 2 * padW - kernelW, strideW) + 1;
  }

  /** The sizes for messages, as {@code kernel 3x3, stride 1x1, padding 1x1}. */
  @Override
  public String toString() {
    return "kernel "
        + kernelH
        + "x"
        + kernelW
        + ", stride "
        + strideH
        + "x"
        + strideW
        + ", padding "
        + padH
        + "x"
        + padW;
  }
}
