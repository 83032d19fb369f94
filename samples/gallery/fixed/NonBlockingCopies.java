package gallery.bugs;

import dev.ondevice.Cuda;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.nn.Layer;

/** non_blocking without pinned memory, and reading a non-blocking copy to the host too early. */
public final class NonBlockingCopies {
  private NonBlockingCopies() {}

  /** Pageable memory cannot be copied asynchronously: the flag buys nothing. */
  static Tensor upload(float[] pixels, Device device) {
    Tensor host = Tensor.of(pixels, Shape.of(pixels.length), Device.cpu());
    return host.to(device, false);
  }

  /** The predictions are read before the copy is known to be done. */
  static float[] predictions(Layer model, Tensor x, Device device) {
    Tensor host = model.forward(x.to(device)).to(Device.cpu(), true);
    Cuda.synchronize();
    return host.toFloatArray();
  }

  /** The same, with the host tensor used in a CPU op. */
  static Tensor clipped(Layer model, Tensor x, Device device) {
    Tensor host = model.forward(x.to(device)).softmax(1).to(Device.cpu(), true);
    Cuda.synchronize();
    return host.clamp(0.01, 0.99);
  }

  /** Correct: synchronise first. */
  static float[] afterSync(Layer model, Tensor x, Device device) {
    Tensor host = model.forward(x.to(device)).to(Device.cpu(), true);
    Cuda.synchronize();
    return host.toFloatArray();
  }
}
