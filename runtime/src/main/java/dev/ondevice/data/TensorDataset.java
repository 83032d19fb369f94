package dev.ondevice.data;

import dev.ondevice.Autograd;
import dev.ondevice.Tensor;
import dev.ondevice.annotations.OnDevice;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * A dataset of CPU tensors whose first dimension indexes the examples: PyTorch's {@code
 * TensorDataset(*tensors)}. Usually two, {@code TensorDataset(inputs, targets)}: example {@code i}
 * is {@code (inputs[i], targets[i])}, as views. It may hold one tensor (inputs only, for a model
 * that needs no targets) or more (inputs, targets, masks, lengths), each example and each batch
 * then holding them in the same order. A batch is gathered with one {@code indexSelect} per tensor,
 * not example by example.
 */
public final class TensorDataset implements Dataset {
  private final List<Tensor> tensors;

  /**
   * A dataset of {@code tensors[0][i]}, {@code tensors[1][i]}, ...: the inputs first, then the
   * targets, then any others. Their autograd history is dropped ({@code detach}).
   *
   * @throws IllegalArgumentException if there are no tensors, if a tensor is not on the CPU or is
   *     0-dim, or if their first dimensions differ
   * @throws NullPointerException if a tensor is null
   */
  public TensorDataset(@OnDevice("cpu") Tensor... tensors) {
    Objects.requireNonNull(tensors, "TensorDataset: the array of tensors is null");
    List<Tensor> checked =
        Batch.checked(
            "TensorDataset",
            Arrays.asList(tensors),
            "a dataset holds CPU tensors (batches are moved to the device in the training loop)");
    List<Tensor> detached = new ArrayList<>(checked.size());
    for (Tensor t : checked) {
      detached.add(t.detach());
    }
    this.tensors = List.copyOf(detached);
  }

  /** All inputs, shape {@code [size(), ...]}: the first tensor. */
  @OnDevice("cpu")
  public Tensor inputs() {
    return tensors.get(0);
  }

  /**
   * All targets, shape {@code [size(), ...]}: the second tensor.
   *
   * @throws IllegalStateException if the dataset holds one tensor
   */
  @OnDevice("cpu")
  public Tensor targets() {
    if (tensors.size() < 2) {
      throw new IllegalStateException(
          "This dataset holds inputs only; give it the targets as its second tensor");
    }
    return tensors.get(1);
  }

  /** The tensors of the dataset, in the order they were given (an unmodifiable list). */
  public List<Tensor> tensors() {
    return tensors;
  }

  @Override
  public int size() {
    return (int) tensors.get(0).size(0);
  }

  @Override
  public Example get(int index) {
    Objects.checkIndex(index, size());
    List<Tensor> example = new ArrayList<>(tensors.size());
    for (Tensor t : tensors) {
      example.add(t.select(0, index));
    }
    return new Example(example);
  }

  /** The examples at {@code indices}, gathered with one {@code indexSelect} per tensor. */
  @Override
  public Batch getBatch(int[] indices) {
    if (indices.length == 0) {
      throw new IllegalArgumentException("getBatch: a batch needs at least one index");
    }
    long[] idx = new long[indices.length];
    for (int i = 0; i < indices.length; i++) {
      idx[i] = Objects.checkIndex(indices[i], size());
    }
    Tensor index = Tensor.of(idx);
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      List<Tensor> batch = new ArrayList<>(tensors.size());
      for (Tensor t : tensors) {
        batch.add(t.indexSelect(0, index));
      }
      return new Batch(batch);
    }
  }
}
