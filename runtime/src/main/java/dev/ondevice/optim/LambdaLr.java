package dev.ondevice.optim;

import java.util.Objects;
import java.util.function.LongToDoubleFunction;

/**
 * A schedule given as a function: {@code lr = base · factor(epoch)}, PyTorch's {@code LambdaLR}.
 * For schedules the library does not have.
 *
 * <pre>{@code
 * LambdaLr schedule = new LambdaLr(sgd, epoch -> Math.pow(0.95, epoch));
 * }</pre>
 */
public final class LambdaLr extends LrScheduler {
  private final LongToDoubleFunction factor;

  /**
   * Sets the learning rate to the base rate times {@code factor} of the epoch; the rate of epoch 0
   * is set now.
   *
   * @throws IllegalArgumentException when a factor makes the learning rate negative or NaN
   */
  public LambdaLr(Optimizer optimizer, LongToDoubleFunction factor) {
    super(optimizer);
    this.factor = Objects.requireNonNull(factor, "factor");
    start();
  }

  @Override
  double learningRateAt(double base, long epoch) {
    return base * factor.applyAsDouble(epoch);
  }
}
