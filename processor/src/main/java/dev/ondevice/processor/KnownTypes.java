package dev.ondevice.processor;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.List;
import javax.annotation.processing.ProcessingEnvironment;
import javax.lang.model.element.Element;
import javax.lang.model.element.TypeElement;
import javax.lang.model.type.ArrayType;
import javax.lang.model.type.DeclaredType;
import javax.lang.model.type.IntersectionType;
import javax.lang.model.type.TypeKind;
import javax.lang.model.type.TypeMirror;
import javax.lang.model.type.TypeVariable;
import javax.lang.model.type.WildcardType;
import javax.lang.model.util.Elements;
import javax.lang.model.util.Types;

/**
 * The runtime types the processor recognises, looked up by name (the processor does not depend on
 * the runtime), and subtype tests against them, answered once per class and round.
 */
final class KnownTypes {
  static final String MODEL = "dev.ondevice.nn.Model";
  static final String TENSOR = "dev.ondevice.Tensor";
  static final String PARAMETER = "dev.ondevice.Parameter";

  private static final int MODEL_BIT = 1;
  private static final int TENSOR_BIT = 2;
  private static final int PARAMETER_BIT = 4;
  private static final int LIST_BIT = 8;
  private static final int MAP_BIT = 16;
  private static final int COLLECTION_BIT = 32;
  private static final int OPTIONAL_BIT = 64;
  private static final int STRING_BIT = 128;
  private static final int ITERABLE_BIT = 256;

  private final Types types;

  /** Per class: which of the bits are computed ([0]) and which hold ([1]). */
  private final IdentityHashMap<Element, int[]> subtypes = new IdentityHashMap<>();

  private final TypeMirror model;
  private final TypeMirror tensor;
  private final TypeMirror parameter;
  private final TypeMirror list;
  private final TypeMirror map;
  private final TypeMirror collection;
  private final TypeMirror optional;
  private final TypeMirror string;
  private final TypeMirror iterable;
  private final TypeMirror object;

  KnownTypes(ProcessingEnvironment env) {
    Elements elements = env.getElementUtils();
    this.types = env.getTypeUtils();
    this.model = erasure(elements, MODEL);
    this.tensor = erasure(elements, TENSOR);
    this.parameter = erasure(elements, PARAMETER);
    this.list = erasure(elements, "java.util.List");
    this.map = erasure(elements, "java.util.Map");
    this.collection = erasure(elements, "java.util.Collection");
    this.optional = erasure(elements, "java.util.Optional");
    this.string = erasure(elements, "java.lang.String");
    this.iterable = erasure(elements, "java.lang.Iterable");
    this.object = erasure(elements, "java.lang.Object");
  }

  private TypeMirror erasure(Elements elements, String name) {
    TypeElement e = elements.getTypeElement(name);
    return e == null ? null : types.erasure(e.asType());
  }

  /** Whether the runtime is on the classpath. */
  boolean hasRuntime() {
    return model != null && tensor != null && parameter != null;
  }

  Types types() {
    return types;
  }

  /** Whether {@code t} is the model base class itself. */
  boolean isModelBase(TypeMirror t) {
    return model != null && types.isSameType(types.erasure(t), model);
  }

  boolean isModel(TypeMirror t) {
    return is(t, MODEL_BIT, model);
  }

  boolean isTensor(TypeMirror t) {
    return is(t, TENSOR_BIT, tensor);
  }

  boolean isParameter(TypeMirror t) {
    return is(t, PARAMETER_BIT, parameter);
  }

  boolean isList(TypeMirror t) {
    return is(t, LIST_BIT, list);
  }

  boolean isMap(TypeMirror t) {
    return is(t, MAP_BIT, map);
  }

  boolean isCollection(TypeMirror t) {
    return is(t, COLLECTION_BIT, collection);
  }

  boolean isOptional(TypeMirror t) {
    return is(t, OPTIONAL_BIT, optional);
  }

  boolean isString(TypeMirror t) {
    return is(t, STRING_BIT, string);
  }

  /** Whether {@code t} is state a model could hold: a tensor or a model. */
  boolean isState(TypeMirror t) {
    return isTensor(t) || isModel(t);
  }

  /**
   * Whether {@code t} holds tensors or models at any depth: itself, or the elements of its arrays,
   * collections, maps and optionals ({@code List<List<Linear>>}, {@code Linear[][]}).
   */
  boolean holdsState(TypeMirror t) {
    if (isState(t)) {
      return true;
    }
    if (t.getKind() == TypeKind.ARRAY) {
      return holdsState(((ArrayType) t).getComponentType());
    }
    TypeMirror u = upperBound(t);
    if (u.getKind() == TypeKind.DECLARED
        && (isMap(u) || isOptional(u) || is(u, ITERABLE_BIT, iterable))) {
      for (TypeMirror arg : ((DeclaredType) u).getTypeArguments()) {
        if (holdsState(arg)) {
          return true;
        }
      }
    }
    return false;
  }

  /** Forgets what was learnt about classes: a new round may have completed their supertypes. */
  void newRound() {
    subtypes.clear();
  }

  /**
   * Whether the class of {@code t} (its upper bound for a type variable or wildcard) is a subtype
   * of {@code of}, the answer for {@code bit} computed once per class and round: fields of a corpus
   * share a handful of types.
   */
  private boolean is(TypeMirror t, int bit, TypeMirror of) {
    if (of == null || t == null) {
      return false;
    }
    TypeMirror u = upperBound(t);
    if (u.getKind() == TypeKind.INTERSECTION) {
      for (TypeMirror bound : ((IntersectionType) u).getBounds()) {
        if (is(bound, bit, of)) {
          return true;
        }
      }
      return false;
    }
    if (u.getKind() != TypeKind.DECLARED) {
      return false;
    }
    int[] known = subtypes.computeIfAbsent(((DeclaredType) u).asElement(), e -> new int[2]);
    if ((known[0] & bit) == 0) {
      known[0] |= bit;
      if (types.isSubtype(types.erasure(u), of)) {
        known[1] |= bit;
      }
    }
    return (known[1] & bit) != 0;
  }

  /** The type itself, or the upper bound of a type variable or wildcard. */
  TypeMirror upperBound(TypeMirror t) {
    if (t.getKind() == TypeKind.TYPEVAR) {
      return upperBound(((TypeVariable) t).getUpperBound());
    }
    if (t.getKind() == TypeKind.WILDCARD) {
      TypeMirror ext = ((WildcardType) t).getExtendsBound();
      return ext == null ? object : upperBound(ext);
    }
    return t;
  }

  /**
   * The type arguments {@code t} gives to the generic supertype {@code target} (List, Map), or an
   * empty list for a raw type.
   */
  List<? extends TypeMirror> typeArgumentsOf(TypeMirror t, TypeMirror target) {
    Deque<TypeMirror> queue = new ArrayDeque<>();
    queue.add(upperBound(t));
    while (!queue.isEmpty()) {
      TypeMirror current = queue.poll();
      if (current.getKind() == TypeKind.DECLARED
          && types.isSameType(types.erasure(current), target)) {
        return ((DeclaredType) current).getTypeArguments();
      }
      queue.addAll(types.directSupertypes(current));
    }
    return List.of();
  }

  TypeMirror listType() {
    return list;
  }

  TypeMirror mapType() {
    return map;
  }
}
