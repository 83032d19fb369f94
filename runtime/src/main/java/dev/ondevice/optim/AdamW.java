package dev.ondevice.optim;

import dev.ondevice.Parameter;
import dev.ondevice.Tensor;
import dev.ondevice.OptimizerSteps.AdamStep;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * AdamW, Adam with decoupled weight decay (Loshchilov and Hutter), optionally with AMSGrad:
 * PyTorch's {@code torch.optim.AdamW}, whose update it follows exactly. For a parameter {@code θ}
 * with gradient {@code g} at this parameter's step {@code t} (counted from 1), learning rate
 * {@code γ}, betas {@code β1, β2}, {@code ε} and weight decay {@code λ} (default 1e-2):
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
public final class AdamW extends Optimizer {
  private static final String NAME = "AdamW";

  private double beta1 = 0.9;
  private double beta2 = 0.999;
  private double eps = 1e-8;
  private double weightDecay = 1e-2;
  private boolean amsgrad;

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
    super(parameters, learningRate);
  }

  /**
   * AdamW with every hyper-parameter given (as {@code torch.optim.AdamW(params, lr, betas, eps,
   * weight_decay, amsgrad)}).
   *
   * @throws IllegalArgumentException for a beta outside {@code [0, 1)} or a negative value
   */
  public AdamW(Collection<Parameter> parameters, double learningRate, double beta1, double beta2, double eps,
      double weightDecay, boolean amsgrad) {
    super(parameters, learningRate);
    configure(beta1, beta2, eps, weightDecay, amsgrad);
  }

  /** The decay rate {@code β1} of the first moment estimate. */
  public double beta1() {
    return beta1;
  }

  /** The decay rate {@code β2} of the second moment estimate. */
  public double beta2() {
    return beta2;
  }

  /**
   * Sets the betas; returns this.
   *
   * @throws IllegalArgumentException for a beta outside {@code [0, 1)}
   */
  public AdamW betas(double beta1, double beta2) {
    configure(beta1, beta2, eps, weightDecay, amsgrad);
    return this;
  }

  /** The term {@code ε} added to the denominator. */
  public double eps() {
    return eps;
  }

  /**
   * Sets {@code ε}; returns this.
   *
   * @throws IllegalArgumentException if negative
   */
  public AdamW eps(double eps) {
    configure(beta1, beta2, eps, weightDecay, amsgrad);
    return this;
  }

  /** The decoupled weight decay {@code λ}: each step scales the parameter by {@code 1 − γ λ}. */
  public double weightDecay() {
    return weightDecay;
  }

  /**
   * Sets the weight decay; returns this.
   *
   * @throws IllegalArgumentException if negative
   */
  public AdamW weightDecay(double weightDecay) {
    configure(beta1, beta2, eps, weightDecay, amsgrad);
    return this;
  }

  /** Whether AMSGrad is on. */
  public boolean amsgrad() {
    return amsgrad;
  }

  /** Switches AMSGrad on or off; returns this. */
  public AdamW amsgrad(boolean amsgrad) {
    configure(beta1, beta2, eps, weightDecay, amsgrad);
    return this;
  }

  private void configure(double beta1, double beta2, double eps, double weightDecay, boolean amsgrad) {
    HyperParameters.belowOne(NAME, "beta1", beta1);
    HyperParameters.belowOne(NAME, "beta2", beta2);
    HyperParameters.nonNegative(NAME, "eps", eps);
    HyperParameters.nonNegative(NAME, "weight decay", weightDecay);
    this.beta1 = beta1;
    this.beta2 = beta2;
    this.eps = eps;
    this.weightDecay = weightDecay;
    this.amsgrad = amsgrad;
  }

  /** One AdamW step of {@code p}: the decay, then Adam's update without weight decay, in one fused pass. */
  @Override
  protected void update(Parameter p, Tensor grad, Map<String, Tensor> state, long step) {
    AdamUpdate.apply(p, grad, state, new AdamStep(learningRate(), beta1, beta2, eps, weightDecay, true, amsgrad,
        step));
  }

  /** The moments, and their running maximum with AMSGrad. */
  @Override
  protected Set<String> stateNames() {
    return amsgrad ? Set.of(Adam.EXP_AVG, Adam.EXP_AVG_SQ, Adam.MAX_EXP_AVG_SQ) : Set.of(Adam.EXP_AVG, Adam.EXP_AVG_SQ);
  }

  /** {@code betas} (as {@code 0.9,0.999}), {@code eps}, {@code weight_decay} and {@code amsgrad}. */
  @Override
  protected Map<String, String> hyperParameters() {
    Map<String, String> out = new LinkedHashMap<>();
    out.put("betas", HyperParameters.pair(beta1, beta2));
    out.put("eps", Double.toString(eps));
    out.put("weight_decay", Double.toString(weightDecay));
    out.put("amsgrad", Boolean.toString(amsgrad));
    return out;
  }

  /** Restores the values of {@link #hyperParameters()}, checked together before any is set. */
  @Override
  protected void setHyperParameters(Map<String, String> values) {
    double[] betas = HyperParameters.pair(values, NAME, "betas");
    configure(betas[0], betas[1], HyperParameters.number(values, NAME, "eps"),
        HyperParameters.number(values, NAME, "weight_decay"), HyperParameters.flag(values, NAME, "amsgrad"));
  }
}
