package dev.ondevice.optim;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * Schedules run one after another: PyTorch's {@code SequentialLR(optimizer, schedulers,
 * milestones)}. Schedule {@code i} sets the rate from milestone {@code i - 1} (0 for the first) to
 * milestone {@code i}, counting its own epochs from 0 there; the last one runs on.
 *
 * <pre>{@code
 * LrScheduler warmup = new LinearWarmup(adamW, 0.01, 500);
 * LrScheduler cosine = new CosineAnnealingLr(adamW, totalSteps - 500, 0);
 * LrScheduler schedule = new SequentialLr(adamW, List.of(warmup, cosine), 500);
 * // per batch: adamW.step(); schedule.step();    (not warmup.step() or cosine.step())
 * }</pre>
 *
 * <p>Only this scheduler is stepped; the ones it runs are used for their rates alone. All of them
 * start from the optimizer's initial rate.
 */
public final class SequentialLr extends LrScheduler {
  private final List<LrScheduler> schedulers;
  private final long[] milestones;

  /**
   * Runs {@code schedulers} in turn, switching at {@code milestones} (one fewer than the
   * schedulers, increasing).
   *
   * @throws IllegalArgumentException if there are no schedulers, if one belongs to another
   *     optimizer, or if the milestones are not one fewer than the schedulers, positive and
   *     increasing
   */
  public SequentialLr(Optimizer optimizer, List<LrScheduler> schedulers, long... milestones) {
    super(optimizer);
    Objects.requireNonNull(schedulers, "SequentialLr: schedulers is null");
    if (schedulers.isEmpty()) {
      throw new IllegalArgumentException("SequentialLr: give at least one scheduler");
    }
    for (LrScheduler s : schedulers) {
      if (Objects.requireNonNull(s, "SequentialLr: a scheduler is null").optimizer() != optimizer) {
        throw new IllegalArgumentException(
            "SequentialLr: a "
                + s.getClass().getSimpleName()
                + " of another optimizer; every scheduler must be of the optimizer given");
      }
    }
    if (milestones.length != schedulers.size() - 1) {
      throw new IllegalArgumentException(
          "SequentialLr: "
              + schedulers.size()
              + " schedulers need "
              + (schedulers.size() - 1)
              + " milestones, got "
              + milestones.length);
    }
    for (int i = 0; i < milestones.length; i++) {
      if (milestones[i] < 1 || (i > 0 && milestones[i] <= milestones[i - 1])) {
        throw new IllegalArgumentException(
            "SequentialLr: milestones must be positive and increasing, got "
                + Arrays.toString(milestones));
      }
    }
    this.schedulers = List.copyOf(schedulers);
    this.milestones = milestones.clone();
    start();
  }

  @Override
  double learningRateAt(double base, long epoch) {
    int i = 0;
    long start = 0;
    while (i < milestones.length && epoch >= milestones[i]) {
      start = milestones[i];
      i++;
    }
    return schedulers.get(i).learningRateAt(base, epoch - start);
  }
}
