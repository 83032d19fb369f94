package dev.ondevice.data;

import dev.ondevice.Tensor;
import java.util.Objects;

/**
 * A batch of examples from a {@link DataLoader}: inputs and targets whose first dimension indexes
 * the examples. Both are on the CPU (in pinned memory when the loader pins): batches always come
 * out on the host, and the training loop moves them, inputs <em>and</em> targets:
 *
 * <pre>{@code
 * for (Batch b : loader) {
 *   Tensor xb = b.inputs().to(device, true), yb = b.targets().to(device, true);
 *   ...
 * }
 * }</pre>
 */
public final class Batch {
  private final Tensor inputs;
  private final Tensor targets;

  /**
   * A batch of {@code inputs} and {@code targets}.
   *
   * @throws IllegalArgumentException if either is not on the CPU, is 0-dim, or if their first
   *     dimensions differ
   */
  public Batch(Tensor inputs, Tensor targets) {
    Objects.requireNonNull(inputs, "Batch: inputs is null");
    Objects.requireNonNull(targets, "Batch: targets is null");
    requireCpu("inputs", inputs);
    requireCpu("targets", targets);
    if (inputs.size(0) != targets.size(0)) {
      throw new IllegalArgumentException("Batch: inputs hold " + inputs.size(0) + " examples (shape " + inputs.shape()
          + ") but targets hold " + targets.size(0) + " (shape " + targets.shape() + ")");
    }
    this.inputs = inputs;
    this.targets = targets;
  }

  private static void requireCpu(String what, Tensor t) {
    if (!t.device().isCpu()) {
      throw new IllegalArgumentException("Batch: " + what + " are on " + t.device()
          + "; batches are made on the CPU and moved by the training loop");
    }
    if (t.dim() == 0) {
      throw new IllegalArgumentException("Batch: " + what + " is 0-dim; its first dimension must index the examples");
    }
  }

  /** The inputs, shape {@code [size(), ...]}. */
  public Tensor inputs() {
    return inputs;
  }

  /** The targets, shape {@code [size(), ...]}. */
  public Tensor targets() {
    return targets;
  }

  /** The number of examples. */
  public int size() {
    return (int) inputs.size(0);
  }
}
