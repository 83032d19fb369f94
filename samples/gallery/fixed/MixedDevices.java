package gallery.bugs;

import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import java.util.List;

/** Operands on different devices: the number one runtime error, here at compile time. */
public final class MixedDevices {
  private MixedDevices() {}

  /** A helper that mixes a device tensor with a CPU one: runs on a CPU laptop, fails on the GPU box. */
  static Tensor addNoise(Tensor x, Device device) {
    Tensor onDevice = x.to(device);
    Tensor noise = Tensor.randn(Shape.of(4, 4), device);
    return onDevice.add(noise);
  }

  /** Concatenating features from two places. */
  static Tensor features(Device device) {
    Tensor learned = Tensor.randn(Shape.of(2, 3), device);
    Tensor handcrafted = Tensor.ones(2, 3, device);
    return Tensor.cat(List.of(learned, handcrafted), 1);
  }

  /** Two fixed GPUs. */
  static Tensor crossGpu() {
    Tensor a = Tensor.randn(Shape.of(3, 3), Device.cuda(0));
    Tensor b = Tensor.randn(Shape.of(3, 3), Device.cuda(1));
    return a.matmul(b.to(Device.cuda(0)));
  }

  /** Weights from a device, features from another one chosen elsewhere: a possible mismatch. */
  static Tensor project(Device modelDevice, Device dataDevice) {
    Tensor weights = Tensor.randn(Shape.of(3, 3), modelDevice);
    Tensor data = Tensor.randn(Shape.of(5, 3), dataDevice);
    return data.matmul(weights.to(dataDevice));
  }
}
