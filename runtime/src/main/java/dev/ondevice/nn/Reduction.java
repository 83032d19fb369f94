package dev.ondevice.nn;

import dev.ondevice.Tensor;

/** How a loss combines the losses of the elements: PyTorch's {@code reduction} argument. */
public enum Reduction {
  /** The per-element losses, unreduced. */
  NONE,
  /** Their mean: a 0-dim tensor (PyTorch's default). */
  MEAN,
  /** Their sum: a 0-dim tensor. */
  SUM;

  /** Applies this reduction to per-element losses. */
  Tensor apply(Tensor losses) {
    return switch (this) {
      case MEAN -> losses.mean();
      case SUM -> losses.sum();
      case NONE -> losses;
    };
  }
}
