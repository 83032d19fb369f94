package dev.ondevice.nn;

import dev.ondevice.Convolution;
import dev.ondevice.Device;
import dev.ondevice.Parameter;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;

/**
 * A 2-d convolution over {@code [N, C, H, W]} (or unbatched {@code [C, H, W]}) inputs: PyTorch's
 * {@code nn.Conv2d} with a square kernel, one stride and one zero padding for both dimensions, no
 * dilation or groups. The weight is {@code [out, in, k, k]}; weight and bias are initialised as
 * PyTorch does, uniform on {@code [-1/sqrt(fanIn), 1/sqrt(fanIn)]} with {@code fanIn = in * k * k}
 * (kaiming-uniform with {@code a = sqrt(5)}). See {@link Convolution#conv2d} for the computation.
 */
public class Conv2d extends Layer {
  final Parameter weight;
  final Parameter bias;
  private final int stride;
  private final int padding;

  /** A layer with stride 1, no padding and a bias, created on the CPU. */
  public Conv2d(int inChannels, int outChannels, int kernel) {
    this(inChannels, outChannels, kernel, 1, 0, true, Device.cpu());
  }

  /** A layer created on the CPU. */
  public Conv2d(
      int inChannels, int outChannels, int kernel, int stride, int padding, boolean bias) {
    this(inChannels, outChannels, kernel, stride, padding, bias, Device.cpu());
  }

  /**
   * A layer created directly on {@code device}.
   *
   * @throws IllegalArgumentException if a channel count, the kernel or the stride is not positive,
   *     or the padding is negative
   */
  public Conv2d(
      int inChannels,
      int outChannels,
      int kernel,
      int stride,
      int padding,
      boolean bias,
      Device device) {
    if (inChannels <= 0 || outChannels <= 0 || kernel <= 0 || stride <= 0 || padding < 0) {
      throw new IllegalArgumentException(
          "Conv2d: channel counts, kernel and stride must be positive and padding"
              + " non-negative, got in="
              + inChannels
              + ", out="
              + outChannels
              + ", kernel="
              + kernel
              + ", stride="
              + stride
              + ", padding="
              + padding);
    }
    double bound = 1 / Math.sqrt((double) inChannels * kernel * kernel);
    this.weight =
        new Parameter(
            Init.uniform(Shape.of(outChannels, inChannels, kernel, kernel), bound, device));
    this.bias = bias ? new Parameter(Init.uniform(Shape.of(outChannels), bound, device)) : null;
    this.stride = stride;
    this.padding = padding;
  }

  /** The weight, shape {@code [out, in, k, k]}. */
  public Parameter weight() {
    return weight;
  }

  /** The bias, shape {@code [out]}, or null. */
  public Parameter bias() {
    return bias;
  }

  /** Convolves {@code x} ({@code [N, in, H, W]} or {@code [in, H, W]}) on its device. */
  @Override
  public Tensor forward(Tensor x) {
    return Convolution.conv2d(x, weight, bias, stride, padding);
  }

  @Override
  protected String describe() {
    return weight.shape().get(1)
        + ", "
        + weight.shape().get(0)
        + ", kernel_size="
        + weight.shape().get(2)
        + ", stride="
        + stride
        + ", padding="
        + padding
        + ", bias="
        + (bias != null);
  }
}
