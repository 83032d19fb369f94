package dev.ondevice.data;

import dev.ondevice.Tensor;
import dev.ondevice.annotations.OnDevice;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.UnaryOperator;

/**
 * A batch of examples from a {@link DataLoader}: one tensor per tensor of the dataset (inputs and
 * targets, and any others, such as masks or sequence lengths), each with the examples along its
 * first dimension. All are on the CPU (in pinned memory when the loader pins): batches always come
 * out on the host, and the training loop moves them, inputs <em>and</em> targets:
 *
 * <pre>{@code
 * for (Batch b : loader) {
 *   Tensor xb = b.inputs().to(device, true), yb = b.targets().to(device, true);
 *   ...
 * }
 * }</pre>
 *
 * <p>Its tensors are declared {@code @OnDevice("cpu")}: the device analysis takes them to be on the
 * CPU wherever the batch comes from (a loader, a list of cached batches, {@code getBatch}).
 *
 * <p>A batch of a dataset of more tensors (PyTorch's {@code for x, y, lengths in loader}) gives
 * them by position: {@code b.tensor(2)}; a batch of a dataset of one tensor has inputs only.
 */
public final class Batch {
  private final List<Tensor> tensors;

  /**
   * A batch of {@code inputs} and {@code targets}.
   *
   * @throws IllegalArgumentException if either is not on the CPU, is 0-dim, or if their first
   *     dimensions differ
   */
  public Batch(@OnDevice("cpu") Tensor inputs, @OnDevice("cpu") Tensor targets) {
    this(
        List.of(
            Objects.requireNonNull(inputs, "Batch: inputs is null"),
            Objects.requireNonNull(targets, "Batch: targets is null")));
  }

  /**
   * A batch of {@code tensors}, in the order of the dataset's tensors: the inputs first, then the
   * targets, then any others.
   *
   * @throws IllegalArgumentException if there are none, if one is not on the CPU or is 0-dim, or if
   *     their first dimensions differ
   * @throws NullPointerException if the list or one of its tensors is null
   */
  public Batch(List<Tensor> tensors) {
    this.tensors =
        checked("Batch", tensors, "batches are made on the CPU and moved by the training loop");
  }

  /**
   * The tensors of a batch or a dataset, checked: at least one, each on the CPU with a first
   * dimension, the same number of examples in each. Named in messages as {@link #describe} does.
   */
  static List<Tensor> checked(String owner, List<Tensor> tensors, String whyCpu) {
    Objects.requireNonNull(tensors, owner + ": the list of tensors is null");
    if (tensors.isEmpty()) {
      throw new IllegalArgumentException(owner + " needs at least one tensor (the inputs)");
    }
    List<Tensor> copy = new ArrayList<>(tensors.size());
    for (int i = 0; i < tensors.size(); i++) {
      Tensor t = Objects.requireNonNull(tensors.get(i), owner + ": " + describe(i) + " is null");
      if (!t.device().isCpu()) {
        throw new IllegalArgumentException(
            owner
                + ": "
                + describe(i)
                + " "
                + (i < 2 ? "are" : "is")
                + " on "
                + t.device()
                + "; "
                + whyCpu);
      }
      if (t.dim() == 0) {
        throw new IllegalArgumentException(
            owner + ": " + describe(i) + " is 0-dim; its first dimension must index the examples");
      }
      if (i > 0 && t.size(0) != copy.get(0).size(0)) {
        Tensor first = copy.get(0);
        throw new IllegalArgumentException(
            owner
                + ": "
                + describe(0)
                + " hold "
                + first.size(0)
                + " examples (shape "
                + first.shape()
                + ") but "
                + describe(i)
                + " "
                + (i < 2 ? "hold" : "holds")
                + " "
                + t.size(0)
                + " (shape "
                + t.shape()
                + "); the first dimensions must be equal");
      }
      copy.add(t);
    }
    return List.copyOf(copy);
  }

  /**
   * How messages name the tensor at {@code index}: {@code inputs}, {@code targets}, {@code tensor
   * 2}.
   */
  static String describe(int index) {
    return switch (index) {
      case 0 -> "inputs";
      case 1 -> "targets";
      default -> "tensor " + index;
    };
  }

  /** The inputs, shape {@code [size(), ...]}: the first tensor. */
  @OnDevice("cpu")
  public Tensor inputs() {
    return tensors.get(0);
  }

  /**
   * The targets, shape {@code [size(), ...]}: the second tensor.
   *
   * @throws IllegalStateException if the batch has inputs only (a dataset of one tensor)
   */
  @OnDevice("cpu")
  public Tensor targets() {
    if (tensors.size() < 2) {
      throw new IllegalStateException(
          "This batch has inputs only (its dataset holds one tensor); give the"
              + " dataset the targets as its second tensor, or use inputs()");
    }
    return tensors.get(1);
  }

  /**
   * The tensor at {@code index}, in the order of the dataset's tensors: 0 is {@link #inputs}, 1 is
   * {@link #targets}.
   *
   * @throws IndexOutOfBoundsException if the batch has no tensor at {@code index}
   */
  @OnDevice("cpu")
  public Tensor tensor(int index) {
    return at("Batch", "batch", tensors, index);
  }

  /** {@code tensors.get(index)}, or an exception naming the owner and the indices it has. */
  static Tensor at(String owner, String what, List<Tensor> tensors, int index) {
    if (index < 0 || index >= tensors.size()) {
      throw new IndexOutOfBoundsException(
          owner
              + ": no tensor "
              + index
              + "; this "
              + what
              + " holds "
              + tensors.size()
              + (tensors.size() == 1
                  ? " tensor (index 0)"
                  : " tensors (indices 0 to " + (tensors.size() - 1) + ")"));
    }
    return tensors.get(index);
  }

  /** All the tensors of the batch, in the order of the dataset's tensors (an unmodifiable list). */
  public List<Tensor> tensors() {
    return tensors;
  }

  /** The number of examples. */
  public int size() {
    return (int) tensors.get(0).size(0);
  }

  /** This batch with {@code f} applied to each of its tensors (which must stay on the CPU). */
  Batch map(UnaryOperator<Tensor> f) {
    List<Tensor> mapped = new ArrayList<>(tensors.size());
    for (Tensor t : tensors) {
      mapped.add(f.apply(t));
    }
    return new Batch(mapped);
  }
}
