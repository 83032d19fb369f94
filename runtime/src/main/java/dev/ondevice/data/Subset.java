package dev.ondevice.data;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The examples of a dataset at given indices, in that order: PyTorch's {@code Subset}. With {@link
 * #randomSplit}, the train/validation split of a dataset. A view: nothing is copied, and batches
 * are gathered by the underlying dataset at once.
 */
public final class Subset implements Dataset {
  private final Dataset dataset;
  private final int[] indices;

  /**
   * The examples of {@code dataset} at {@code indices}.
   *
   * @throws IndexOutOfBoundsException naming the first index outside {@code dataset}
   */
  public Subset(Dataset dataset, int... indices) {
    int n = dataset.size();
    for (int i : indices) {
      if (i < 0 || i >= n) {
        throw new IndexOutOfBoundsException(
            "Subset: index " + i + " is outside the dataset of " + n + " examples");
      }
    }
    this.dataset = dataset;
    this.indices = indices.clone();
  }

  /**
   * Splits {@code dataset} at random into subsets of the given sizes, which must add up to its
   * size: PyTorch's {@code random_split}. The permutation is drawn from {@code seed}, so the same
   * seed gives the same split in every run (and the same permutation as a {@link DataLoader}
   * shuffled with that seed gives in its first epoch).
   *
   * @throws IllegalArgumentException if a size is negative or the sizes do not add up to the
   *     dataset's size
   */
  public static List<Subset> randomSplit(Dataset dataset, long seed, int... sizes) {
    long total = 0;
    for (int s : sizes) {
      if (s < 0) {
        throw new IllegalArgumentException(
            "randomSplit: sizes must not be negative, got " + Arrays.toString(sizes));
      }
      total += s;
    }
    if (total != dataset.size()) {
      throw new IllegalArgumentException(
          "randomSplit: the sizes "
              + Arrays.toString(sizes)
              + " add up to "
              + total
              + ", but the dataset has "
              + dataset.size()
              + " examples");
    }
    int[] order = DataLoader.order(dataset.size(), true, seed, 0);
    List<Subset> out = new ArrayList<>(sizes.length);
    int from = 0;
    for (int s : sizes) {
      out.add(new Subset(dataset, Arrays.copyOfRange(order, from, from + s)));
      from += s;
    }
    return out;
  }

  /** The indices of this subset's examples in the underlying dataset. */
  public int[] indices() {
    return indices.clone();
  }

  @Override
  public int size() {
    return indices.length;
  }

  @Override
  public Example get(int index) {
    if (index < 0 || index >= indices.length) {
      throw new IndexOutOfBoundsException(
          "Subset: index " + index + " is outside the subset of " + indices.length + " examples");
    }
    return dataset.get(indices[index]);
  }

  @Override
  public Batch getBatch(int[] batchIndices) {
    int[] mapped = new int[batchIndices.length];
    for (int i = 0; i < batchIndices.length; i++) {
      int b = batchIndices[i];
      if (b < 0 || b >= indices.length) {
        throw new IndexOutOfBoundsException(
            "Subset: index " + b + " is outside the subset of " + indices.length + " examples");
      }
      mapped[i] = indices[b];
    }
    return dataset.getBatch(mapped);
  }
}
