package dev.ondevice.optim;

import dev.ondevice.Autograd;
import dev.ondevice.Parameter;
import dev.ondevice.Tensor;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The base of optimizers: a list of parameters, a learning rate, and per-parameter state that lives
 * on each parameter's device.
 *
 * <p>Parameters keep their identity when a model moves ({@code model.toDevice}), so an optimizer
 * built before the move still updates them; its state follows with one call, {@link
 * #followParameters()}. Loading a state dict puts every state tensor on its parameter's device, as
 * PyTorch does.
 */
public abstract class Optimizer {
  private static final String TYPE = "type";
  private static final String LEARNING_RATE = "lr";
  private static final String STEPS = "steps";

  private final List<Parameter> parameters;
  private final List<Map<String, Tensor>> state;
  private final long[] parameterSteps;
  private double learningRate;

  /** The rate when the first scheduler was attached (PyTorch's {@code initial_lr}); NaN before. */
  private double initialLearningRate = Double.NaN;

  /**
   * An optimizer of {@code parameters} (each once) with learning rate {@code learningRate}.
   *
   * @throws IllegalArgumentException for an empty collection, a repeated parameter or a learning
   *     rate that is not a finite number {@code >= 0}
   */
  protected Optimizer(Collection<Parameter> parameters, double learningRate) {
    if (parameters.isEmpty()) {
      throw new IllegalArgumentException(
          getClass().getSimpleName() + ": the parameter list is empty");
    }
    Set<Parameter> seen = Collections.newSetFromMap(new IdentityHashMap<>());
    for (Parameter p : parameters) {
      if (!seen.add(p)) {
        throw new IllegalArgumentException(
            getClass().getSimpleName()
                + ": a parameter appears more than once; pass model.parameters(), which lists each once");
      }
    }
    this.parameters = List.copyOf(parameters);
    this.state = new ArrayList<>();
    for (int i = 0; i < this.parameters.size(); i++) {
      state.add(new LinkedHashMap<>());
    }
    this.parameterSteps = new long[this.parameters.size()];
    setLearningRate(learningRate);
  }

  /** The parameters, in the order given. */
  public final List<Parameter> parameters() {
    return parameters;
  }

  /** The learning rate. */
  public final double learningRate() {
    return learningRate;
  }

  /**
   * The learning rate schedules start from: the rate when the first {@link LrScheduler} of this
   * optimizer was created (PyTorch's {@code initial_lr}), so that a second one (a cosine after a
   * warm-up) starts from the same base, not from the rate the first one set.
   */
  final double initialLearningRate() {
    if (Double.isNaN(initialLearningRate)) {
      initialLearningRate = learningRate;
    }
    return initialLearningRate;
  }

  /**
   * Sets the learning rate (schedulers call this).
   *
   * @throws IllegalArgumentException if it is not a finite number {@code >= 0} (an infinite rate
   *     turns every parameter into NaN at the next step)
   */
  public final void setLearningRate(double learningRate) {
    this.learningRate =
        HyperParameters.nonNegative(getClass().getSimpleName(), "the learning rate", learningRate);
  }

  /**
   * Clears every parameter's gradient (sets it to null, as PyTorch's default) with {@link
   * Parameter#clearGrad}: the memory of gradients that backward made goes back to the allocator at
   * once, and a gradient tensor kept from before throws on use (clone it to keep it).
   */
  public final void zeroGrad() {
    for (Parameter p : parameters) {
      p.clearGrad();
    }
  }

  /**
   * Updates every parameter that has a gradient, without recording the graph.
   *
   * @throws IllegalStateException if a parameter's state is on another device than the parameter
   *     (the model moved; call {@link #followParameters()}); nothing is updated then
   */
  public final void step() {
    for (int i = 0; i < parameters.size(); i++) {
      checkStateDevice(i, parameters.get(i));
    }
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      for (int i = 0; i < parameters.size(); i++) {
        Parameter p = parameters.get(i);
        Tensor grad = p.grad();
        if (grad != null) {
          parameterSteps[i]++;
          update(p, grad, state.get(i), parameterSteps[i]);
        }
      }
    }
  }

  /** Fails clearly, before anything changes, when parameter {@code i} moved without its state. */
  private void checkStateDevice(int i, Parameter p) {
    for (Map.Entry<String, Tensor> e : state.get(i).entrySet()) {
      if (!e.getValue().device().equals(p.device())) {
        throw new IllegalStateException(
            getClass().getSimpleName()
                + ": state '"
                + e.getKey()
                + "' of parameter "
                + i
                + " is on "
                + e.getValue().device()
                + " but the parameter is on "
                + p.device()
                + "; call followParameters() after moving the model");
      }
    }
  }

  /**
   * Updates one parameter in place from its gradient. {@code state} holds this parameter's state
   * tensors, on its device, by name; {@code step} counts this parameter's updates from 1.
   */
  protected abstract void update(Parameter p, Tensor grad, Map<String, Tensor> state, long step);

  /**
   * The names of the state tensors a parameter has once it has been updated, under the current
   * hyper-parameters ({@code exp_avg} and {@code exp_avg_sq} for Adam; none for plain SGD). A
   * strict {@link #loadStateDict} requires exactly these for each parameter saved after its first
   * step, and none for one saved before it.
   */
  protected abstract Set<String> stateNames();

  /** The hyper-parameters other than the learning rate, by name, for the state dict. */
  protected abstract Map<String, String> hyperParameters();

  /**
   * Restores hyper-parameters saved by {@link #hyperParameters()} ({@code values} holds the whole
   * metadata). Implementations check every value before changing any.
   *
   * @throws IllegalArgumentException naming a missing or invalid value
   */
  protected abstract void setHyperParameters(Map<String, String> values);

  /** Moves every state tensor to its parameter's current device: call it after moving the model. */
  public final void followParameters() {
    for (int i = 0; i < parameters.size(); i++) {
      Map<String, Tensor> s = state.get(i);
      for (Map.Entry<String, Tensor> e : s.entrySet()) {
        e.setValue(e.getValue().to(parameters.get(i).device()));
      }
    }
  }

  /** The state tensors of parameter {@code index}, by name (read-only view). */
  public final Map<String, Tensor> state(int index) {
    return Collections.unmodifiableMap(state.get(index));
  }

  /**
   * The type, hyper-parameters, step counts and state tensors, to save. Tensors are shared, not
   * copied.
   */
  public final OptimizerState stateDict() {
    Map<String, Tensor> tensors = new LinkedHashMap<>();
    Map<String, String> metadata = new LinkedHashMap<>();
    metadata.put(TYPE, getClass().getSimpleName());
    metadata.put(LEARNING_RATE, Double.toString(learningRate));
    metadata.putAll(hyperParameters());
    for (int i = 0; i < parameters.size(); i++) {
      metadata.put("state." + i + "." + STEPS, Long.toString(parameterSteps[i]));
      for (Map.Entry<String, Tensor> e : state.get(i).entrySet()) {
        tensors.put("state." + i + "." + e.getKey(), e.getValue().detach());
      }
    }
    return new OptimizerState(tensors, metadata);
  }

  /**
   * Restores a state saved by {@link #stateDict()} of the same type with the same parameters,
   * strictly: every state tensor is checked (name, shape and dtype against its parameter) and
   * copied onto its parameter's device. A parameter saved after its first step must have exactly
   * the state tensors {@link #stateNames()} lists under the saved hyper-parameters, one saved
   * before it none: a missing moment would silently restart at zero, an unknown one would be kept
   * and saved again.
   *
   * @throws IllegalArgumentException naming what does not match (type, parameter count, a missing
   *     or unexpected state tensor, a state tensor's shape or dtype, a hyper-parameter that is not
   *     a finite number); nothing is changed then
   */
  public final void loadStateDict(OptimizerState saved) {
    String type = saved.metadata().get(TYPE);
    String name = getClass().getSimpleName();
    if (!name.equals(type)) {
      throw new IllegalArgumentException(
          "loadStateDict: the state is of a " + type + " optimizer, this is a " + name);
    }
    double savedLearningRate = parseNumber(saved.metadata(), LEARNING_RATE);
    HyperParameters.nonNegative(
        "loadStateDict: " + name, "the saved learning rate", savedLearningRate);
    long[] steps = new long[parameters.size()];
    for (int i = 0; i < parameters.size(); i++) {
      String key = "state." + i + "." + STEPS;
      if (!saved.metadata().containsKey(key)) {
        throw new IllegalArgumentException(
            "loadStateDict: the state has no entry for parameter "
                + i
                + " of "
                + parameters.size()
                + "; was it saved from an optimizer of other parameters?");
      }
      steps[i] = parseCount(saved.metadata().get(key), key);
    }
    if (saved.metadata().containsKey("state." + parameters.size() + "." + STEPS)) {
      throw new IllegalArgumentException(
          "loadStateDict: the state has more parameters than the "
              + parameters.size()
              + " of this optimizer");
    }
    Map<String, String> current = hyperParameters();
    setHyperParameters(saved.metadata());
    List<Map<String, Tensor>> loaded;
    try {
      loaded = StateTensors.check(name, parameters, steps, stateNames(), saved.tensors());
    } catch (IllegalArgumentException e) {
      setHyperParameters(current);
      throw e;
    }
    setLearningRate(savedLearningRate);
    for (int i = 0; i < parameters.size(); i++) {
      state.set(i, loaded.get(i));
    }
    System.arraycopy(steps, 0, parameterSteps, 0, steps.length);
  }

  private static double parseNumber(Map<String, String> metadata, String key) {
    String value = metadata.get(key);
    if (value == null) {
      throw new IllegalArgumentException("loadStateDict: the state has no '" + key + "'");
    }
    try {
      return Double.parseDouble(value);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "loadStateDict: '" + key + "' is not a number: " + value, e);
    }
  }

  private static long parseCount(String value, String key) {
    try {
      long count = Long.parseLong(value);
      if (count >= 0) {
        return count;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new IllegalArgumentException(
        "loadStateDict: '" + key + "' must be a whole number >= 0, got " + value);
  }
}
