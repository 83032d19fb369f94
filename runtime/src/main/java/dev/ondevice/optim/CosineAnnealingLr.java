package dev.ondevice.optim;

/**
 * Anneals the learning rate from its base to {@code etaMin} along half a cosine over {@code tMax}
 * epochs: PyTorch's {@code CosineAnnealingLR} (SGDR without restarts), in its closed form
 *
 * <pre>
 * lr = etaMin + (base − etaMin) (1 + cos(π · epoch / tMax)) / 2
 * </pre>
 *
 * <p>PyTorch's {@code step()} computes the same rates recursively from the previous one; for the
 * standard use (nothing else changes the rate) the two agree up to rounding, and the closed form
 * depends only on the epoch, so resuming gives the same rates. Past {@code tMax} the rate rises
 * again along the cosine, as in PyTorch.
 *
 * <pre>{@code
 * CosineAnnealingLr schedule = new CosineAnnealingLr(adam, epochs, 1e-5);
 * }</pre>
 */
public final class CosineAnnealingLr extends LrScheduler {
  private final long tMax;
  private final double etaMin;

  /**
   * Anneals to {@code etaMin} at epoch {@code tMax}.
   *
   * @throws IllegalArgumentException for {@code tMax} below 1 or a negative {@code etaMin}
   */
  public CosineAnnealingLr(Optimizer optimizer, long tMax, double etaMin) {
    super(optimizer);
    if (tMax < 1) {
      throw new IllegalArgumentException("CosineAnnealingLr: tMax must be >= 1, got " + tMax);
    }
    if (!(etaMin >= 0) || Double.isInfinite(etaMin)) {
      throw new IllegalArgumentException(
          "CosineAnnealingLr: etaMin must be a finite number >= 0, got " + etaMin);
    }
    this.tMax = tMax;
    this.etaMin = etaMin;
    start();
  }

  /** As {@link #CosineAnnealingLr(Optimizer, long, double)} annealing to 0, PyTorch's default. */
  public CosineAnnealingLr(Optimizer optimizer, long tMax) {
    this(optimizer, tMax, 0);
  }

  @Override
  double learningRateAt(double base, long epoch) {
    return etaMin + (base - etaMin) * (1 + Math.cos(Math.PI * epoch / tMax)) / 2;
  }
}
