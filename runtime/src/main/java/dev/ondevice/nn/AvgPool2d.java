package dev.ondevice.nn;

import dev.ondevice.Pooling;
import dev.ondevice.Tensor;

/**
 * Average pooling over square windows: PyTorch's {@code nn.AvgPool2d} (stride defaults to the
 * kernel size; floor rounding; padding zeros count in the mean). See {@link Pooling#avgPool2d}.
 */
public class AvgPool2d extends Pool2d {
  /** Non-overlapping windows: stride {@code kernel}, no padding. */
  public AvgPool2d(int kernel) {
    this(kernel, kernel, 0);
  }

  /**
   * Windows of {@code kernel x kernel} every {@code stride}, over the input padded by {@code
   * padding}.
   *
   * @throws IllegalArgumentException if the kernel or stride is not positive, or the padding is
   *     negative or more than half the kernel
   */
  public AvgPool2d(int kernel, int stride, int padding) {
    super("AvgPool2d", kernel, stride, padding);
  }

  /** The window means of {@code x} ({@code [N, C, H, W]} or {@code [C, H, W]}). */
  @Override
  public Tensor forward(Tensor x) {
    return Pooling.avgPool2d(x, kernel, stride, padding);
  }
}
