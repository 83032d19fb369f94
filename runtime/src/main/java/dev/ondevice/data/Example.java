package dev.ondevice.data;

import dev.ondevice.Tensor;
import java.util.Objects;

/** One example of a {@link Dataset}: an input tensor and its target, both on the CPU. */
public final class Example {
  private final Tensor input;
  private final Tensor target;

  /**
   * An example of {@code input} and {@code target}.
   *
   * @throws NullPointerException if either is null
   */
  public Example(Tensor input, Tensor target) {
    this.input = Objects.requireNonNull(input, "Example: input is null");
    this.target = Objects.requireNonNull(target, "Example: target is null");
  }

  /** The input. */
  public Tensor input() {
    return input;
  }

  /** The target (a label, or whatever the model should produce). */
  public Tensor target() {
    return target;
  }
}
