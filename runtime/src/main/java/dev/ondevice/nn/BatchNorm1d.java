package dev.ondevice.nn;

import dev.ondevice.Device;

/**
 * Batch normalisation of {@code [N, C]} or {@code [N, C, L]} inputs over N (and L) per channel:
 * PyTorch's {@code nn.BatchNorm1d}. See {@link BatchNorm} for the statistics and buffers.
 */
public class BatchNorm1d extends BatchNorm {
  /** A layer with PyTorch's defaults (eps 1e-5, momentum 0.1, affine), on the CPU. */
  public BatchNorm1d(int numFeatures) {
    this(numFeatures, Device.cpu());
  }

  /** A layer with PyTorch's defaults created directly on {@code device}. */
  public BatchNorm1d(int numFeatures, Device device) {
    this(numFeatures, 1e-5, 0.1, true, device);
  }

  /**
   * A layer created on {@code device}.
   *
   * @param eps added to the variance before the square root
   * @param momentum the weight of each batch in the running statistics
   * @param affine whether to learn a per-channel weight and bias
   */
  public BatchNorm1d(int numFeatures, double eps, double momentum, boolean affine, Device device) {
    super(
        "BatchNorm1d",
        2,
        3,
        "2-d [N, C] or 3-d [N, C, L]",
        numFeatures,
        eps,
        momentum,
        affine,
        device);
  }
}
