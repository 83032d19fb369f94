package dev.ondevice.nn;

import dev.ondevice.Tensor;

/** {@code max(x, 0)} elementwise: PyTorch's {@code nn.ReLU}. */
public class ReLU extends Layer {
  /** The activation. */
  public ReLU() {}

  /** {@code x.relu()}. */
  @Override
  public Tensor forward(Tensor x) {
    return x.relu();
  }
}
