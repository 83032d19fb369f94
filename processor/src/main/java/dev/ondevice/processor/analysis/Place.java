package dev.ondevice.processor.analysis;

import java.util.Objects;
import javax.lang.model.element.TypeElement;
import javax.lang.model.element.VariableElement;

/**
 * The abstract device of a value: nothing yet, the CPU, a fixed device ({@code cuda:0}), a symbolic
 * device (the value of a {@code Device} variable, or the device of a model), the CPU or one device
 * depending on the path taken ({@code if (useGpu) x = x.to(device);}), or unknown. Unknown never
 * causes a finding; a place by path only a possible one.
 */
final class Place {
  enum Kind {
    NONE,
    CPU,
    FIXED,
    SYMBOL,
    /**
     * The CPU on some paths, the device its key holds (a fixed or symbolic place) on the others.
     */
    BY_PATH,
    UNKNOWN
  }

  /** How sure a conflict between two places is. */
  enum Conflict {
    NONE,
    POSSIBLE,
    CERTAIN
  }

  static final Place NONE = new Place(Kind.NONE, null, null);
  static final Place CPU = new Place(Kind.CPU, "cpu", null);
  static final Place UNKNOWN = new Place(Kind.UNKNOWN, null, null);

  private final Kind kind;
  private final String name;
  private final Object key;

  /**
   * Whether this symbolic device reached the method through its callers' arguments ({@link
   * CallSites}): the callers' variables may hold the same device as the method's own under another
   * name, so a difference from another symbolic device is not even possible enough to report.
   */
  private final boolean throughCalls;

  /**
   * For the CPU: the parameter of the method being interpreted that a caller gave this tensor as
   * ({@link #givenAs}), or -1. Not part of the place's identity.
   */
  private final int parameter;

  private Place(Kind kind, String name, Object key) {
    this(kind, name, key, false, -1);
  }

  private Place(Kind kind, String name, Object key, boolean throughCalls, int parameter) {
    this.kind = kind;
    this.name = name;
    this.key = key;
    this.throughCalls = throughCalls;
    this.parameter = parameter;
  }

  /**
   * The same place, come through the callers' arguments (see {@link #throughCalls}), or from a
   * method called: the CPU without the parameter it was given as there.
   */
  Place throughCalls() {
    return kind == Kind.SYMBOL && !throughCalls
        ? new Place(kind, name, key, true, -1)
        : withoutCaller();
  }

  /** The same place, without the parameter a caller gave it as ({@link #givenAs}). */
  Place withoutCaller() {
    return parameter >= 0 ? CPU : this;
  }

  /**
   * The same place, given by the callers as parameter {@code index} of the method interpreted: the
   * CPU so given is the callers' to move where the method needs it ({@link CallResults}); a
   * symbolic device comes {@link #throughCalls}.
   */
  Place givenAs(int index) {
    return kind == Kind.CPU ? new Place(kind, name, key, true, index) : throughCalls();
  }

  /** The parameter a caller gave this CPU tensor as ({@link #givenAs}), or -1. */
  int givenParameter() {
    return parameter;
  }

  /** A fixed device from its string ({@code cpu} gives the CPU). */
  static Place fixed(String device) {
    return device.equals("cpu") ? CPU : new Place(Kind.FIXED, device, device);
  }

  /** A device known only at run time, identified by {@code key}, described as {@code name}. */
  static Place symbol(Object key, String name) {
    return new Place(Kind.SYMBOL, name, key);
  }

  Kind kind() {
    return kind;
  }

  boolean isKnown() {
    return kind == Kind.CPU || kind == Kind.FIXED || kind == Kind.SYMBOL;
  }

  /**
   * Whether this is a device the method being analysed fixes or chooses itself: the CPU, a fixed
   * device, or a symbolic device it chose at run time ({@code Device.parse(args[0])}, a {@code
   * ?:}), not the device of a parameter, a field or a model.
   */
  boolean isChoiceInMethod() {
    return kind == Kind.CPU
        || kind == Kind.FIXED
        || (kind == Kind.SYMBOL
            && !(key instanceof VariableElement)
            && !(key instanceof TypeElement));
  }

  /** The same place under another description (a symbolic device named after its variable). */
  Place named(String newName) {
    return kind == Kind.SYMBOL ? new Place(kind, newName, key, throughCalls, -1) : this;
  }

  String name() {
    return name;
  }

  Place join(Place other) {
    if (kind == Kind.NONE) {
      return other;
    }
    if (other.kind == Kind.NONE || equals(other)) {
      return this;
    }
    return UNKNOWN;
  }

  /**
   * The join of two paths of a choice ({@code if}, {@code switch}) for a tensor: the CPU on one and
   * a device on the other is {@link Kind#BY_PATH}; anything else is {@link #join}. Loops do not use
   * it: a value before the loop and another after its first iteration are not a choice.
   */
  static Place chosen(Place a, Place b) {
    Place device = a.kind == Kind.CPU ? b : b.kind == Kind.CPU ? a : null;
    if (device != null && (device.kind == Kind.FIXED || device.kind == Kind.SYMBOL)) {
      return new Place(
          Kind.BY_PATH, "the CPU or " + device.describe() + ", by the path taken", device);
    }
    return a.join(b);
  }

  /** Whether two places are provably different (certain) or may differ at run time (possible). */
  static Conflict conflict(Place a, Place b) {
    if (a.kind == Kind.BY_PATH || b.kind == Kind.BY_PATH) {
      // On the CPU on one path and on the device on another: either meets the CPU or that device
      // on some path. Anything else is too little known.
      boolean first = a.kind == Kind.BY_PATH;
      Place path = first ? a : b;
      Place other = first ? b : a;
      return other.kind == Kind.CPU || path.key.equals(other) ? Conflict.POSSIBLE : Conflict.NONE;
    }
    if (!a.isKnown() || !b.isKnown() || a.equals(b)) {
      return Conflict.NONE;
    }
    if ((a.throughCalls || b.throughCalls) && a.kind != Kind.CPU && b.kind != Kind.CPU) {
      return Conflict.NONE; // the device a caller named, and one named here: likely the same
    }
    if (a.kind == Kind.SYMBOL && b.kind == Kind.SYMBOL) {
      return Conflict.POSSIBLE;
    }
    if ((a.kind == Kind.SYMBOL && b.kind == Kind.FIXED)
        || (a.kind == Kind.FIXED && b.kind == Kind.SYMBOL)) {
      return Conflict.POSSIBLE;
    }
    return Conflict.CERTAIN;
  }

  /** For messages: {@code cpu}, {@code cuda:0}, or the symbolic device's description. */
  String describe() {
    return switch (kind) {
      case CPU -> "the CPU";
      case FIXED -> name;
      case SYMBOL, BY_PATH -> name;
      default -> "an unknown device";
    };
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof Place p)) {
      return false;
    }
    return p.kind == kind && Objects.equals(p.key, key);
  }

  @Override
  public int hashCode() {
    return Objects.hash(kind, key);
  }

  @Override
  public String toString() {
    return kind + (name == null ? "" : "(" + name + ")");
  }
}
