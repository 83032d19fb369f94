package dev.ondevice.nn;

import dev.ondevice.Device;

/**
 * Batch normalisation of {@code [N, C, H, W]} inputs over N, H and W per channel: PyTorch's {@code
 * nn.BatchNorm2d}. See {@link BatchNorm} for the statistics and buffers.
 */
public class BatchNorm2d extends BatchNorm {
  /** A layer with PyTorch's defaults (eps 1e-5, momentum 0.1, affine), on the CPU. */
  public BatchNorm2d(int numFeatures) {
    this(numFeatures, Device.cpu());
  }

  /** A layer with PyTorch's defaults created directly on {@code device}. */
  public BatchNorm2d(int numFeatures, Device device) {
    this(numFeatures, 1e-5, 0.1, true, device);
  }

  /**
   * A layer created on {@code device}.
   *
   * @param eps added to the variance before the square root
   * @param momentum the weight of each batch in the running statistics
   * @param affine whether to learn a per-channel weight and bias
   */
  public BatchNorm2d(int numFeatures, double eps, double momentum, boolean affine, Device device) {
    super("BatchNorm2d", 4, 4, "4-d [N, C, H, W]", numFeatures, eps, momentum, affine, device);
  }
}
