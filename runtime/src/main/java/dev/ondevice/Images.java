package dev.ondevice;

import dev.ondevice.internal.backend.Window2d;

/**
 * Argument checks shared by the image ops: batched or unbatched inputs, and windows that fit them.
 */
final class Images {
  private Images() {}

  /**
   * {@code input} as a batch {@code [N,C,H,W]}: itself, or an unbatched {@code [C,H,W]} image with
   * a batch dimension of 1 added.
   *
   * @throws IllegalArgumentException unless the input is floating-point with 3 or 4 dimensions
   */
  static Tensor asBatch(String op, Tensor input) {
    if (input.dim() != 3 && input.dim() != 4) {
      throw new IllegalArgumentException(
          op + ": expected a 3-d [C, H, W] or 4-d [N, C, H, W] input, got shape " + input.shape());
    }
    Checks.floating(op, "input", input);
    return input.dim() == 4 ? input : input.unsqueeze(0);
  }

  /** The result for the original input: without the batch dimension {@link #asBatch} added. */
  static Tensor likeInput(Tensor input, Tensor batchResult) {
    return input.dim() == 4 ? batchResult : batchResult.squeeze(0);
  }

  /** Throws unless the window fits the padded plane of {@code batch} at least once. */
  static void fits(String op, Tensor batch, Window2d window) {
    int h = batch.data.size(2);
    int w = batch.data.size(3);
    if (window.outHeight(h) < 1 || window.outWidth(w) < 1) {
      throw new IllegalArgumentException(
          op
              + ": the input of shape "
              + batch.shape()
              + " (padded to "
              + (h + 2 * window.padH())
              + "x"
              + (w + 2 * window.padW())
              + ") is smaller than the "
              + window.kernelH()
              + "x"
              + window.kernelW()
              + " kernel");
    }
  }

  /**
   * Throws unless the padding is at most half the kernel, so that no window lies in the padding
   * alone.
   */
  static void padAtMostHalfKernel(String op, Window2d window) {
    if (2 * window.padH() > window.kernelH() || 2 * window.padW() > window.kernelW()) {
      throw new IllegalArgumentException(
          op
              + ": padding "
              + window.padH()
              + "x"
              + window.padW()
              + " must be at most half the kernel size "
              + window.kernelH()
              + "x"
              + window.kernelW());
    }
  }

  /** A square window, with PyTorch's argument names in the message when a size is invalid. */
  static Window2d window(String op, int kernel, int stride, int padding) {
    return window(op, kernel, kernel, stride, padding);
  }

  /** A window of the given kernel with a square stride and padding. */
  static Window2d window(String op, int kernelH, int kernelW, int stride, int padding) {
    if (kernelH < 1 || kernelW < 1 || stride < 1 || padding < 0) {
      throw new IllegalArgumentException(
          op
              + ": kernel size and stride must be positive and padding"
              + " non-negative, got kernel "
              + kernelH
              + "x"
              + kernelW
              + ", stride "
              + stride
              + ", padding "
              + padding);
    }
    return new Window2d(kernelH, kernelW, stride, stride, padding, padding);
  }
}
