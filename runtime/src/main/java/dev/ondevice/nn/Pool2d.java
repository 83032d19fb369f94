package dev.ondevice.nn;

/**
 * A pooling layer over square windows, PyTorch's {@code _MaxPoolNd} and {@code _AvgPoolNd} in one:
 * the window, its checks and its description, shared by {@link MaxPool2d} and {@link AvgPool2d},
 * which differ only in the function they apply to each window.
 */
abstract class Pool2d extends Layer {
  final int kernel;
  final int stride;
  final int padding;

  /**
   * Windows of {@code kernel x kernel} every {@code stride}, over the input padded by {@code
   * padding}; {@code name} names the layer in the message.
   *
   * @throws IllegalArgumentException if the kernel or stride is not positive, or the padding is
   *     negative or more than half the kernel
   */
  Pool2d(String name, int kernel, int stride, int padding) {
    if (kernel < 1 || stride < 1 || padding < 0 || 2 * padding > kernel) {
      throw new IllegalArgumentException(
          name
              + ": kernel and stride must be positive and padding between 0 and half"
              + " the kernel, got kernel="
              + kernel
              + ", stride="
              + stride
              + ", padding="
              + padding);
    }
    this.kernel = kernel;
    this.stride = stride;
    this.padding = padding;
  }

  @Override
  protected String describe() {
    return "kernel_size=" + kernel + ", stride=" + stride + ", padding=" + padding;
  }
}
