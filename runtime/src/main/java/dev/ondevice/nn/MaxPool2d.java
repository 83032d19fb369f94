package dev.ondevice.nn;

import dev.ondevice.Pooling;
import dev.ondevice.Tensor;

/**
 * Max pooling over square windows: PyTorch's {@code nn.MaxPool2d} (stride defaults to the kernel
 * size; no dilation, floor rounding, no indices returned). See {@link Pooling#maxPool2d}.
 */
public class MaxPool2d extends Pool2d {
  /** Non-overlapping windows: stride {@code kernel}, no padding. */
  public MaxPool2d(int kernel) {
    this(kernel, kernel, 0);
  }

  /**
   * Windows of {@code kernel x kernel} every {@code stride}, over the input padded by {@code
   * padding}.
   *
   * @throws IllegalArgumentException if the kernel or stride is not positive, or the padding is
   *     negative or more than half the kernel
   */
  public MaxPool2d(int kernel, int stride, int padding) {
    super("MaxPool2d", kernel, stride, padding);
  }

  /** The window maxima of {@code x} ({@code [N, C, H, W]} or {@code [C, H, W]}). */
  @Override
  public Tensor forward(Tensor x) {
    return Pooling.maxPool2d(x, kernel, stride, padding);
  }
}
