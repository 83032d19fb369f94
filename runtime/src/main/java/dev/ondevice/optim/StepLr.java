package dev.ondevice.optim;

/**
 * Decays the learning rate by {@code gamma} every {@code stepSize} epochs: PyTorch's {@code
 * StepLR}, in its closed form {@code lr = base · gamma^⌊epoch / stepSize⌋}.
 *
 * <pre>{@code
 * StepLr schedule = new StepLr(sgd, 30, 0.1);   // 0.1 → 0.01 at epoch 30 → 0.001 at epoch 60
 * }</pre>
 */
public final class StepLr extends LrScheduler {
  private final long stepSize;
  private final double gamma;

  /**
   * Multiplies the learning rate by {@code gamma} every {@code stepSize} epochs.
   *
   * @throws IllegalArgumentException for a step size below 1 or a gamma that is not positive
   */
  public StepLr(Optimizer optimizer, long stepSize, double gamma) {
    super(optimizer);
    if (stepSize < 1) {
      throw new IllegalArgumentException("StepLr: stepSize must be >= 1, got " + stepSize);
    }
    if (!(gamma > 0) || Double.isInfinite(gamma)) {
      throw new IllegalArgumentException("StepLr: gamma must be a finite number > 0, got " + gamma);
    }
    this.stepSize = stepSize;
    this.gamma = gamma;
    start();
  }

  /** As {@link #StepLr(Optimizer, long, double)} with PyTorch's default gamma, 0.1. */
  public StepLr(Optimizer optimizer, long stepSize) {
    this(optimizer, stepSize, 0.1);
  }

  @Override
  double learningRateAt(double base, long epoch) {
    long decays = epoch / stepSize;
    return base * Math.pow(gamma, (double) decays);
  }
}
