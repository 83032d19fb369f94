package dev.ondevice.nn;

import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Generator;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;

/** PyTorch's default initialisations of layer parameters, drawn directly on the layer's device. */
final class Init {
  private Init() {}

  /**
   * float32 values uniform on {@code [-bound, bound)}: with {@code bound = 1 / sqrt(fanIn)}, what
   * PyTorch's Linear and Conv2d use for weights (kaiming-uniform with {@code a = sqrt(5)}) and
   * biases.
   */
  static Tensor uniform(Shape shape, double bound, Device device) {
    return Tensor.rand(shape, DType.FLOAT32, device, Generator.defaultGenerator())
        .mul(2 * bound)
        .sub(bound);
  }

  /** float32 standard-normal values, as PyTorch initialises Embedding. */
  static Tensor normal(Shape shape, Device device) {
    return Tensor.randn(shape, DType.FLOAT32, device, Generator.defaultGenerator());
  }
}
