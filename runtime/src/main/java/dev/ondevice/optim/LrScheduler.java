package dev.ondevice.optim;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A learning-rate schedule: sets its optimizer's learning rate from a closed form of the epoch
 * count, as PyTorch's {@code torch.optim.lr_scheduler}. The base learning rate is the optimizer's
 * when its first scheduler is created (PyTorch's {@code initial_lr}: a second scheduler of the same
 * optimizer starts from it too, not from the rate the first one set); creating a scheduler sets the
 * rate of epoch 0, and each {@link #step()} moves to the next epoch. {@link SequentialLr} runs
 * schedules one after another (a warm-up, then a cosine).
 *
 * <pre>{@code
 * Sgd sgd = new Sgd(model.parameters(), 0.1).momentum(0.9);
 * LrScheduler schedule = new CosineAnnealingLr(sgd, epochs, 0);
 * for (int epoch = 0; epoch < epochs; epoch++) {
 *   trainOneEpoch(sgd);          // zeroGrad, backward, sgd.step() per batch
 *   schedule.step();             // once per epoch, after the optimizer's steps
 * }
 * }</pre>
 *
 * <p>Call {@code step()} once per epoch, or once per batch for a schedule counted in batches (a
 * warm-up of so many steps). An "epoch" below is whatever is counted. Closed forms make the rate
 * depend only on the count, so resuming from {@link #stateDict()} gives the same rates.
 */
public abstract sealed class LrScheduler
    permits StepLr, CosineAnnealingLr, LinearWarmup, LambdaLr, SequentialLr {
  private static final String TYPE = "type";
  private static final String BASE_LEARNING_RATE = "base_lr";
  private static final String LAST_EPOCH = "last_epoch";

  private final Optimizer optimizer;
  private double baseLearningRate;
  private long lastEpoch;
  private double lastLearningRate;

  LrScheduler(Optimizer optimizer) {
    this.optimizer = Objects.requireNonNull(optimizer, "optimizer");
  }

  /**
   * Takes the base rate and sets the rate of epoch 0: each constructor calls it last, once its
   * arguments are checked, so that a scheduler rejected for its arguments leaves the optimizer as
   * it was (its initial rate included).
   */
  final void start() {
    baseLearningRate = optimizer.initialLearningRate();
    apply(0);
  }

  /** The learning rate at {@code epoch} for base learning rate {@code base}. */
  abstract double learningRateAt(double base, long epoch);

  /** Moves to the next epoch and sets the optimizer's learning rate for it. */
  public final void step() {
    apply(lastEpoch + 1);
  }

  /** The learning rate this scheduler set last (PyTorch's {@code get_last_lr()}). */
  public final double lastLearningRate() {
    return lastLearningRate;
  }

  /** The epochs counted so far: 0 after creation, 1 after the first {@link #step()}. */
  public final long lastEpoch() {
    return lastEpoch;
  }

  /** The base learning rate: the optimizer's when its first scheduler was created. */
  public final double baseLearningRate() {
    return baseLearningRate;
  }

  /** The optimizer whose learning rate this scheduler sets. */
  public final Optimizer optimizer() {
    return optimizer;
  }

  /** The type, base learning rate and epoch count, to save beside the optimizer's state. */
  public final Map<String, String> stateDict() {
    Map<String, String> out = new LinkedHashMap<>();
    out.put(TYPE, getClass().getSimpleName());
    out.put(BASE_LEARNING_RATE, Double.toString(baseLearningRate));
    out.put(LAST_EPOCH, Long.toString(lastEpoch));
    return out;
  }

  /**
   * Restores a state saved by {@link #stateDict()} of a scheduler of the same type, and sets the
   * optimizer's learning rate to the schedule's at the saved epoch.
   *
   * @throws IllegalArgumentException for another type, or a missing or invalid value; nothing is
   *     changed then
   */
  public final void loadStateDict(Map<String, String> saved) {
    String name = getClass().getSimpleName();
    if (!name.equals(saved.get(TYPE))) {
      throw new IllegalArgumentException(
          "loadStateDict: the state is of a " + saved.get(TYPE) + " scheduler, this is a " + name);
    }
    double base;
    long epoch;
    try {
      base = Double.parseDouble(String.valueOf(saved.get(BASE_LEARNING_RATE)));
      epoch = Long.parseLong(String.valueOf(saved.get(LAST_EPOCH)));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "loadStateDict: the "
              + name
              + " state needs a number '"
              + BASE_LEARNING_RATE
              + "' and a whole number '"
              + LAST_EPOCH
              + "', got "
              + saved,
          e);
    }
    if (!(base >= 0) || Double.isInfinite(base) || epoch < 0) {
      throw new IllegalArgumentException(
          "loadStateDict: the "
              + name
              + " state needs a finite "
              + BASE_LEARNING_RATE
              + " >= 0 and a "
              + LAST_EPOCH
              + " >= 0: "
              + saved);
    }
    apply(base, epoch);
  }

  private void apply(long epoch) {
    apply(baseLearningRate, epoch);
  }

  /**
   * Sets the rate of {@code epoch} from {@code base}; nothing changes when the optimizer rejects
   * it.
   */
  private void apply(double base, long epoch) {
    double rate = learningRateAt(base, epoch);
    optimizer.setLearningRate(rate);
    baseLearningRate = base;
    lastEpoch = epoch;
    lastLearningRate = rate;
  }
}
