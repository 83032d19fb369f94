package dev.ondevice.nn;

import dev.ondevice.Tensor;

/** {@code 1 / (1 + exp(-x))} elementwise: PyTorch's {@code nn.Sigmoid}. */
public class Sigmoid extends Layer {
  /** The activation. */
  public Sigmoid() {}

  /** {@code x.sigmoid()}. */
  @Override
  public Tensor forward(Tensor x) {
    return x.sigmoid();
  }
}
