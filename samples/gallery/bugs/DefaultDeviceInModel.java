package gallery.bugs;

import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.nn.Embedding;
import dev.ondevice.nn.Layer;
import dev.ondevice.nn.Linear;

/** Tensors created in forward on the default device: fine on the laptop, broken on the GPU. */
public final class DefaultDeviceInModel {
  private DefaultDeviceInModel() {}

  /** A mask built on the CPU inside forward. */
  static final class Masked extends Layer {
    final Linear fc = new Linear(6, 6);

    @Override
    public Tensor forward(Tensor x) {
      Tensor mask = Tensor.ones(Shape.of(6)); // expect: DefaultDeviceInModel
      return fc.forward(x).mul(mask);
    }
  }

  /** Positions for an embedding, made on the CPU. */
  static final class Positional extends Layer {
    final Embedding positions;

    Positional(Device device) {
      positions = new Embedding(16, 8, device);
    }

    @Override
    public Tensor forward(Tensor tokens) {
      Tensor index = Tensor.arange(16); // expect: DefaultDeviceInModel
      return tokens.add(positions.forward(index));
    }
  }

  /** Noise for regularisation, scaled on the CPU before it meets the activations. */
  static final class Noisy extends Layer {
    final Linear fc = new Linear(8, 8);

    @Override
    public Tensor forward(Tensor x) {
      Tensor noise = Tensor.randn(8, 8).mul(0.1); // expect: DefaultDeviceInModel
      return fc.forward(x).add(noise);
    }
  }

  /** A recurrent cell whose first hidden state is made on the CPU: PyTorch's init_hidden bug. */
  static final class Recurrent extends Layer {
    final Linear input = new Linear(4, 8);
    final Linear hidden = new Linear(8, 8);

    Tensor initHidden(int batch) {
      return Tensor.zeros(batch, 8); // expect: DefaultDeviceInModel
    }

    Tensor step(Tensor x, Tensor h) {
      return input.forward(x).add(hidden.forward(h)).tanh();
    }

    @Override
    public Tensor forward(Tensor x) {
      return step(x, initHidden((int) x.size(0)));
    }
  }

  /** A cell whose hidden state, when the caller gives none, is made on the CPU: "if hidden is None". */
  static final class DefaultHidden extends Layer {
    final Linear input = new Linear(4, 8);
    final Linear hidden = new Linear(8, 8);

    Tensor step(Tensor x, Tensor h) {
      if (h == null) {
        h = Tensor.zeros(x.size(0), 8); // expect: DefaultDeviceInModel
      }
      return input.forward(x).add(hidden.forward(h)).tanh();
    }

    @Override
    public Tensor forward(Tensor x) {
      return step(x, null);
    }
  }
}
