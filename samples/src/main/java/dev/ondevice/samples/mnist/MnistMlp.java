package dev.ondevice.samples.mnist;

import dev.ondevice.Device;
import dev.ondevice.Tensor;
import dev.ondevice.nn.Layer;
import dev.ondevice.nn.Linear;

/**
 * The MLP 784-512-256-10 with ReLU, created directly on its device. Each hidden layer and its ReLU
 * run as one op ({@link Linear#forwardRelu}), the relu in the matrix product's output pass.
 */
public final class MnistMlp extends Layer {
  final Linear fc1;
  final Linear fc2;
  final Linear fc3;

  /** The model with PyTorch's default initialisation, created on {@code device}. */
  public MnistMlp(Device device) {
    fc1 = new Linear(784, 512, true, device);
    fc2 = new Linear(512, 256, true, device);
    fc3 = new Linear(256, 10, true, device);
  }

  /** Logits {@code [N, 10]} of images {@code [N, 1, 28, 28]}. */
  @Override
  public Tensor forward(Tensor images) {
    Tensor x = images.flatten(1, -1);
    x = fc1.forwardRelu(x);
    x = fc2.forwardRelu(x);
    return fc3.forward(x);
  }
}
