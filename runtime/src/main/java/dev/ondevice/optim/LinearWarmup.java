package dev.ondevice.optim;

/**
 * Raises the learning rate linearly from {@code startFactor · base} to the base over {@code
 * warmupSteps} steps, then keeps it: PyTorch's {@code LinearLR(optimizer, start_factor,
 * end_factor=1.0, total_iters=warmupSteps)}, in its closed form
 *
 * <pre>
 * lr = base · (startFactor + (1 − startFactor) · min(step, warmupSteps) / warmupSteps)
 * </pre>
 *
 * <p>Creating it sets the rate to {@code startFactor · base}. Warm-ups are usually counted in
 * batches: call {@link #step()} after each optimizer step.
 *
 * <pre>{@code
 * LinearWarmup warmup = new LinearWarmup(adamW, 0.01, 500);
 * }</pre>
 */
public final class LinearWarmup extends LrScheduler {
  private final double startFactor;
  private final long warmupSteps;

  /**
   * Warms up from {@code startFactor} times the base rate over {@code warmupSteps} steps.
   *
   * @throws IllegalArgumentException for a start factor outside {@code (0, 1]} or fewer than one
   *     step
   */
  public LinearWarmup(Optimizer optimizer, double startFactor, long warmupSteps) {
    super(optimizer);
    if (!(startFactor > 0 && startFactor <= 1)) {
      throw new IllegalArgumentException(
          "LinearWarmup: startFactor must be in (0, 1], got " + startFactor);
    }
    if (warmupSteps < 1) {
      throw new IllegalArgumentException(
          "LinearWarmup: warmupSteps must be >= 1, got " + warmupSteps);
    }
    this.startFactor = startFactor;
    this.warmupSteps = warmupSteps;
    start();
  }

  @Override
  double learningRateAt(double base, long epoch) {
    return base * (startFactor + (1 - startFactor) * Math.min(epoch, warmupSteps) / warmupSteps);
  }
}
