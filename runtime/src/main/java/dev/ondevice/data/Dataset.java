package dev.ondevice.data;

import dev.ondevice.Tensor;
import java.util.ArrayList;
import java.util.List;

/**
 * A finite, indexable collection of examples: PyTorch's map-style {@code Dataset}. Examples are CPU
 * tensors; a {@link DataLoader} groups them into batches, and the training loop moves each batch to
 * its device.
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
   * The examples at {@code indices}, each of their tensors stacked along a new first dimension:
   * inputs of shape {@code [indices.length, ...input shape]}, targets likewise, and so on for each
   * tensor of the examples. This default implementation calls {@link #get} once per index and
   * stacks; datasets that can gather a batch at once (as {@link TensorDataset} does) override it.
   *
   * @throws IllegalArgumentException if {@code indices} is empty, if the examples hold different
   *     numbers of tensors, or if their tensors at one position differ in shape or dtype
   */
  default Batch getBatch(int[] indices) {
    if (indices.length == 0) {
      throw new IllegalArgumentException("getBatch: a batch needs at least one index");
    }
    List<List<Tensor>> columns = new ArrayList<>();
    for (int i : indices) {
      Example e = get(i);
      if (columns.isEmpty()) {
        for (int k = 0; k < e.tensors().size(); k++) {
          columns.add(new ArrayList<>(indices.length));
        }
      } else if (e.tensors().size() != columns.size()) {
        throw new IllegalArgumentException(
            "getBatch: example "
                + i
                + " holds "
                + e.tensors().size()
                + " tensors but example "
                + indices[0]
                + " holds "
                + columns.size()
                + "; every example of a dataset must hold the same tensors");
      }
      for (int k = 0; k < columns.size(); k++) {
        columns.get(k).add(e.tensor(k));
      }
    }
    List<Tensor> stacked = new ArrayList<>(columns.size());
    for (List<Tensor> column : columns) {
      stacked.add(Tensor.stack(column, 0));
    }
    return new Batch(stacked);
  }
}
