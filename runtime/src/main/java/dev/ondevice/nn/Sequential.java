package dev.ondevice.nn;

import dev.ondevice.Tensor;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Layers applied one after the other: PyTorch's {@code nn.Sequential}. Its layers are submodules
 * named {@code layers.0}, {@code layers.1}, ... in the state dict (PyTorch names them {@code 0},
 * {@code 1}, ...).
 *
 * <pre>{@code
 * Sequential net = new Sequential(new Linear(784, 128), new ReLU(), new Linear(128, 10));
 * Tensor logits = net.forward(x);
 * }</pre>
 */
public class Sequential extends Layer {
  final List<Layer> layers;

  /**
   * The layers, in the order they are applied.
   *
   * @throws NullPointerException naming the layer, if one is null
   */
  public Sequential(Layer... layers) {
    Objects.requireNonNull(layers, "Sequential: the array of layers is null");
    for (int i = 0; i < layers.length; i++) {
      if (layers[i] == null) {
        throw new NullPointerException(
            "Sequential: layer " + i + " of " + layers.length + " is null");
      }
    }
    this.layers = List.of(layers);
  }

  /** The layer at {@code index}. */
  public Layer get(int index) {
    return layers.get(index);
  }

  /** The number of layers. */
  public int size() {
    return layers.size();
  }

  /**
   * Applies each layer to the output of the one before. A {@link Linear} followed by a {@link ReLU}
   * (those classes themselves, not subclasses, whose {@code forward} may differ) run as one op,
   * {@link Linear#forwardRelu}: the same values and gradients, with the relu in the matrix
   * product's output pass.
   */
  @Override
  public Tensor forward(Tensor x) {
    Tensor y = x;
    for (int i = 0; i < layers.size(); i++) {
      Layer layer = layers.get(i);
      if (layer.getClass() == Linear.class
          && i + 1 < layers.size()
          && layers.get(i + 1).getClass() == ReLU.class) {
        y = ((Linear) layer).forwardRelu(y);
        i++;
      } else {
        y = layer.forward(y);
      }
    }
    return y;
  }

  @Override
  Map<String, Model> printedChildren() {
    return withoutPrefix(namedChildren(), "layers.");
  }
}
