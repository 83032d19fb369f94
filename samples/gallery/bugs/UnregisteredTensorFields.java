package gallery.bugs;

import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.nn.Layer;
import dev.ondevice.nn.Linear;

/**
 * The seed's register_buffer bug: a plain tensor attribute of a model is not moved by
 * model.to(). Here it is a compile error of the processor, on the field.
 */
public final class UnregisteredTensorFields {
  private UnregisteredTensorFields() {}

  /** Class weights kept in a plain field. */
  static final class Weighted extends Layer {
    final Linear fc = new Linear(10, 10);
    Tensor classWeights = Tensor.ones(Shape.of(10)); // expect-error: Tensor field classWeights is not registered

    @Override
    public Tensor forward(Tensor x) {
      return fc.forward(x).mul(classWeights);
    }
  }

  /** A precomputed table, final. */
  static final class Table extends Layer {
    final Tensor positions = Tensor.arange(16); // expect-error: Tensor field positions is not registered

    @Override
    public Tensor forward(Tensor x) {
      return x;
    }
  }
}
