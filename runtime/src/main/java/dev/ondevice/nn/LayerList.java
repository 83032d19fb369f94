package dev.ondevice.nn;

import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * A list of layers registered with their model, for a forward pass you write yourself: PyTorch's
 * {@code nn.ModuleList}. The layers move, train and save with the model that holds the list, named
 * {@code layers.0}, {@code layers.1}, ... under the list's field.
 *
 * <pre>{@code
 * class Deep extends Model {
 *   final LayerList blocks = new LayerList(new Linear(64, 64), new Linear(64, 64));
 *   Tensor forward(Tensor x) {
 *     for (Layer block : blocks) {
 *       x = x.add(block.forward(x));
 *     }
 *     return x;
 *   }
 * }
 * }</pre>
 */
public class LayerList extends Model implements Iterable<Layer> {
  final List<Layer> layers;

  /** The given layers. */
  public LayerList(Layer... layers) {
    this.layers = List.of(layers);
  }

  /** The given layers, copied from {@code layers} (built in a loop, say). */
  public LayerList(List<? extends Layer> layers) {
    this.layers = List.copyOf(layers);
  }

  /** The layer at {@code index}. */
  public Layer get(int index) {
    return layers.get(index);
  }

  /** The number of layers. */
  public int size() {
    return layers.size();
  }

  /** The layers in order. */
  @Override
  public Iterator<Layer> iterator() {
    return layers.iterator();
  }

  @Override
  Map<String, Model> printedChildren() {
    return withoutPrefix(namedChildren(), "layers.");
  }
}
