package dev.ondevice.nn;

import dev.ondevice.Tensor;

/**
 * Flattens dimensions {@code startDim..endDim} (inclusive) into one: PyTorch's {@code nn.Flatten},
 * by default everything after the batch dimension.
 */
public class Flatten extends Layer {
  private final int startDim;
  private final int endDim;

  /** Flattens dimensions 1 to the last. */
  public Flatten() {
    this(1, -1);
  }

  /** Flattens dimensions {@code startDim..endDim}; negative values count from the end. */
  public Flatten(int startDim, int endDim) {
    this.startDim = startDim;
    this.endDim = endDim;
  }

  /** {@code x.flatten(startDim, endDim)}: a view when the layout allows. */
  @Override
  public Tensor forward(Tensor x) {
    return x.flatten(startDim, endDim);
  }

  @Override
  protected String describe() {
    return "start_dim=" + startDim + ", end_dim=" + endDim;
  }
}
