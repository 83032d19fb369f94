package gallery.correct;

import dev.ondevice.DType;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.annotations.Buffer;
import dev.ondevice.annotations.OnDevice;
import dev.ondevice.nn.Embedding;
import dev.ondevice.nn.Layer;
import dev.ondevice.nn.Linear;

/**
 * Tensors made in forward on the input's device (x.device(), *Like), 0-dim CPU scalars beside
 * device tensors, buffers that move with the model, and a table deliberately kept on the CPU.
 */
public final class CreatedOnTheRightDevice {
  private CreatedOnTheRightDevice() {}

  /** Masks and noise created where the input is. */
  static final class Regularised extends Layer {
    final Linear fc = new Linear(8, 8);
    @Buffer Tensor scale = Tensor.ones(Shape.of(8));

    @Override
    public Tensor forward(Tensor x) {
      Tensor mask = Tensor.ones(Shape.of(8), x.device());
      Tensor noise = Tensor.randnLike(x).mul(0.01);
      Tensor half = Tensor.scalar(0.5);
      return fc.forward(x.add(noise)).mul(mask).mul(scale).mul(half);
    }
  }

  /** Positions on the input's device; a vocabulary table kept on the CPU and used there. */
  static final class Positional extends Layer {
    final Embedding positions = new Embedding(16, 8);
    @OnDevice("cpu") Tensor vocabularySizes = Tensor.arange(16);

    @Override
    public Tensor forward(Tensor tokens) {
      Tensor index = Tensor.arange(0, 16, tokens.device());
      return tokens.add(positions.forward(index));
    }

    /** Host-side statistics on the CPU table. */
    long largestVocabulary() {
      Tensor sizes = vocabularySizes.add(Tensor.ones(Shape.of(16), DType.INT64, dev.ondevice.Device.cpu()));
      return sizes.max().itemAsLong();
    }
  }
}
