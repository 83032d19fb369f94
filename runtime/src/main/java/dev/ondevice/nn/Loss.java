package dev.ondevice.nn;

import dev.ondevice.Tensor;
import dev.ondevice.annotations.SameDevice;

/**
 * A loss function of an input (the model's output) and a target, with a {@link Reduction}. Losses
 * are not models: they hold no state to move. Input and target must be on one device: a target left
 * on the CPU beside an input on a GPU is a {@link dev.ondevice.DeviceMismatchException} from the
 * first op that meets both; nothing is moved silently.
 */
@SameDevice
public abstract class Loss {
  private final Reduction reduction;

  Loss(Reduction reduction) {
    if (reduction == null) {
      throw new IllegalArgumentException(
          getClass().getSimpleName() + ": reduction must not be null");
    }
    this.reduction = reduction;
  }

  /** How the per-element losses are combined. */
  public Reduction reduction() {
    return reduction;
  }

  /** The loss of {@code input} against {@code target}, reduced. */
  public abstract Tensor forward(Tensor input, Tensor target);

  /** The per-element losses reduced as this loss says. */
  Tensor reduce(Tensor losses) {
    return reduction.apply(losses);
  }
}
