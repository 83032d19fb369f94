package dev.ondevice.processor.analysis;

import java.util.Arrays;
import javax.lang.model.element.Element;

/**
 * The abstract values of local variables at one program point; unreachable after return, break,
 * throw.
 *
 * <p>A method has few locals in scope at once, so the variables are kept in two small arrays,
 * searched by identity (javac's symbols are compared by identity anyway), and shared between copies
 * until one of them is written: the interpretation copies an environment at every branch and loop,
 * and most copies are never written.
 */
final class Env {
  private static final Element[] NO_VARIABLES = new Element[0];
  private static final Value[] NO_VALUES = new Value[0];

  private Element[] variables;
  private Value[] values;
  private int size;

  /**
   * Whether the arrays may be shared with another environment, which a write must then not touch.
   */
  private boolean shared;

  private final boolean reachable;

  private Env(Element[] variables, Value[] values, int size, boolean shared, boolean reachable) {
    this.variables = variables;
    this.values = values;
    this.size = size;
    this.shared = shared;
    this.reachable = reachable;
  }

  static Env start() {
    return new Env(NO_VARIABLES, NO_VALUES, 0, true, true);
  }

  static Env unreachable() {
    return new Env(NO_VARIABLES, NO_VALUES, 0, true, false);
  }

  boolean reachable() {
    return reachable;
  }

  Env copy() {
    shared = true;
    return new Env(variables, values, size, true, reachable);
  }

  private int indexOf(Element variable) {
    for (int i = 0; i < size; i++) {
      if (variables[i] == variable) {
        return i;
      }
    }
    return -1;
  }

  /** The number of variables tracked. */
  int size() {
    return size;
  }

  /** The variable at {@code i}, {@code 0 <= i < size()}, in no particular order. */
  Element variableAt(int i) {
    return variables[i];
  }

  /** The value of the variable at {@code i}. */
  Value valueAt(int i) {
    return values[i];
  }

  /** The value of a variable, or null when not tracked. */
  Value get(Element variable) {
    int i = indexOf(variable);
    return i < 0 ? null : values[i];
  }

  void put(Element variable, Value value) {
    int i = indexOf(variable);
    boolean full = i < 0 && size == variables.length;
    if (shared || full) {
      int capacity = full ? Math.max(8, size * 2) : variables.length;
      variables = Arrays.copyOf(variables, capacity);
      values = Arrays.copyOf(values, capacity);
      shared = false;
    }
    if (i < 0) {
      i = size++;
      variables[i] = variable;
    }
    values[i] = value;
  }

  /**
   * Forgets every pending non-blocking copy to the host: after a synchronisation they have
   * completed.
   */
  void completePendingHostCopies() {
    for (int i = 0; i < size; i++) {
      if (values[i].pendingHostCopy()) {
        put(variables[i], values[i].withPendingHostCopy(false));
      }
    }
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
    Element[] joinedVariables = new Element[size];
    Value[] joinedValues = new Value[size];
    int n = 0;
    for (int i = 0; i < size; i++) {
      Value o = other.get(variables[i]);
      if (o != null) {
        joinedVariables[n] = variables[i];
        joinedValues[n++] = values[i].join(o);
      }
    }
    return new Env(joinedVariables, joinedValues, n, false, true);
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof Env env) || env.reachable != reachable || env.size != size) {
      return false;
    }
    for (int i = 0; i < size; i++) {
      if (!values[i].equals(env.get(variables[i]))) {
        return false;
      }
    }
    return true;
  }

  @Override
  public int hashCode() {
    int h = 0;
    for (int i = 0; i < size; i++) {
      h += System.identityHashCode(variables[i]) ^ values[i].hashCode();
    }
    return h;
  }
}
