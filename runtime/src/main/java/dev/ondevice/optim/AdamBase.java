package dev.ondevice.optim;

import dev.ondevice.OptimizerSteps;
import dev.ondevice.OptimizerSteps.AdamStep;
import dev.ondevice.Parameter;
import dev.ondevice.Tensor;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Adam's hyper-parameters, state and fused update, shared by {@link Adam} and {@link AdamW}, which
 * differ only in where the weight decay goes (into the gradient, or decoupled onto the parameter)
 * and in its default. {@code S} is the public class, which the setters return.
 */
abstract class AdamBase<S extends AdamBase<S>> extends Optimizer {
  /** The name of the first moment estimate {@code m} in the state, as in PyTorch. */
  public static final String EXP_AVG = "exp_avg";

  /** The name of the second moment estimate {@code v} in the state, as in PyTorch. */
  public static final String EXP_AVG_SQ = "exp_avg_sq";

  /**
   * The name of the running maximum of {@code v} in the state, with AMSGrad only, as in PyTorch.
   */
  public static final String MAX_EXP_AVG_SQ = "max_exp_avg_sq";

  private final boolean decoupledDecay;
  private double beta1;
  private double beta2;
  private double eps;
  private double weightDecay;
  private boolean amsgrad;

  /**
   * An optimizer with every hyper-parameter given; {@code decoupledDecay} says whether the weight
   * decay scales the parameter (AdamW) rather than adding to the gradient (Adam).
   *
   * @throws IllegalArgumentException for an empty collection, a repeated parameter, a beta outside
   *     {@code [0, 1)} or a negative value
   */
  AdamBase(
      Collection<Parameter> parameters,
      double learningRate,
      double beta1,
      double beta2,
      double eps,
      double weightDecay,
      boolean amsgrad,
      boolean decoupledDecay) {
    super(parameters, learningRate);
    this.decoupledDecay = decoupledDecay;
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
  public S betas(double beta1, double beta2) {
    return configure(beta1, beta2, eps, weightDecay, amsgrad);
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
  public S eps(double eps) {
    return configure(beta1, beta2, eps, weightDecay, amsgrad);
  }

  /**
   * The weight decay {@code λ} (0: none): with {@link Adam}, an L2 penalty added to the gradient;
   * with {@link AdamW}, decoupled, each step scaling the parameter by {@code 1 − γ λ}.
   */
  public double weightDecay() {
    return weightDecay;
  }

  /**
   * Sets the weight decay; returns this.
   *
   * @throws IllegalArgumentException if negative
   */
  public S weightDecay(double weightDecay) {
    return configure(beta1, beta2, eps, weightDecay, amsgrad);
  }

  /** Whether AMSGrad is on. */
  public boolean amsgrad() {
    return amsgrad;
  }

  /** Switches AMSGrad on or off; returns this. */
  public S amsgrad(boolean amsgrad) {
    return configure(beta1, beta2, eps, weightDecay, amsgrad);
  }

  /** Checks all the values before setting any; returns this. */
  private S configure(double beta1, double beta2, double eps, double weightDecay, boolean amsgrad) {
    String name = getClass().getSimpleName();
    HyperParameters.belowOne(name, "beta1", beta1);
    HyperParameters.belowOne(name, "beta2", beta2);
    HyperParameters.nonNegative(name, "eps", eps);
    HyperParameters.nonNegative(name, "weight decay", weightDecay);
    this.beta1 = beta1;
    this.beta2 = beta2;
    this.eps = eps;
    this.weightDecay = weightDecay;
    this.amsgrad = amsgrad;
    @SuppressWarnings("unchecked") // S is the class of this, as Adam and AdamW declare it
    S self = (S) this;
    return self;
  }

  /**
   * The record of the fused update at this parameter's step {@code step}, as the backends receive
   * it.
   */
  final AdamStep stepAt(long step) {
    return new AdamStep(
        learningRate(), beta1, beta2, eps, weightDecay, decoupledDecay, amsgrad, step);
  }

  /**
   * One step of {@code p} in a single fused pass, the weight decay included: creates the moments on
   * the first step (zeros on the parameter's device), then updates {@code p} and its moments in
   * place.
   */
  @Override
  protected final void update(Parameter p, Tensor grad, Map<String, Tensor> state, long step) {
    Tensor expAvg = state.computeIfAbsent(EXP_AVG, k -> Tensor.zerosLike(p));
    Tensor expAvgSq = state.computeIfAbsent(EXP_AVG_SQ, k -> Tensor.zerosLike(p));
    Tensor max = amsgrad ? state.computeIfAbsent(MAX_EXP_AVG_SQ, k -> Tensor.zerosLike(p)) : null;
    OptimizerSteps.adam(p, grad, expAvg, expAvgSq, max, stepAt(step));
  }

  /** The moments, and their running maximum with AMSGrad. */
  @Override
  protected final Set<String> stateNames() {
    return amsgrad ? Set.of(EXP_AVG, EXP_AVG_SQ, MAX_EXP_AVG_SQ) : Set.of(EXP_AVG, EXP_AVG_SQ);
  }

  /**
   * {@code betas} (as {@code 0.9,0.999}), {@code eps}, {@code weight_decay} and {@code amsgrad}.
   */
  @Override
  protected final Map<String, String> hyperParameters() {
    Map<String, String> out = new LinkedHashMap<>();
    out.put("betas", HyperParameters.pair(beta1, beta2));
    out.put("eps", Double.toString(eps));
    out.put("weight_decay", Double.toString(weightDecay));
    out.put("amsgrad", Boolean.toString(amsgrad));
    return out;
  }

  /** Restores the values of {@link #hyperParameters()}, checked together before any is set. */
  @Override
  protected final void setHyperParameters(Map<String, String> values) {
    String name = getClass().getSimpleName();
    double[] betas = HyperParameters.pair(values, name, "betas");
    configure(
        betas[0],
        betas[1],
        HyperParameters.number(values, name, "eps"),
        HyperParameters.number(values, name, "weight_decay"),
        HyperParameters.flag(values, name, "amsgrad"));
  }
}
