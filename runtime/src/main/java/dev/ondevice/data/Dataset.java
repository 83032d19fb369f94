package dev.ondevice.data;

import dev.ondevice.Tensor;
import java.util.ArrayList;
import java.util.List;

/**
 * A finite, indexable collection of examples: PyTorch's map-style {@code Dataset}. Examples are
 * CPU tensors; a {@link DataLoader} groups them into batches, and the training loop moves each
 * batch to its device.
 *
 * <p>Implementations must allow {@link #get} and {@link #getBatch} to be called from a {@link
 * DataLoader}'s prefetch thread while the training thread runs.
 */
public interface Dataset {
  /** The number of examples. */
  int size();

  /**
   * The example at {@code index}, {@code 0 <= index < size()}.
   *
   * @throws IndexOutOfBoundsException for an index outside the dataset
   */
  Example get(int index);

  /**
   * The examples at {@code indices}, stacked along a new first dimension: inputs of shape {@code
   * [indices.length, ...input shape]} and targets likewise. This default implementation calls
   * {@link #get} once per index and stacks; datasets that can gather a batch at once (as {@link
   * TensorDataset} does) override it.
   *
   * @throws IllegalArgumentException if {@code indices} is empty, or if the examples' inputs (or
   *     targets) differ in shape or dtype
   */
  default Batch getBatch(int[] indices) {
    if (indices.length == 0) {
      throw new IllegalArgumentException("getBatch: a batch needs at least one index");
    }
    List<Tensor> inputs = new ArrayList<>(indices.length);
    List<Tensor> targets = new ArrayList<>(indices.length);
    for (int i : indices) {
      Example e = get(i);
      inputs.add(e.input());
      targets.add(e.target());
    }
    return new Batch(Tensor.stack(inputs, 0), Tensor.stack(targets, 0));
  }
}
