package dev.ondevice.internal.backend;

/**
 * The hyper-parameters of one fused Adam or AdamW update, as PyTorch's single-tensor {@code
 * torch.optim.Adam} and {@code AdamW} compute it: AdamW first scales the parameter by {@code 1 −
 * lr·weightDecay}, Adam adds {@code weightDecay·param} to the gradient; then {@code m = β1·m + (1 −
 * β1)·g}, {@code v = β2·v + (1 − β2)·g²}, with AMSGrad {@code vmax = max(vmax, v)}, and {@code
 * param −= lr / (1 − β1^step) · m / (√v / √(1 − β2^step) + eps)}.
 *
 * @param lr the learning rate
 * @param beta1 the decay of the first moment
 * @param beta2 the decay of the second moment
 * @param eps the term added to the denominator
 * @param weightDecay the weight decay, L2 (Adam) or decoupled (AdamW)
 * @param decoupled whether the weight decay is AdamW's
 * @param amsgrad whether the maximum of the second moments is kept and used
 * @param step this parameter's step count, from 1
 */
public record AdamStep(
    double lr,
    double beta1,
    double beta2,
    double eps,
    double weightDecay,
    boolean decoupled,
    boolean amsgrad,
    long step) {
  /**
   * Whether the second moment may be flushed: a flushed {@code v} changes the denominator {@code √v
   * / √(1 − β2^t) + eps} by less than {@code √minNormal / √(1 − β2^t)}, which must stay below the
   * rounding of {@code eps} ({@code eps · 2^-mantissaBits}). With the default eps of 1e-8 it always
   * may; with an eps near zero it may not, and only the first moment is flushed. Every backend (the
   * CPU's kernels, the CUDA kernels) takes the decision from here.
   */
  public boolean flushesSecondMoment(boolean float32) {
    if (float32) {
      float correction2 = (float) Math.sqrt(1 - Math.pow(beta2, (double) step));
      return flushesSecondMoment(eps * correction2, Float.MIN_NORMAL, 24);
    }
    double correction2 = Math.sqrt(1 - Math.pow(beta2, (double) step));
    return flushesSecondMoment(eps * correction2, Double.MIN_NORMAL, 53);
  }

  /** The test of {@link #flushesSecondMoment(boolean)} for one precision. */
  private static boolean flushesSecondMoment(
      double epsTimesCorrection, double minNormal, int mantissaBits) {
    return epsTimesCorrection >= Math.sqrt(minNormal) * Math.scalb(1.0, mantissaBits);
  }
}
