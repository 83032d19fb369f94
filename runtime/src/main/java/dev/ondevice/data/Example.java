package dev.ondevice.data;

import dev.ondevice.Tensor;
import dev.ondevice.annotations.OnDevice;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * One example of a {@link Dataset}: an input tensor and its target, both on the CPU, and any other
 * tensors the dataset holds (a mask, a length); or an input alone. Its tensors are declared
 * {@code @OnDevice("cpu")}, as the constructor requires, so the device analysis takes them to be on
 * the CPU.
 */
public final class Example {
  private final List<Tensor> tensors;

  /**
   * An example of {@code input} and {@code target}.
   *
   * @throws NullPointerException if either is null
   * @throws IllegalArgumentException if either is not on the CPU
   */
  public Example(@OnDevice("cpu") Tensor input, @OnDevice("cpu") Tensor target) {
    this(
        List.of(
            Objects.requireNonNull(input, "Example: input is null"),
            Objects.requireNonNull(target, "Example: target is null")));
  }

  /**
   * An example of {@code tensors}: the input first, then the target, then any others.
   *
   * @throws IllegalArgumentException if there are none, or one is not on the CPU
   * @throws NullPointerException if the list or one of its tensors is null
   */
  public Example(List<Tensor> tensors) {
    Objects.requireNonNull(tensors, "Example: the list of tensors is null");
    if (tensors.isEmpty()) {
      throw new IllegalArgumentException("Example needs at least one tensor (the input)");
    }
    List<Tensor> copy = new ArrayList<>(tensors.size());
    for (int i = 0; i < tensors.size(); i++) {
      Tensor t = Objects.requireNonNull(tensors.get(i), "Example: tensor " + i + " is null");
      if (!t.device().isCpu()) {
        throw new IllegalArgumentException(
            "Example: tensor "
                + i
                + " is on "
                + t.device()
                + "; a dataset gives"
                + " examples on the CPU, and the training loop moves each batch to its device");
      }
      copy.add(t);
    }
    this.tensors = List.copyOf(copy);
  }

  /** The input: the first tensor. */
  @OnDevice("cpu")
  public Tensor input() {
    return tensors.get(0);
  }

  /**
   * The target (a label, or whatever the model should produce): the second tensor.
   *
   * @throws IllegalStateException if the example has an input only
   */
  @OnDevice("cpu")
  public Tensor target() {
    if (tensors.size() < 2) {
      throw new IllegalStateException(
          "This example has an input only (its dataset holds one tensor); give the"
              + " dataset the targets as its second tensor, or use input()");
    }
    return tensors.get(1);
  }

  /**
   * The tensor at {@code index}: 0 is {@link #input}, 1 is {@link #target}.
   *
   * @throws IndexOutOfBoundsException if the example has no tensor at {@code index}
   */
  @OnDevice("cpu")
  public Tensor tensor(int index) {
    return Batch.at("Example", "example", tensors, index);
  }

  /** All the tensors of the example, input first (an unmodifiable list). */
  public List<Tensor> tensors() {
    return tensors;
  }
}
