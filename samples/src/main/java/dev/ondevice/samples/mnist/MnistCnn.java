package dev.ondevice.samples.mnist;

import dev.ondevice.Device;
import dev.ondevice.Tensor;
import dev.ondevice.nn.Conv2d;
import dev.ondevice.nn.Layer;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.MaxPool2d;

/**
 * A small CNN: two 3x3 convolutions (32 and 64 channels, padding 1) each followed by ReLU and 2x2
 * max-pooling, then two linear layers (3136-128-10). Created directly on its device.
 */
public final class MnistCnn extends Layer {
  final Conv2d conv1;
  final Conv2d conv2;
  final MaxPool2d pool = new MaxPool2d(2);
  final Linear fc1;
  final Linear fc2;

  /** The model with PyTorch's default initialisation, created on {@code device}. */
  public MnistCnn(Device device) {
    conv1 = new Conv2d(1, 32, 3, 1, 1, true, device);
    conv2 = new Conv2d(32, 64, 3, 1, 1, true, device);
    fc1 = new Linear(64 * 7 * 7, 128, true, device);
    fc2 = new Linear(128, 10, true, device);
  }

  /** Logits {@code [N, 10]} of images {@code [N, 1, 28, 28]}. */
  @Override
  public Tensor forward(Tensor images) {
    Tensor x = pool.forward(conv1.forward(images).relu());
    x = pool.forward(conv2.forward(x).relu());
    x = fc1.forwardRelu(x.flatten(1, -1));
    return fc2.forward(x);
  }
}
