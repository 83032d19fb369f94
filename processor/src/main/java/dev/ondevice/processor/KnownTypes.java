package dev.ondevice.processor;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import javax.annotation.processing.ProcessingEnvironment;
import javax.lang.model.element.TypeElement;
import javax.lang.model.type.DeclaredType;
import javax.lang.model.type.TypeKind;
import javax.lang.model.type.TypeMirror;
import javax.lang.model.type.TypeVariable;
import javax.lang.model.type.WildcardType;
import javax.lang.model.util.Elements;
import javax.lang.model.util.Types;

/** The runtime types the processor recognises, looked up by name (the processor does not depend on the runtime). */
final class KnownTypes {
  static final String MODEL = "dev.ondevice.nn.Model";
  static final String TENSOR = "dev.ondevice.Tensor";
  static final String PARAMETER = "dev.ondevice.Parameter";

  private final Types types;
  private final TypeMirror model;
  private final TypeMirror tensor;
  private final TypeMirror parameter;
  private final TypeMirror list;
  private final TypeMirror map;
  private final TypeMirror collection;
  private final TypeMirror optional;
  private final TypeMirror string;
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
    return model != null && isSubtype(t, model);
  }

  boolean isTensor(TypeMirror t) {
    return tensor != null && isSubtype(t, tensor);
  }

  boolean isParameter(TypeMirror t) {
    return parameter != null && isSubtype(t, parameter);
  }

  boolean isList(TypeMirror t) {
    return isSubtype(t, list);
  }

  boolean isMap(TypeMirror t) {
    return isSubtype(t, map);
  }

  boolean isCollection(TypeMirror t) {
    return isSubtype(t, collection);
  }

  boolean isOptional(TypeMirror t) {
    return isSubtype(t, optional);
  }

  boolean isString(TypeMirror t) {
    return isSubtype(t, string);
  }

  /** Whether {@code t} is state a model could hold: a tensor or a model. */
  boolean isState(TypeMirror t) {
    return isTensor(t) || isModel(t);
  }

  private boolean isSubtype(TypeMirror t, TypeMirror of) {
    if (of == null || t == null) {
      return false;
    }
    TypeMirror u = upperBound(t);
    return u.getKind() == TypeKind.DECLARED && types.isSubtype(types.erasure(u), of);
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
      if (current.getKind() == TypeKind.DECLARED && types.isSameType(types.erasure(current), target)) {
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
