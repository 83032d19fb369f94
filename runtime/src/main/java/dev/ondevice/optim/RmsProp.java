package dev.ondevice.optim;

import dev.ondevice.Parameter;
import dev.ondevice.Tensor;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * RMSprop: PyTorch's {@code torch.optim.RMSprop}, with its defaults (learning rate 0.01, {@code
 * alpha} 0.99, {@code eps} 1e-8, no momentum, not centered, no weight decay) and its update:
 *
 * <pre>
 * g ← grad + weightDecay · p
 * v ← alpha · v + (1 − alpha) · g²                         (state "square_avg")
 * m ← alpha · m + (1 − alpha) · g       if centered        (state "grad_avg")
 * d ← √(v − m²) + eps  if centered, else √v + eps
 * b ← momentum · b + g / d, p ← p − lr · b   if momentum > 0  (state "momentum_buffer")
 * p ← p − lr · g / d                         otherwise
 * </pre>
 *
 * Its state lives on each parameter's device, as every optimizer's here; the update never reads a
 * value on the host.
 */
public final class RmsProp extends Optimizer {
  /** The running average of the squared gradient in {@link #state(int)}, PyTorch's name. */
  public static final String SQUARE_AVG = "square_avg";

  /** The running average of the gradient, when centered. */
  public static final String GRAD_AVG = "grad_avg";

  /** The momentum buffer, when the momentum is positive. */
  public static final String MOMENTUM_BUFFER = "momentum_buffer";

  private static final String NAME = "RmsProp";

  private double alpha = 0.99;
  private double eps = 1e-8;
  private double momentum;
  private double weightDecay;
  private boolean centered;

  /**
   * RMSprop of {@code parameters} with PyTorch's defaults.
   *
   * @throws IllegalArgumentException for an empty collection or a repeated parameter
   */
  public RmsProp(Collection<Parameter> parameters) {
    this(parameters, 0.01);
  }

  /**
   * RMSprop with learning rate {@code learningRate} and PyTorch's other defaults.
   *
   * @throws IllegalArgumentException for an empty collection, a repeated parameter or a negative
   *     learning rate
   */
  public RmsProp(Collection<Parameter> parameters, double learningRate) {
    super(parameters, learningRate);
  }

  /**
   * Sets the smoothing constant; returns this.
   *
   * @throws IllegalArgumentException if negative
   */
  public RmsProp alpha(double alpha) {
    configure(alpha, eps, momentum, weightDecay, centered);
    return this;
  }

  /**
   * Sets the term added to the denominator; returns this.
   *
   * @throws IllegalArgumentException if negative
   */
  public RmsProp eps(double eps) {
    configure(alpha, eps, momentum, weightDecay, centered);
    return this;
  }

  /**
   * Sets the momentum; returns this.
   *
   * @throws IllegalArgumentException if negative
   */
  public RmsProp momentum(double momentum) {
    configure(alpha, eps, momentum, weightDecay, centered);
    return this;
  }

  /**
   * Sets the weight decay; returns this.
   *
   * @throws IllegalArgumentException if negative
   */
  public RmsProp weightDecay(double weightDecay) {
    configure(alpha, eps, momentum, weightDecay, centered);
    return this;
  }

  /**
   * Normalises by the estimated variance of the gradient instead of its second moment; returns
   * this.
   */
  public RmsProp centered(boolean centered) {
    configure(alpha, eps, momentum, weightDecay, centered);
    return this;
  }

  private void configure(
      double alpha, double eps, double momentum, double weightDecay, boolean centered) {
    HyperParameters.nonNegative(NAME, "alpha", alpha);
    HyperParameters.nonNegative(NAME, "eps", eps);
    HyperParameters.nonNegative(NAME, "momentum", momentum);
    HyperParameters.nonNegative(NAME, "weight decay", weightDecay);
    this.alpha = alpha;
    this.eps = eps;
    this.momentum = momentum;
    this.weightDecay = weightDecay;
    this.centered = centered;
  }

  @Override
  protected void update(Parameter p, Tensor grad, Map<String, Tensor> state, long step) {
    Tensor g = weightDecay == 0 ? grad : grad.add(p.mul(weightDecay));
    Tensor squareAvg = state.computeIfAbsent(SQUARE_AVG, k -> Tensor.zerosLike(p));
    squareAvg.muli(alpha).addi(g.square(), 1 - alpha);
    Tensor denominator;
    if (centered) {
      Tensor gradAvg = state.computeIfAbsent(GRAD_AVG, k -> Tensor.zerosLike(p));
      gradAvg.muli(alpha).addi(g, 1 - alpha);
      denominator = squareAvg.sub(gradAvg.square()).sqrt().add(eps);
    } else {
      denominator = squareAvg.sqrt().add(eps);
    }
    if (momentum > 0) {
      Tensor buffer = state.computeIfAbsent(MOMENTUM_BUFFER, k -> Tensor.zerosLike(p));
      buffer.muli(momentum).addi(g.div(denominator));
      p.addi(buffer, -learningRate());
    } else {
      p.addi(g.div(denominator), -learningRate());
    }
  }

  /** The square average; the gradient average when centered; the buffer with momentum. */
  @Override
  protected Set<String> stateNames() {
    Set<String> names = new TreeSet<>();
    names.add(SQUARE_AVG);
    if (centered) {
      names.add(GRAD_AVG);
    }
    if (momentum > 0) {
      names.add(MOMENTUM_BUFFER);
    }
    return names;
  }

  /**
   * {@code alpha}, {@code eps}, {@code momentum}, {@code weight_decay} and {@code centered},
   * PyTorch's names.
   */
  @Override
  protected Map<String, String> hyperParameters() {
    Map<String, String> out = new LinkedHashMap<>();
    out.put("alpha", Double.toString(alpha));
    out.put("eps", Double.toString(eps));
    out.put("momentum", Double.toString(momentum));
    out.put("weight_decay", Double.toString(weightDecay));
    out.put("centered", Boolean.toString(centered));
    return out;
  }

  /** Restores the values of {@link #hyperParameters()}, checked together before any is set. */
  @Override
  protected void setHyperParameters(Map<String, String> values) {
    configure(
        HyperParameters.number(values, NAME, "alpha"),
        HyperParameters.number(values, NAME, "eps"),
        HyperParameters.number(values, NAME, "momentum"),
        HyperParameters.number(values, NAME, "weight_decay"),
        HyperParameters.flag(values, NAME, "centered"));
  }
}
