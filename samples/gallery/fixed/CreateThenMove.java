package gallery.bugs;

import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.annotations.Buffer;
import dev.ondevice.nn.Layer;
import dev.ondevice.nn.Linear;

/** The seed's pattern B: created on the CPU, then moved. Works, wastes an allocation and a copy. */
public final class CreateThenMove {
  private CreateThenMove() {}

  /** A benchmark matrix. */
  static Tensor matrix(Device device) {
    return Tensor.randn(1000, 1000, device);
  }

  /** An initial state for a recurrent loop. */
  static Tensor initialState(Device device, int batch) {
    return Tensor.zeros(Shape.of(batch, 64), device);
  }

  /** A buffer initialised on the CPU in a constructor that knows the device. */
  static final class Scaled extends Layer {
    final Linear fc;
    @Buffer Tensor scale;

    Scaled(Device device) {
      fc = new Linear(4, 4, true, device);
      scale = Tensor.ones(Shape.of(4), device);
    }

    @Override
    public Tensor forward(Tensor x) {
      return fc.forward(x).mul(scale);
    }
  }
}
