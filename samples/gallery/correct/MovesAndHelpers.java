package gallery.correct;

import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;

/** Moves whose results are kept: assigned, returned, passed on, or in both branches of an if. */
public final class MovesAndHelpers {
  private MovesAndHelpers() {}

  /** A helper that returns the moved tensor. */
  static Tensor onDevice(Tensor x, Device device) {
    return x.to(device);
  }

  /** The moved tensor passed straight on. */
  static Tensor scaled(Tensor x, Device device) {
    return scale(x.to(device), Tensor.ones(Shape.of(x.size(-1)), device));
  }

  private static Tensor scale(Tensor x, Tensor factors) {
    return x.mul(factors);
  }

  /** Moved in both branches, then used with a tensor on the device. */
  static Tensor branches(Tensor x, Device device, boolean half) {
    Tensor y;
    if (half) {
      y = x.div(2.0).to(device);
    } else {
      y = x.to(device);
    }
    return y.add(Tensor.zeros(Shape.of(x.size(0), x.size(1)), device));
  }

  /** The result of a helper used with a device tensor. */
  static Tensor combined(Tensor cpuInput, Device device) {
    Tensor weights = Tensor.randn(Shape.of(cpuInput.size(1), 2), device);
    return onDevice(cpuInput, device).matmul(weights);
  }

  /** A loop that reassigns the moved tensor. */
  static Tensor accumulate(Iterable<Tensor> chunks, Device device) {
    Tensor sum = Tensor.zeros(Shape.of(3), device);
    for (Tensor chunk : chunks) {
      chunk = chunk.to(device);
      sum = sum.add(chunk);
    }
    return sum;
  }
}
