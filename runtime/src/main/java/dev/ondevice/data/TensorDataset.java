package dev.ondevice.data;

import dev.ondevice.Autograd;
import dev.ondevice.Tensor;
import java.util.Objects;

/**
 * A dataset of two CPU tensors whose first dimension indexes the examples: PyTorch's {@code
 * TensorDataset(inputs, targets)}. Example {@code i} is {@code (inputs[i], targets[i])}, as views.
 * A batch is gathered with one {@code indexSelect} per tensor, not example by example.
 */
public final class TensorDataset implements Dataset {
  private final Tensor inputs;
  private final Tensor targets;

  /**
   * A dataset of {@code inputs[i]} and {@code targets[i]}.
   *
   * @throws IllegalArgumentException if a tensor is not on the CPU, is 0-dim, or if their first
   *     dimensions differ
   */
  public TensorDataset(Tensor inputs, Tensor targets) {
    Objects.requireNonNull(inputs, "TensorDataset: inputs is null");
    Objects.requireNonNull(targets, "TensorDataset: targets is null");
    check("inputs", inputs);
    check("targets", targets);
    if (inputs.size(0) != targets.size(0)) {
      throw new IllegalArgumentException("TensorDataset: inputs hold " + inputs.size(0) + " examples (shape "
          + inputs.shape() + ") but targets hold " + targets.size(0) + " (shape " + targets.shape()
          + "); the first dimensions must be equal");
    }
    this.inputs = inputs.detach();
    this.targets = targets.detach();
  }

  private static void check(String what, Tensor t) {
    if (!t.device().isCpu()) {
      throw new IllegalArgumentException("TensorDataset: " + what + " are on " + t.device()
          + "; a dataset holds CPU tensors (batches are moved to the device in the training loop)");
    }
    if (t.dim() == 0) {
      throw new IllegalArgumentException("TensorDataset: " + what
          + " is 0-dim; its first dimension must index the examples");
    }
  }

  /** All inputs, shape {@code [size(), ...]}. */
  public Tensor inputs() {
    return inputs;
  }

  /** All targets, shape {@code [size(), ...]}. */
  public Tensor targets() {
    return targets;
  }

  @Override
  public int size() {
    return (int) inputs.size(0);
  }

  @Override
  public Example get(int index) {
    Objects.checkIndex(index, size());
    return new Example(inputs.select(0, index), targets.select(0, index));
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
      return new Batch(inputs.indexSelect(0, index), targets.indexSelect(0, index));
    }
  }
}
