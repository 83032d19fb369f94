package dev.ondevice.optim;

import dev.ondevice.Parameter;
import java.util.Collection;

/**
 * AdamW, Adam with decoupled weight decay (Loshchilov and Hutter), optionally with AMSGrad:
 * PyTorch's {@code torch.optim.AdamW}, whose update it follows exactly. For a parameter {@code θ}
 * with gradient {@code g} at this parameter's step {@code t} (counted from 1), learning rate {@code
 * γ}, betas {@code β1, β2}, {@code ε} and weight decay {@code λ} (default 1e-2):
 *
 * <pre>
 * θ ← θ (1 − γ λ)                               the decay, not added to g
 * m ← β1 m + (1 − β1) g                         (state "exp_avg", zeros at first)
 * v ← β2 v + (1 − β2) g²                        (state "exp_avg_sq", zeros at first)
 * v_max ← max(v_max, v); use v_max for v below   if amsgrad (state "max_exp_avg_sq")
 * θ ← θ − (γ / (1 − β1^t)) m / (√v / √(1 − β2^t) + ε)
 * </pre>
 *
 * <p>The state has the names of {@link Adam}'s: {@link Adam#EXP_AVG}, {@link Adam#EXP_AVG_SQ} and
 * {@link Adam#MAX_EXP_AVG_SQ}.
 *
 * <pre>{@code
 * AdamW adamW = new AdamW(model.parameters(), 1e-3).weightDecay(0.05);
 * }</pre>
 *
 * <p>The update runs on each parameter's device, in place, and never waits for the device.
 */
public final class AdamW extends AdamBase<AdamW> {
  /**
   * AdamW with PyTorch's defaults: learning rate 1e-3, betas (0.9, 0.999), eps 1e-8, weight decay
   * 1e-2, no AMSGrad.
   *
   * @throws IllegalArgumentException for an empty collection or a repeated parameter
   */
  public AdamW(Collection<Parameter> parameters) {
    this(parameters, 1e-3);
  }

  /**
   * AdamW with learning rate {@code learningRate} and PyTorch's other defaults.
   *
   * @throws IllegalArgumentException for an empty collection, a repeated parameter or a negative
   *     learning rate
   */
  public AdamW(Collection<Parameter> parameters, double learningRate) {
    this(parameters, learningRate, 0.9, 0.999, 1e-8, 1e-2, false);
  }

  /**
   * AdamW with every hyper-parameter given (as {@code torch.optim.AdamW(params, lr, betas, eps,
   * weight_decay, amsgrad)}).
   *
   * @throws IllegalArgumentException for a beta outside {@code [0, 1)} or a negative value
   */
  public AdamW(
      Collection<Parameter> parameters,
      double learningRate,
      double beta1,
      double beta2,
      double eps,
      double weightDecay,
      boolean amsgrad) {
    super(parameters, learningRate, beta1, beta2, eps, weightDecay, amsgrad, true);
  }
}
