package dev.ondevice.processor.analysis;

import java.util.IdentityHashMap;
import java.util.Set;
import javax.lang.model.element.Element;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.PackageElement;
import javax.lang.model.element.TypeElement;
import javax.lang.model.type.ArrayType;
import javax.lang.model.type.DeclaredType;
import javax.lang.model.type.TypeKind;
import javax.lang.model.type.TypeMirror;
import javax.lang.model.type.WildcardType;

/**
 * Tensors held in the JDK's containers: lists, maps, sets, {@code Optional}, iterators, streams,
 * map entries and arrays, and containers of them. The value of such a container is where its
 * tensors are: the join of what went into it (nothing yet for a new, empty one), so that a tensor
 * keeps its device through {@code put}/{@code get}, {@code add}/{@code get} and iteration, and a
 * container of tensors on the CPU meets the model's tensors as they would.
 */
final class TensorContainers {
  /** The methods that put their arguments into the container they are called on. */
  private static final Set<String> PUTS =
      Set.of(
          "add",
          "addAll",
          "addFirst",
          "addLast",
          "put",
          "putAll",
          "putIfAbsent",
          "set",
          "offer",
          "offerFirst",
          "offerLast",
          "push",
          "addElement",
          "setElementAt");

  /** The puts that may replace a tensor the container held. */
  private static final Set<String> REPLACES = Set.of("set", "put", "setElementAt");

  /** The methods that take tensors out of the container they are called on. */
  private static final Set<String> REMOVES =
      Set.of(
          "clear",
          "remove",
          "removeIf",
          "removeAll",
          "retainAll",
          "poll",
          "pollFirst",
          "pollLast",
          "pop",
          "removeFirst",
          "removeLast");

  /** The methods of a container that only read it. */
  private static final Set<String> READS =
      Set.of(
          "get",
          "getOrDefault",
          "size",
          "isEmpty",
          "contains",
          "containsKey",
          "iterator",
          "stream",
          "values",
          "keySet",
          "entrySet",
          "length",
          "clone",
          "getFirst",
          "getLast",
          "forEach",
          "indexOf",
          "subList",
          "toArray",
          "orElse",
          "orElseThrow",
          "isPresent");

  private static final Set<String> PACKAGES =
      Set.of("java.util", "java.util.stream", "java.util.concurrent");

  private final RuntimeTypes rt;
  private final IdentityHashMap<TypeMirror, Boolean> holds = new IdentityHashMap<>();

  TensorContainers(RuntimeTypes rt) {
    this.rt = rt;
  }

  /** Whether {@code t} is a JDK container (or an array) of tensors, or of such containers. */
  boolean holdsTensors(TypeMirror t) {
    if (t == null) {
      return false;
    }
    Boolean known = holds.get(t);
    if (known == null) {
      known = computeHolds(t, 0);
      holds.put(t, known);
    }
    return known;
  }

  private boolean computeHolds(TypeMirror t, int depth) {
    if (depth > 3) {
      return false;
    }
    if (t.getKind() == TypeKind.ARRAY) {
      TypeMirror c = ((ArrayType) t).getComponentType();
      return rt.isTensor(c) || computeHolds(c, depth + 1);
    }
    if (t.getKind() == TypeKind.WILDCARD) {
      TypeMirror bound = ((WildcardType) t).getExtendsBound();
      return bound != null && (rt.isTensor(bound) || computeHolds(bound, depth + 1));
    }
    if (t.getKind() != TypeKind.DECLARED || !isJdkContainer(((DeclaredType) t).asElement())) {
      return false;
    }
    for (TypeMirror a : ((DeclaredType) t).getTypeArguments()) {
      TypeMirror element =
          a.getKind() == TypeKind.WILDCARD ? ((WildcardType) a).getExtendsBound() : a;
      if (element != null && (rt.isTensor(element) || computeHolds(element, depth + 1))) {
        return true;
      }
    }
    return false;
  }

  /**
   * Whether a class is one of the JDK's containers: {@code java.util}'s, its streams, {@code
   * Iterable}.
   */
  static boolean isJdkContainer(Element e) {
    if (!(e instanceof TypeElement type)) {
      return false;
    }
    if (type.getQualifiedName().contentEquals("java.lang.Iterable")) {
      return true;
    }
    Element p = type;
    while (p != null && !(p instanceof PackageElement)) {
      p = p.getEnclosingElement();
    }
    return p instanceof PackageElement pkg && PACKAGES.contains(pkg.getQualifiedName().toString());
  }

  /** Whether {@code m}, a method of a JDK container, puts its arguments into the container. */
  static boolean puts(ExecutableElement m) {
    return PUTS.contains(m.getSimpleName().toString());
  }

  /**
   * Whether {@code m}, a put of a JDK container, may replace a tensor it held ({@code set}, {@code
   * put}).
   */
  static boolean replaces(ExecutableElement m) {
    return REPLACES.contains(m.getSimpleName().toString());
  }

  /**
   * Whether {@code m}, a method of a JDK container, takes tensors out of it ({@code clear}, {@code
   * remove}).
   */
  static boolean removes(ExecutableElement m) {
    return REMOVES.contains(m.getSimpleName().toString());
  }

  /**
   * Whether {@code m}, a method of a container, only reads it ({@code get}, {@code forEach}, ...).
   */
  static boolean reads(ExecutableElement m) {
    return READS.contains(m.getSimpleName().toString());
  }

  /** Whether {@code name} names a method of a container that only reads it. */
  static boolean reads(CharSequence name) {
    return READS.contains(name.toString());
  }

  /** Whether {@code m} is declared by a JDK container. */
  static boolean isJdkContainerMethod(ExecutableElement m) {
    return isJdkContainer(m.getEnclosingElement());
  }
}
