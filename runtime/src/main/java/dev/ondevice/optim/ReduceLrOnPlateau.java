package dev.ondevice.optim;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Lowers the learning rate when a metric stops improving: PyTorch's {@code ReduceLROnPlateau}, with
 * its defaults and its relative threshold. Unlike the closed-form {@link LrScheduler}s it follows a
 * measured value, given once per epoch as a number: read the validation loss with {@code item()}
 * after the epoch, where one host read per epoch costs nothing.
 *
 * <pre>{@code
 * ReduceLrOnPlateau plateau = new ReduceLrOnPlateau(sgd, ReduceLrOnPlateau.Mode.MIN, 0.1, 10);
 * for (int epoch = 0; epoch < epochs; epoch++) {
 *   trainOneEpoch(sgd);
 *   plateau.step(validationLoss().item());   // once per epoch
 * }
 * }</pre>
 *
 * <p>After {@code patience} epochs in a row without an improvement, the rate becomes {@code
 * max(rate · factor, minLearningRate)}, and the next {@code cooldown} epochs do not count. An
 * improvement is a value below {@code best · (1 - threshold)} ({@code MIN}) or above {@code best ·
 * (1 + threshold)} ({@code MAX}).
 */
public final class ReduceLrOnPlateau {
  /** Whether the metric should go down (a loss) or up (an accuracy). */
  public enum Mode {
    MIN,
    MAX
  }

  /** Rate changes smaller than this are not made, as PyTorch's {@code eps}. */
  private static final double EPS = 1e-8;

  private static final String TYPE = "type";

  private final Optimizer optimizer;
  private Mode mode;
  private double factor;
  private int patience;
  private double threshold;
  private int cooldown;
  private double minLearningRate;
  private double best;
  private int badEpochs;
  private int cooldownLeft;

  /**
   * A scheduler for {@code optimizer} with PyTorch's threshold (1e-4, relative), no cooldown and no
   * minimum rate.
   *
   * @throws IllegalArgumentException for a factor outside {@code (0, 1)} or a negative patience
   */
  public ReduceLrOnPlateau(Optimizer optimizer, Mode mode, double factor, int patience) {
    this(optimizer, mode, factor, patience, 1e-4, 0, 0);
  }

  /**
   * A scheduler with every setting.
   *
   * @throws IllegalArgumentException for a factor outside {@code (0, 1)}, a negative patience,
   *     threshold, cooldown or minimum rate
   */
  public ReduceLrOnPlateau(
      Optimizer optimizer,
      Mode mode,
      double factor,
      int patience,
      double threshold,
      int cooldown,
      double minLearningRate) {
    this.optimizer = Objects.requireNonNull(optimizer, "optimizer");
    check(factor, patience, threshold, cooldown, minLearningRate);
    this.mode = Objects.requireNonNull(mode, "mode");
    this.factor = factor;
    this.patience = patience;
    this.threshold = threshold;
    this.cooldown = cooldown;
    this.minLearningRate = minLearningRate;
    this.best = mode == Mode.MIN ? Double.POSITIVE_INFINITY : Double.NEGATIVE_INFINITY;
  }

  private static void check(
      double factor, int patience, double threshold, int cooldown, double minLearningRate) {
    if (!(factor > 0 && factor < 1)) {
      throw new IllegalArgumentException(
          "ReduceLrOnPlateau: factor must be in (0, 1), got " + factor);
    }
    if (patience < 0
        || cooldown < 0
        || !(threshold >= 0)
        || !(minLearningRate >= 0)
        || Double.isInfinite(threshold)
        || Double.isInfinite(minLearningRate)) {
      throw new IllegalArgumentException(
          "ReduceLrOnPlateau: patience, threshold, cooldown and minLearningRate"
              + " must be finite and not negative, got "
              + patience
              + ", "
              + threshold
              + ", "
              + cooldown
              + ", "
              + minLearningRate);
    }
  }

  /**
   * Takes the epoch's {@code metric}, and lowers the optimizer's learning rate after {@code
   * patience} epochs without improvement. A NaN metric (a diverged epoch) is no improvement, as in
   * PyTorch.
   */
  public void step(double metric) {
    if (improves(metric)) {
      best = metric;
      badEpochs = 0;
    } else {
      badEpochs++;
    }
    if (cooldownLeft > 0) {
      cooldownLeft--;
      badEpochs = 0;
    }
    if (badEpochs > patience) {
      double old = optimizer.learningRate();
      double lowered = Math.max(old * factor, minLearningRate);
      if (old - lowered > EPS) {
        optimizer.setLearningRate(lowered);
      }
      cooldownLeft = cooldown;
      badEpochs = 0;
    }
  }

  private boolean improves(double metric) {
    return mode == Mode.MIN ? metric < best * (1 - threshold) : metric > best * (1 + threshold);
  }

  /** The best metric so far (infinite before the first step). */
  public double best() {
    return best;
  }

  /** The epochs in a row without improvement. */
  public int badEpochs() {
    return badEpochs;
  }

  /** The settings, the best value and the counters, to save beside the optimizer's state. */
  public Map<String, String> stateDict() {
    Map<String, String> out = new LinkedHashMap<>();
    out.put(TYPE, getClass().getSimpleName());
    out.put("mode", mode.name());
    out.put("factor", Double.toString(factor));
    out.put("patience", Integer.toString(patience));
    out.put("threshold", Double.toString(threshold));
    out.put("cooldown", Integer.toString(cooldown));
    out.put("min_lr", Double.toString(minLearningRate));
    out.put("best", Double.toString(best));
    out.put("num_bad_epochs", Integer.toString(badEpochs));
    out.put("cooldown_counter", Integer.toString(cooldownLeft));
    return out;
  }

  /**
   * Restores a state saved by {@link #stateDict()}: the settings as well, as PyTorch does.
   *
   * @throws IllegalArgumentException for another type or a missing or invalid value; nothing is
   *     changed then
   */
  public void loadStateDict(Map<String, String> saved) {
    if (!getClass().getSimpleName().equals(saved.get(TYPE))) {
      throw new IllegalArgumentException(
          "loadStateDict: the state is of a "
              + saved.get(TYPE)
              + " scheduler, this is a ReduceLrOnPlateau");
    }
    Mode m;
    double f;
    int p;
    double t;
    int c;
    double min;
    double b;
    int bad;
    int cool;
    try {
      m = Mode.valueOf(String.valueOf(saved.get("mode")));
      f = Double.parseDouble(String.valueOf(saved.get("factor")));
      p = Integer.parseInt(String.valueOf(saved.get("patience")));
      t = Double.parseDouble(String.valueOf(saved.get("threshold")));
      c = Integer.parseInt(String.valueOf(saved.get("cooldown")));
      min = Double.parseDouble(String.valueOf(saved.get("min_lr")));
      b = Double.parseDouble(String.valueOf(saved.get("best")));
      bad = Integer.parseInt(String.valueOf(saved.get("num_bad_epochs")));
      cool = Integer.parseInt(String.valueOf(saved.get("cooldown_counter")));
    } catch (IllegalArgumentException e) { // NumberFormatException, or no such mode
      throw new IllegalArgumentException(
          "loadStateDict: the ReduceLrOnPlateau state needs its mode, its settings,"
              + " 'best', 'num_bad_epochs' and 'cooldown_counter', got "
              + saved,
          e);
    }
    check(f, p, t, c, min);
    if (Double.isNaN(b) || bad < 0 || cool < 0) {
      throw new IllegalArgumentException("loadStateDict: invalid ReduceLrOnPlateau state " + saved);
    }
    mode = m;
    factor = f;
    patience = p;
    threshold = t;
    cooldown = c;
    minLearningRate = min;
    best = b;
    badEpochs = bad;
    cooldownLeft = cool;
  }
}
