package dev.ondevice.optim;

import dev.ondevice.Parameter;
import dev.ondevice.Tensor;
import dev.ondevice.OptimizerSteps.AdamStep;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Adam, optionally with weight decay added to the gradient (L2) and AMSGrad: PyTorch's {@code
 * torch.optim.Adam}, whose update it follows exactly. For a parameter {@code θ} with gradient
 * {@code g} at this parameter's step {@code t} (counted from 1), learning rate {@code γ}, betas
 * {@code β1, β2}, {@code ε} and weight decay {@code λ}:
 *
 * <pre>
 * g ← g + λ θ                                   if λ ≠ 0
 * m ← β1 m + (1 − β1) g                         (state "exp_avg", zeros at first)
 * v ← β2 v + (1 − β2) g²                        (state "exp_avg_sq", zeros at first)
 * v_max ← max(v_max, v); use v_max for v below   if amsgrad (state "max_exp_avg_sq")
 * θ ← θ − (γ / (1 − β1^t)) m / (√v / √(1 − β2^t) + ε)
 * </pre>
 *
 * <p>For weight decay decoupled from the gradient, use {@link AdamW}.
 *
 * <pre>{@code
 * Adam adam = new Adam(model.parameters(), 1e-3).betas(0.9, 0.98).amsgrad(true);
 * }</pre>
 *
 * <p>The update runs on each parameter's device, in place, and never waits for the device.
 */
public final class Adam extends Optimizer {
  /** The name of the first moment estimate {@code m} in the state, as in PyTorch. */
  public static final String EXP_AVG = "exp_avg";
  /** The name of the second moment estimate {@code v} in the state, as in PyTorch. */
  public static final String EXP_AVG_SQ = "exp_avg_sq";
  /** The name of the running maximum of {@code v} in the state, with AMSGrad only, as in PyTorch. */
  public static final String MAX_EXP_AVG_SQ = "max_exp_avg_sq";

  private static final String NAME = "Adam";

  private double beta1 = 0.9;
  private double beta2 = 0.999;
  private double eps = 1e-8;
  private double weightDecay;
  private boolean amsgrad;

  /**
   * Adam with PyTorch's defaults: learning rate 1e-3, betas (0.9, 0.999), eps 1e-8, no weight
   * decay, no AMSGrad.
   *
   * @throws IllegalArgumentException for an empty collection or a repeated parameter
   */
  public Adam(Collection<Parameter> parameters) {
    this(parameters, 1e-3);
  }

  /**
   * Adam with learning rate {@code learningRate} and PyTorch's other defaults.
   *
   * @throws IllegalArgumentException for an empty collection, a repeated parameter or a negative
   *     learning rate
   */
  public Adam(Collection<Parameter> parameters, double learningRate) {
    super(parameters, learningRate);
  }

  /**
   * Adam with every hyper-parameter given (as {@code torch.optim.Adam(params, lr, betas, eps,
   * weight_decay, amsgrad)}).
   *
   * @throws IllegalArgumentException for a beta outside {@code [0, 1)} or a negative value
   */
  public Adam(Collection<Parameter> parameters, double learningRate, double beta1, double beta2, double eps,
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
  public Adam betas(double beta1, double beta2) {
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
  public Adam eps(double eps) {
    configure(beta1, beta2, eps, weightDecay, amsgrad);
    return this;
  }

  /** The weight decay {@code λ}, an L2 penalty added to the gradient (0: none). */
  public double weightDecay() {
    return weightDecay;
  }

  /**
   * Sets the weight decay; returns this.
   *
   * @throws IllegalArgumentException if negative
   */
  public Adam weightDecay(double weightDecay) {
    configure(beta1, beta2, eps, weightDecay, amsgrad);
    return this;
  }

  /** Whether AMSGrad is on. */
  public boolean amsgrad() {
    return amsgrad;
  }

  /** Switches AMSGrad on or off; returns this. */
  public Adam amsgrad(boolean amsgrad) {
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

  /** One Adam step of {@code p}, the weight decay added to the gradient inside the fused update. */
  @Override
  protected void update(Parameter p, Tensor grad, Map<String, Tensor> state, long step) {
    AdamUpdate.apply(p, grad, state, new AdamStep(learningRate(), beta1, beta2, eps, weightDecay, false, amsgrad,
        step));
  }

  /** Adam's moments, and their running maximum with AMSGrad. */
  @Override
  protected Set<String> stateNames() {
    return amsgrad ? Set.of(EXP_AVG, EXP_AVG_SQ, MAX_EXP_AVG_SQ) : Set.of(EXP_AVG, EXP_AVG_SQ);
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
