package dev.ondevice.nn;

import dev.ondevice.Tensor;

/** The hyperbolic tangent elementwise: PyTorch's {@code nn.Tanh}. */
public class Tanh extends Layer {
  /** The activation. */
  public Tanh() {}

  /** {@code x.tanh()}. */
  @Override
  public Tensor forward(Tensor x) {
    return x.tanh();
  }
}
