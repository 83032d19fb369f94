package dev.ondevice.optim;

import dev.ondevice.Parameter;
import dev.ondevice.Tensor;
import java.util.Map;

/**
 * The moment update shared by {@link Adam} and {@link AdamW}, as PyTorch's single-tensor Adam
 * computes it, with two temporaries per parameter (three with AMSGrad) and no host read.
 */
final class AdamUpdate {
  private AdamUpdate() {}

  /**
   * Updates the moments in {@code state} with gradient {@code g} and moves {@code p} by {@code
   * -lr m̂ / (√v̂ + eps)}, where {@code step} is this parameter's step count.
   */
  static void apply(Parameter p, Tensor g, Map<String, Tensor> state, long step, double lr, double beta1,
      double beta2, double eps, boolean amsgrad) {
    Tensor expAvg = state.computeIfAbsent(Adam.EXP_AVG, k -> Tensor.zerosLike(p));
    Tensor expAvgSq = state.computeIfAbsent(Adam.EXP_AVG_SQ, k -> Tensor.zerosLike(p));
    // m ← β1 m + (1 − β1) g, then v ← β2 v + (1 − β2) g · g (PyTorch's addcmul order), with one
    // scratch tensor.
    Tensor scratch = g.mul(1 - beta1);
    expAvg.muli(beta1).addi(scratch);
    scratch.copyFrom(g).muli(1 - beta2).muli(g);
    expAvgSq.muli(beta2).addi(scratch);
    Tensor second = expAvgSq;
    if (amsgrad) {
      Tensor max = state.computeIfAbsent(Adam.MAX_EXP_AVG_SQ, k -> Tensor.zerosLike(p));
      max.copyFrom(max.maximum(expAvgSq));
      second = max;
    }
    double biasCorrection1 = 1 - Math.pow(beta1, (double) step);
    double biasCorrection2 = 1 - Math.pow(beta2, (double) step);
    double stepSize = lr / biasCorrection1;
    Tensor denominator = second.sqrt().divi(Math.sqrt(biasCorrection2)).addi(eps);
    p.addi(scratch.copyFrom(expAvg).divi(denominator).muli(-stepSize));
  }
}
