package dev.ondevice.nn;

import dev.ondevice.Tensor;

/** Softmax along one dimension: PyTorch's {@code nn.Softmax}, which must be given the dimension. */
public class Softmax extends Layer {
  private final int dim;

  /** Softmax along {@code dim} (negative counts from the end). */
  public Softmax(int dim) {
    this.dim = dim;
  }

  /** {@code x.softmax(dim)}. */
  @Override
  public Tensor forward(Tensor x) {
    return x.softmax(dim);
  }

  @Override
  protected String describe() {
    return "dim=" + dim;
  }
}
