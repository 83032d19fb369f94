package dev.ondevice.nn;

import dev.ondevice.Tensor;

/**
 * The logarithm of the softmax along one dimension, computed stably: PyTorch's {@code
 * nn.LogSoftmax}. Followed by {@link NllLoss} it is {@link CrossEntropyLoss}.
 */
public class LogSoftmax extends Layer {
  private final int dim;

  /** Log-softmax along {@code dim} (negative counts from the end). */
  public LogSoftmax(int dim) {
    this.dim = dim;
  }

  /** {@code x.logSoftmax(dim)}. */
  @Override
  public Tensor forward(Tensor x) {
    return x.logSoftmax(dim);
  }

  @Override
  protected String describe() {
    return "dim=" + dim;
  }
}
