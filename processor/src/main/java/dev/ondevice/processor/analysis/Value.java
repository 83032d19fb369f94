package dev.ondevice.processor.analysis;

import com.sun.source.tree.Tree;
import com.sun.source.util.TreePath;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.BiPredicate;

/**
 * The abstract value of an expression: its device, and what else the checks need to know (0-dim,
 * pinned memory, a pending non-blocking copy to the host, where the value came from, whether it is
 * a model that was never moved), and for an array made with its elements ({@code new Tensor[] {mu,
 * logVar}}, Python's tuple returned) where each element is. Immutable.
 */
final class Value {
  /** Where a tensor came from, for the checks with their own message. */
  enum Origin {
    NONE,
    /** A factory without a device, inside a model class. */
    DEFAULT_DEVICE_FACTORY,
    /**
     * A factory without a device, inside a model class, whose tensor this is on some paths only
     * ({@code if (h == null) h = Tensor.zeros(b, n);}): a join with a tensor from elsewhere.
     */
    DEFAULT_DEVICE_FACTORY_ON_SOME_PATHS,
    /** A data loader batch, not moved. */
    BATCH,
    /** A static tensor field. */
    STATIC_CONSTANT,
    /** A model created on the CPU and never moved. */
    UNMOVED_MODEL,
    /**
     * A model moved, then given a new part made on the CPU ({@code model.fc = new Linear(512, 10);}
     * after {@code model.toDevice(device)}): that part is on the CPU until the model moves again.
     * The origin's name is the field replaced.
     */
    REPLACED_PART,
    /** An iterator over batches, from a {@code @BatchSource} ({@code loader.iterator()}). */
    BATCH_ITERATOR,
    /**
     * The output of a model whose device is not known, taken to be on the device of its inputs: so
     * a single-device model's is, but a model split over devices may return it on another.
     */
    MODEL_OUTPUT,
    /**
     * A field pinned to the CPU with {@code @OnDevice("cpu")}: it stays there when its model moves.
     */
    PINNED_CPU,
    /**
     * A tensor field of a plain object that starts on the CPU and is only ever replaced by values
     * computed from itself ({@link CpuAccumulators}): the path is its initializer, the name the
     * field's.
     */
    CPU_ACCUMULATOR,
    /**
     * A tensor a move or factory put on a final {@code Device} field that every object of its class
     * made in the file holds as the CPU by its constructors' choice ({@link ConstructedDevices}):
     * the path is that move or factory, the name the field's. It keeps this origin through the
     * calls that return it.
     */
    CPU_BY_CONSTRUCTION
  }

  /** Three-valued: yes, no, or don't know. */
  enum Tri {
    YES,
    NO,
    MAYBE;

    Tri join(Tri other) {
      return this == other ? this : MAYBE;
    }
  }

  /**
   * A tensor put into a container, where it was written and what it was: the container remembers
   * one put on the CPU and one on a device ({@link #withPut}).
   */
  record Put(TreePath at, Value value) {}

  /** How many tensors put on the CPU a container remembers. */
  private static final int MAX_CPU_PUTS = 8;

  /** How many factories that made a CPU tensor a value remembers. */
  private static final int MAX_MADE_AT = 4;

  static final Value UNKNOWN =
      new Value(
          Place.UNKNOWN,
          false,
          Tri.MAYBE,
          false,
          Origin.NONE,
          null,
          null,
          null,
          List.of(),
          null,
          List.of());

  private final Place place;
  private final boolean zeroDim;
  private final Tri pinned;
  private final boolean pendingHostCopy;
  private final Origin origin;
  private final TreePath originPath;
  private final String originName;

  /** An array's elements, each where it is; null for anything else. */
  private final List<Value> elements;

  /**
   * For a container: the tensors put into it on the CPU, in the order first seen, at most {@link
   * #MAX_CPU_PUTS}; empty for anything else.
   */
  private final List<Put> cpuPuts;

  /** For a container: a tensor put into it on a known device, or null. */
  private final Put devicePut;

  /**
   * For a tensor on the CPU: the factory calls of this compilation unit that made it there, in the
   * order first seen, at most {@link #MAX_MADE_AT} ({@link #madeAt}); empty where none is known.
   */
  private final List<TreePath> madeAt;

  private Value(
      Place place,
      boolean zeroDim,
      Tri pinned,
      boolean pendingHostCopy,
      Origin origin,
      TreePath originPath,
      String originName,
      List<Value> elements,
      List<Put> cpuPuts,
      Put devicePut,
      List<TreePath> madeAt) {
    this.place = place;
    this.zeroDim = zeroDim;
    this.pinned = pinned;
    this.pendingHostCopy = pendingHostCopy;
    this.origin = origin;
    this.originPath = originPath;
    this.originName = originName;
    this.elements = elements;
    this.cpuPuts = Objects.requireNonNull(cpuPuts);
    this.devicePut = devicePut;
    this.madeAt = Objects.requireNonNull(madeAt);
  }

  static Value on(Place place) {
    return new Value(
        place, false, Tri.MAYBE, false, Origin.NONE, null, null, null, List.of(), null, List.of());
  }

  /** An array of tensors made with its elements: where they all are, and where each one is. */
  static Value array(List<Value> elements) {
    Place joined = Place.NONE;
    for (Value e : elements) {
      joined = joined.join(e.place);
    }
    // new Tensor[] {state, state}: the origin its elements share ({@code state} made in a model
    // without a device)
    Value first = elements.isEmpty() ? null : elements.get(0);
    boolean shared =
        first != null
            && elements.stream()
                .allMatch(
                    e -> e.origin == first.origin && sameLeaf(e.originPath, first.originPath));
    return new Value(
        joined,
        false,
        Tri.MAYBE,
        false,
        shared ? first.origin : Origin.NONE,
        shared ? first.originPath : null,
        shared ? first.originName : null,
        List.copyOf(elements),
        List.of(),
        null,
        List.of());
  }

  /** Element {@code i} of an array: where it is, if known, else where the array's tensors are. */
  Value element(int i) {
    return elements != null && i >= 0 && i < elements.size() ? elements.get(i) : on(place);
  }

  /**
   * This value as a call's result seen by its caller ({@link Place#throughCalls}), each element of
   * an array as well.
   */
  Value throughCalls() {
    if (elements == null) {
      // where a helper put the tensors it returns, or made them
      return withOriginSeenByCallers(on(place.throughCalls()).withPutsOf(this).withMadeAt(madeAt));
    }
    List<Value> seen = new ArrayList<>(elements.size());
    elements.forEach(e -> seen.add(e.throughCalls()));
    return array(seen);
  }

  /**
   * Where this is and nothing else: the place, an array's elements one by one, and where a
   * container's tensors were put.
   */
  Value located() {
    return elements == null
        ? withOriginSeenByCallers(on(place).withPutsOf(this).withMadeAt(madeAt))
        : array(elements);
  }

  /**
   * {@code seen} with this value's origin, where its callers are to see it ({@link
   * Origin#CPU_BY_CONSTRUCTION}).
   */
  private Value withOriginSeenByCallers(Value seen) {
    return origin == Origin.CPU_BY_CONSTRUCTION
        ? seen.withOrigin(origin, originPath, originName)
        : seen;
  }

  /** Whether this is an array whose elements are known one by one. */
  boolean knownByElement() {
    return elements != null && !elements.isEmpty();
  }

  /** The array with element {@code i} replaced by {@code v} ({@code parts[i] = x}). */
  Value withElement(int i, Value v) {
    if (elements == null || i < 0 || i >= elements.size()) {
      return on(place.join(v.place));
    }
    List<Value> changed = new ArrayList<>(elements);
    changed.set(i, v);
    return array(changed);
  }

  /** A new tensor in ordinary (pageable) memory on {@code place}: a factory or op result. */
  static Value fresh(Place place) {
    return new Value(
        place,
        false,
        Place.CPU.equals(place) ? Tri.NO : Tri.MAYBE,
        false,
        Origin.NONE,
        null,
        null,
        null,
        List.of(),
        null,
        List.of());
  }

  Place place() {
    return place;
  }

  boolean zeroDim() {
    return zeroDim;
  }

  /** Whether this is a 0-dim CPU tensor, which PyTorch lets stand as a scalar beside any device. */
  boolean cpuScalarLike() {
    return zeroDim && Place.CPU.equals(place);
  }

  Tri pinned() {
    return pinned;
  }

  boolean pendingHostCopy() {
    return pendingHostCopy;
  }

  Origin origin() {
    return origin;
  }

  /**
   * Whether this is a model with parameters on the CPU that its variable's next move would move:
   * never moved, or given a new part since.
   */
  boolean partlyUnmoved() {
    return origin == Origin.UNMOVED_MODEL || origin == Origin.REPLACED_PART;
  }

  /**
   * The expression the origin refers to (the factory call, the static field, the model creation).
   */
  TreePath originPath() {
    return originPath;
  }

  /** The name the origin refers to (the variable, the field, the model). */
  String originName() {
    return originName;
  }

  Value withPlace(Place p) {
    return new Value(
        p,
        zeroDim,
        pinned,
        pendingHostCopy,
        origin,
        originPath,
        originName,
        null,
        List.of(),
        null,
        Place.CPU.equals(p) ? madeAt : List.of());
  }

  Value withZeroDim(boolean z) {
    return new Value(
        place,
        z,
        pinned,
        pendingHostCopy,
        origin,
        originPath,
        originName,
        elements,
        cpuPuts,
        devicePut,
        madeAt);
  }

  Value withPinned(Tri p) {
    return new Value(
        place,
        zeroDim,
        p,
        pendingHostCopy,
        origin,
        originPath,
        originName,
        elements,
        cpuPuts,
        devicePut,
        madeAt);
  }

  Value withPendingHostCopy(boolean pending) {
    return new Value(
        place,
        zeroDim,
        pinned,
        pending,
        origin,
        originPath,
        originName,
        elements,
        cpuPuts,
        devicePut,
        madeAt);
  }

  Value withOrigin(Origin o, TreePath tree, String name) {
    return new Value(
        place,
        zeroDim,
        pinned,
        pendingHostCopy,
        o,
        tree,
        name,
        elements,
        cpuPuts,
        devicePut,
        madeAt);
  }

  Value join(Value other) {
    if (equals(other)) {
      return this;
    }
    // Iterators of batches stay so through a join (it = loader.iterator() again at an epoch's end).
    boolean sameOrigin =
        origin == other.origin
            && (origin == Origin.BATCH_ITERATOR || sameLeaf(originPath, other.originPath));
    Place joined = place.join(other.place);
    Origin o = sameOrigin ? origin : Origin.NONE;
    TreePath path = sameOrigin ? originPath : null;
    String name = sameOrigin ? originName : null;
    Value factory =
        sameOrigin
            ? null
            : isDefaultDeviceFactory() ? this : other.isDefaultDeviceFactory() ? other : null;
    if (factory != null) {
      // Two factories without a device (c ? Tensor.zeros(n) : Tensor.ones(n)): on the CPU on every
      // path.
      o =
          isDefaultDeviceFactory() && other.isDefaultDeviceFactory() && Place.CPU.equals(joined)
              ? Origin.DEFAULT_DEVICE_FACTORY
              : Origin.DEFAULT_DEVICE_FACTORY_ON_SOME_PATHS;
      path = factory.originPath;
    }
    List<Value> joinedElements = null;
    if (elements != null && other.elements != null && elements.size() == other.elements.size()) {
      joinedElements = new ArrayList<>(elements.size());
      for (int i = 0; i < elements.size(); i++) {
        joinedElements.add(elements.get(i).join(other.elements.get(i)));
      }
    }
    return new Value(
        joined,
        zeroDim && other.zeroDim,
        pinned.join(other.pinned),
        pendingHostCopy && other.pendingHostCopy,
        o,
        path,
        name,
        joinedElements == null ? null : List.copyOf(joinedElements),
        unionOf(cpuPuts, other.cpuPuts),
        devicePut != null ? devicePut : other.devicePut,
        union(madeAt, other.madeAt, MAX_MADE_AT, Value::sameLeaf));
  }

  /**
   * This container after {@code value} was put into it at {@code at}: it remembers the tensors put
   * on the CPU (not 0-dim ones) and the first put on a known device, through joins, so that an op
   * that needs all its tensors on one device ({@code Tensor.stack(parts)}) finds a list a loop
   * filled with both ({@link #mixedPuts}), and a model given a map of CPU tensors finds where each
   * was put ({@link #cpuPuts}).
   */
  Value withPut(TreePath at, Value value) {
    Place p = value.place;
    boolean cpu = Place.CPU.equals(p) && !value.zeroDim;
    boolean device =
        (p.kind() == Place.Kind.FIXED || p.kind() == Place.Kind.SYMBOL) && devicePut == null;
    if (!cpu && !device) {
      return this;
    }
    return withPuts(
        cpu ? unionOf(cpuPuts, List.of(new Put(at, value))) : cpuPuts,
        device ? new Put(at, value) : devicePut);
  }

  /**
   * The same container value with the puts of {@code from} (a container read or copied from it).
   */
  Value withPutsOf(Value from) {
    return withPuts(from.cpuPuts, from.devicePut);
  }

  /** The same container value without the puts that {@code replaced} says were replaced. */
  Value withoutPuts(java.util.function.Predicate<Put> replaced) {
    List<Put> kept = cpuPuts.stream().filter(replaced.negate()).toList();
    return withPuts(
        kept.size() == cpuPuts.size() ? cpuPuts : kept,
        devicePut != null && replaced.test(devicePut) ? null : devicePut);
  }

  /** The same container value, with no puts remembered ({@code parts.clear()}). */
  Value withoutPuts() {
    return withPuts(List.of(), null);
  }

  private Value withPuts(List<Put> cpu, Put device) {
    return samePuts(cpu, cpuPuts) && samePut(device, devicePut)
        ? this
        : new Value(
            place,
            zeroDim,
            pinned,
            pendingHostCopy,
            origin,
            originPath,
            originName,
            elements,
            cpu,
            device,
            madeAt);
  }

  /**
   * The puts of {@code a}, then those of {@code b} at other places, at most {@link #MAX_CPU_PUTS}.
   */
  private static List<Put> unionOf(List<Put> a, List<Put> b) {
    return union(a, b, MAX_CPU_PUTS, Value::samePut);
  }

  /**
   * The items of {@code a}, then those of {@code b} not {@code same} as one, at most {@code max}.
   */
  private static <T> List<T> union(List<T> a, List<T> b, int max, BiPredicate<T, T> same) {
    if (b.isEmpty() || a.size() >= max) {
      return a;
    }
    List<T> union = new ArrayList<>(a);
    for (T item : b) {
      if (union.size() < max && union.stream().noneMatch(u -> same.test(u, item))) {
        union.add(item);
      }
    }
    return union.size() == a.size() ? a : List.copyOf(union);
  }

  /**
   * For a container given both a tensor on the CPU and one on a device: the first CPU put and the
   * device put, in that order; else null.
   */
  List<Put> mixedPuts() {
    return !cpuPuts.isEmpty() && devicePut != null ? List.of(cpuPuts.get(0), devicePut) : null;
  }

  /** For a container: the tensors put into it on the CPU, in the order first seen. */
  List<Put> cpuPuts() {
    return cpuPuts;
  }

  /**
   * For a tensor on the CPU: the factory calls that made it, through locals, ops on it and the
   * parameters its callers give ({@code sequenceLength = Tensor.of(lengths)} handed down to a
   * helper), and through the results of calls those made outside the called method ({@link
   * #withMadeAtOutside}); empty where none is known.
   */
  List<TreePath> madeAt() {
    return Place.CPU.equals(place) ? madeAt : List.of();
  }

  /**
   * The same value, remembering only the factories outside {@code method}: what a call returns
   * tells its caller where the tensors it was given were made, not where the method made its own (a
   * tokenizer's {@code Tensor.of(ids)} is the caller's to move).
   */
  Value withMadeAtOutside(Tree method) {
    List<TreePath> outside = madeAt.stream().filter(f -> !TreeSearch.within(f, method)).toList();
    return outside.size() == madeAt.size() ? this : withMadeAtList(outside);
  }

  /** The same tensor, made on the CPU by the factory call at {@code factory}. */
  Value withMadeAt(TreePath factory) {
    return withMadeAt(List.of(factory));
  }

  /** The same tensor, made on the CPU by the factory calls {@code factories} as well. */
  Value withMadeAt(List<TreePath> factories) {
    List<TreePath> union = union(madeAt, factories, MAX_MADE_AT, Value::sameLeaf);
    return union == madeAt ? this : withMadeAtList(union);
  }

  private Value withMadeAtList(List<TreePath> made) {
    return new Value(
        place,
        zeroDim,
        pinned,
        pendingHostCopy,
        origin,
        originPath,
        originName,
        elements,
        cpuPuts,
        devicePut,
        made);
  }

  /**
   * A tensor (not 0-dim) made by a factory without a device in a model, on every path or on some.
   */
  boolean isDefaultDeviceFactory() {
    return !zeroDim
        && (origin == Origin.DEFAULT_DEVICE_FACTORY
            || origin == Origin.DEFAULT_DEVICE_FACTORY_ON_SOME_PATHS);
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof Value v)) {
      return false;
    }
    return v.place.equals(place)
        && v.zeroDim == zeroDim
        && v.pinned == pinned
        && v.pendingHostCopy == pendingHostCopy
        && v.origin == origin
        && sameLeaf(v.originPath, originPath)
        && Objects.equals(v.elements, elements)
        && samePuts(v.cpuPuts, cpuPuts)
        && samePut(v.devicePut, devicePut)
        && sameLeaves(v.madeAt, madeAt);
  }

  private static boolean samePuts(List<Put> a, List<Put> b) {
    if (a.size() != b.size()) {
      return false;
    }
    for (int i = 0; i < a.size(); i++) {
      if (!samePut(a.get(i), b.get(i))) {
        return false;
      }
    }
    return true;
  }

  private static boolean sameLeaves(List<TreePath> a, List<TreePath> b) {
    if (a.size() != b.size()) {
      return false;
    }
    for (int i = 0; i < a.size(); i++) {
      if (!sameLeaf(a.get(i), b.get(i))) {
        return false;
      }
    }
    return true;
  }

  private static boolean samePut(Put a, Put b) {
    return a == null ? b == null : b != null && sameLeaf(a.at, b.at);
  }

  private static boolean sameLeaf(TreePath a, TreePath b) {
    return a == b || (a != null && b != null && a.getLeaf() == b.getLeaf());
  }

  @Override
  public int hashCode() {
    return Objects.hash(place, zeroDim, pinned, pendingHostCopy, origin);
  }

  @Override
  public String toString() {
    return place + (zeroDim ? " 0-dim" : "") + (pendingHostCopy ? " pending" : "") + " " + origin;
  }
}
