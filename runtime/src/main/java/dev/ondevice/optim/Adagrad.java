package dev.ondevice.optim;

import dev.ondevice.Parameter;
import dev.ondevice.Tensor;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Adagrad: PyTorch's {@code torch.optim.Adagrad}, with its defaults (learning rate 0.01, no
 * learning-rate decay, no weight decay, initial accumulator 0, {@code eps} 1e-10) and its update at
 * this parameter's step {@code t} (counted from 1):
 *
 * <pre>
 * g ← grad + weightDecay · p
 * γ ← lr / (1 + (t − 1) · lrDecay)
 * s ← s + g²                        (state "sum", starting at initialAccumulatorValue)
 * p ← p − γ · g / (√s + eps)
 * </pre>
 *
 * Its state lives on each parameter's device, as every optimizer's here; the update never reads a
 * value on the host.
 */
public final class Adagrad extends Optimizer {
  /** The sum of the squared gradients in {@link #state(int)}, PyTorch's name. */
  public static final String SUM = "sum";

  private static final String NAME = "Adagrad";

  private double lrDecay;
  private double weightDecay;
  private double initialAccumulatorValue;
  private double eps = 1e-10;

  /**
   * Adagrad of {@code parameters} with PyTorch's defaults.
   *
   * @throws IllegalArgumentException for an empty collection or a repeated parameter
   */
  public Adagrad(Collection<Parameter> parameters) {
    this(parameters, 0.01);
  }

  /**
   * Adagrad with learning rate {@code learningRate} and PyTorch's other defaults.
   *
   * @throws IllegalArgumentException for an empty collection, a repeated parameter or a negative
   *     learning rate
   */
  public Adagrad(Collection<Parameter> parameters, double learningRate) {
    super(parameters, learningRate);
  }

  /**
   * Sets the learning-rate decay per step; returns this.
   *
   * @throws IllegalArgumentException if negative
   */
  public Adagrad lrDecay(double lrDecay) {
    configure(lrDecay, weightDecay, initialAccumulatorValue, eps);
    return this;
  }

  /**
   * Sets the weight decay; returns this.
   *
   * @throws IllegalArgumentException if negative
   */
  public Adagrad weightDecay(double weightDecay) {
    configure(lrDecay, weightDecay, initialAccumulatorValue, eps);
    return this;
  }

  /**
   * Sets the value the sum of squared gradients starts from, for parameters not yet updated;
   * returns this.
   *
   * @throws IllegalArgumentException if negative
   */
  public Adagrad initialAccumulatorValue(double value) {
    configure(lrDecay, weightDecay, value, eps);
    return this;
  }

  /**
   * Sets the term added to the denominator; returns this.
   *
   * @throws IllegalArgumentException if negative
   */
  public Adagrad eps(double eps) {
    configure(lrDecay, weightDecay, initialAccumulatorValue, eps);
    return this;
  }

  private void configure(
      double lrDecay, double weightDecay, double initialAccumulatorValue, double eps) {
    HyperParameters.nonNegative(NAME, "lr decay", lrDecay);
    HyperParameters.nonNegative(NAME, "weight decay", weightDecay);
    HyperParameters.nonNegative(NAME, "initial accumulator value", initialAccumulatorValue);
    HyperParameters.nonNegative(NAME, "eps", eps);
    this.lrDecay = lrDecay;
    this.weightDecay = weightDecay;
    this.initialAccumulatorValue = initialAccumulatorValue;
    this.eps = eps;
  }

  @Override
  protected void update(Parameter p, Tensor grad, Map<String, Tensor> state, long step) {
    Tensor g = weightDecay == 0 ? grad : grad.add(p.mul(weightDecay));
    double lr = learningRate() / (1 + (step - 1) * lrDecay);
    Tensor sum = state.computeIfAbsent(SUM, k -> Tensor.fullLike(p, initialAccumulatorValue));
    sum.addi(g.square());
    p.addi(g.div(sum.sqrt().add(eps)), -lr);
  }

  /** The sum of squared gradients. */
  @Override
  protected Set<String> stateNames() {
    return Set.of(SUM);
  }

  /**
   * {@code lr_decay}, {@code weight_decay}, {@code initial_accumulator_value} and {@code eps},
   * PyTorch's names.
   */
  @Override
  protected Map<String, String> hyperParameters() {
    Map<String, String> out = new LinkedHashMap<>();
    out.put("lr_decay", Double.toString(lrDecay));
    out.put("weight_decay", Double.toString(weightDecay));
    out.put("initial_accumulator_value", Double.toString(initialAccumulatorValue));
    out.put("eps", Double.toString(eps));
    return out;
  }

  /** Restores the values of {@link #hyperParameters()}, checked together before any is set. */
  @Override
  protected void setHyperParameters(Map<String, String> values) {
    configure(
        HyperParameters.number(values, NAME, "lr_decay"),
        HyperParameters.number(values, NAME, "weight_decay"),
        HyperParameters.number(values, NAME, "initial_accumulator_value"),
        HyperParameters.number(values, NAME, "eps"));
  }
}
