package dev.ondevice.optim;

import dev.ondevice.OptimizerSteps;
import dev.ondevice.OptimizerSteps.SgdStep;
import dev.ondevice.Parameter;
import dev.ondevice.Tensor;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Stochastic gradient descent, optionally with momentum, dampening, weight decay (L2) and Nesterov
 * momentum: PyTorch's {@code torch.optim.SGD}, whose update it follows exactly. For a parameter
 * {@code θ} with gradient {@code g}, learning rate {@code γ}, momentum {@code μ}, dampening {@code
 * τ} and weight decay {@code λ}:
 *
 * <pre>
 * g ← g + λ θ                                   if λ ≠ 0
 * if μ ≠ 0:
 *   b ← g                    on the first step   (state "momentum_buffer", a copy)
 *   b ← μ b + (1 − τ) g      afterwards
 *   g ← g + μ b   if nesterov,   else g ← b
 * θ ← θ − γ g
 * </pre>
 *
 * <pre>{@code
 * Sgd sgd = new Sgd(model.parameters(), 0.05).momentum(0.9).weightDecay(1e-4).nesterov(true);
 * }</pre>
 *
 * <p>The setters validate as PyTorch's constructor does; Nesterov momentum needs a positive
 * momentum and zero dampening, so set the momentum first. The update runs on each parameter's
 * device, in place, and never waits for the device.
 */
public final class Sgd extends Optimizer {
  /** The name of the momentum buffer in {@link #state(int)} and the state dict, as in PyTorch. */
  public static final String MOMENTUM_BUFFER = "momentum_buffer";

  private static final String NAME = "Sgd";

  private double momentum;
  private double dampening;
  private double weightDecay;
  private boolean nesterov;

  /**
   * Plain gradient descent of {@code parameters} with learning rate {@code learningRate}: no
   * momentum, dampening or weight decay until set.
   *
   * @throws IllegalArgumentException for an empty collection, a repeated parameter or a negative
   *     learning rate
   */
  public Sgd(Collection<Parameter> parameters, double learningRate) {
    super(parameters, learningRate);
  }

  /**
   * SGD with every hyper-parameter given, checked together (as {@code torch.optim.SGD(params, lr,
   * momentum, dampening, weight_decay, nesterov)}).
   *
   * @throws IllegalArgumentException for a negative value, or Nesterov momentum without a positive
   *     momentum and zero dampening
   */
  public Sgd(
      Collection<Parameter> parameters,
      double learningRate,
      double momentum,
      double dampening,
      double weightDecay,
      boolean nesterov) {
    super(parameters, learningRate);
    configure(momentum, dampening, weightDecay, nesterov);
  }

  /** The momentum factor {@code μ} (0: none). */
  public double momentum() {
    return momentum;
  }

  /**
   * Sets the momentum factor; returns this.
   *
   * @throws IllegalArgumentException if negative, or 0 while Nesterov momentum is on
   */
  public Sgd momentum(double momentum) {
    configure(momentum, dampening, weightDecay, nesterov);
    return this;
  }

  /** The dampening {@code τ} of the momentum (0: none). */
  public double dampening() {
    return dampening;
  }

  /**
   * Sets the dampening of the momentum; returns this.
   *
   * @throws IllegalArgumentException if negative, or non-zero while Nesterov momentum is on
   */
  public Sgd dampening(double dampening) {
    configure(momentum, dampening, weightDecay, nesterov);
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
  public Sgd weightDecay(double weightDecay) {
    configure(momentum, dampening, weightDecay, nesterov);
    return this;
  }

  /** Whether Nesterov momentum is on. */
  public boolean nesterov() {
    return nesterov;
  }

  /**
   * Switches Nesterov momentum on or off; returns this.
   *
   * @throws IllegalArgumentException when switching it on without a positive momentum and zero
   *     dampening
   */
  public Sgd nesterov(boolean nesterov) {
    configure(momentum, dampening, weightDecay, nesterov);
    return this;
  }

  private void configure(double momentum, double dampening, double weightDecay, boolean nesterov) {
    HyperParameters.nonNegative(NAME, "momentum", momentum);
    HyperParameters.nonNegative(NAME, "dampening", dampening);
    HyperParameters.nonNegative(NAME, "weight decay", weightDecay);
    if (nesterov && (momentum <= 0 || dampening != 0)) {
      throw new IllegalArgumentException(
          NAME
              + ": Nesterov momentum requires a momentum > 0 and zero dampening, got"
              + " momentum "
              + momentum
              + " and dampening "
              + dampening
              + " (set the momentum before nesterov)");
    }
    this.momentum = momentum;
    this.dampening = dampening;
    this.weightDecay = weightDecay;
    this.nesterov = nesterov;
  }

  /**
   * One SGD step of {@code p}, fused into one pass over the parameter, its gradient and its buffer.
   */
  @Override
  protected void update(Parameter p, Tensor grad, Map<String, Tensor> state, long step) {
    Tensor buffer = momentum == 0 ? null : state.get(MOMENTUM_BUFFER);
    boolean first = momentum != 0 && buffer == null;
    if (first) {
      buffer = Tensor.emptyLike(p);
    }
    OptimizerSteps.sgd(
        p,
        grad,
        buffer,
        new SgdStep(learningRate(), momentum, dampening, weightDecay, nesterov, first));
    if (first) {
      state.put(MOMENTUM_BUFFER, buffer);
    }
  }

  /** The momentum buffer, with momentum only. */
  @Override
  protected Set<String> stateNames() {
    return momentum == 0 ? Set.of() : Set.of(MOMENTUM_BUFFER);
  }

  /**
   * {@code momentum}, {@code dampening}, {@code weight_decay} and {@code nesterov}, PyTorch's
   * names.
   */
  @Override
  protected Map<String, String> hyperParameters() {
    Map<String, String> out = new LinkedHashMap<>();
    out.put("momentum", Double.toString(momentum));
    out.put("dampening", Double.toString(dampening));
    out.put("weight_decay", Double.toString(weightDecay));
    out.put("nesterov", Boolean.toString(nesterov));
    return out;
  }

  /** Restores the values of {@link #hyperParameters()}, checked together before any is set. */
  @Override
  protected void setHyperParameters(Map<String, String> values) {
    configure(
        HyperParameters.number(values, NAME, "momentum"),
        HyperParameters.number(values, NAME, "dampening"),
        HyperParameters.number(values, NAME, "weight_decay"),
        HyperParameters.flag(values, NAME, "nesterov"));
  }
}
