package dev.ondevice.optim;

import dev.ondevice.OptimizerSteps;
import dev.ondevice.Parameter;
import dev.ondevice.Tensor;
import dev.ondevice.OptimizerSteps.AdamStep;
import java.util.Map;

/** The state of {@link Adam} and {@link AdamW} and their fused update. */
final class AdamUpdate {
  private AdamUpdate() {}

  /**
   * Creates the moments in {@code state} on the first step (zeros on the parameter's device) and
   * applies one fused update of {@code p} and its moments from {@code grad}.
   */
  static void apply(Parameter p, Tensor grad, Map<String, Tensor> state, AdamStep step) {
    Tensor expAvg = state.computeIfAbsent(Adam.EXP_AVG, k -> Tensor.zerosLike(p));
    Tensor expAvgSq = state.computeIfAbsent(Adam.EXP_AVG_SQ, k -> Tensor.zerosLike(p));
    Tensor max = step.amsgrad() ? state.computeIfAbsent(Adam.MAX_EXP_AVG_SQ, k -> Tensor.zerosLike(p)) : null;
    OptimizerSteps.adam(p, grad, expAvg, expAvgSq, max, step);
  }
}
