package dev.ondevice.processor.analysis;

import java.util.HashMap;
import java.util.Map;
import javax.lang.model.element.Element;

/** The abstract values of local variables at one program point; unreachable after return, break, throw. */
final class Env {
  private final Map<Element, Value> values;
  private final boolean reachable;

  private Env(Map<Element, Value> values, boolean reachable) {
    this.values = values;
    this.reachable = reachable;
  }

  static Env start() {
    return new Env(new HashMap<>(), true);
  }

  static Env unreachable() {
    return new Env(new HashMap<>(), false);
  }

  boolean reachable() {
    return reachable;
  }

  Env copy() {
    return new Env(new HashMap<>(values), reachable);
  }

  /** The value of a variable, or null when not tracked. */
  Value get(Element variable) {
    return values.get(variable);
  }

  void put(Element variable, Value value) {
    values.put(variable, value);
  }

  /** Applies {@code f} to every value (after a synchronisation, say). */
  void replaceAll(java.util.function.UnaryOperator<Value> f) {
    values.replaceAll((k, v) -> f.apply(v));
  }

  /**
   * The merge of two control-flow paths. A variable known on one path only was declared inside it
   * (a branch or a loop body), is out of scope where the paths meet, and is dropped: so a loop
   * whose body only declares its own locals reaches its fixed point in one pass.
   */
  Env join(Env other) {
    if (!other.reachable) {
      return copy();
    }
    if (!reachable) {
      return other.copy();
    }
    Map<Element, Value> joined = new HashMap<>();
    for (Map.Entry<Element, Value> e : values.entrySet()) {
      Value o = other.values.get(e.getKey());
      if (o != null) {
        joined.put(e.getKey(), e.getValue().join(o));
      }
    }
    return new Env(joined, true);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Env env && env.reachable == reachable && env.values.equals(values);
  }

  @Override
  public int hashCode() {
    return values.hashCode();
  }
}
