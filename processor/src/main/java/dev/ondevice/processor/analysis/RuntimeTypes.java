package dev.ondevice.processor.analysis;

import java.lang.annotation.Annotation;
import java.util.List;
import javax.lang.model.element.Element;
import javax.lang.model.element.Modifier;
import javax.lang.model.element.TypeElement;
import javax.lang.model.element.VariableElement;
import javax.lang.model.type.DeclaredType;
import javax.lang.model.type.TypeKind;
import javax.lang.model.type.TypeMirror;
import javax.lang.model.type.TypeVariable;
import javax.lang.model.type.WildcardType;
import javax.lang.model.util.ElementFilter;
import javax.lang.model.util.Elements;
import javax.lang.model.util.Types;

/** The runtime types the analysis recognises (looked up by name) and type tests on them. */
final class RuntimeTypes {
  private final Types types;
  private final TypeMirror tensor;
  private final TypeMirror device;
  private final TypeMirror model;
  private final TypeMirror iterable;
  private final java.util.Map<String, Boolean> stateful = new java.util.HashMap<>();

  RuntimeTypes(Elements elements, Types types) {
    this.types = types;
    this.tensor = erasure(elements, "dev.ondevice.Tensor");
    this.device = erasure(elements, "dev.ondevice.Device");
    this.model = erasure(elements, "dev.ondevice.nn.Model");
    this.iterable = erasure(elements, "java.lang.Iterable");
  }

  private TypeMirror erasure(Elements elements, String name) {
    TypeElement e = elements.getTypeElement(name);
    return e == null ? null : types.erasure(e.asType());
  }

  /** Whether the runtime is on the class path; without it there is nothing to analyse. */
  boolean present() {
    return tensor != null && device != null;
  }

  Types types() {
    return types;
  }

  boolean isTensor(TypeMirror t) {
    return is(t, tensor);
  }

  boolean isDevice(TypeMirror t) {
    return is(t, device);
  }

  boolean isModel(TypeMirror t) {
    return model != null && is(t, model);
  }

  /** Whether {@code t} is exactly the model base class. */
  boolean isModelBase(TypeMirror t) {
    return model != null && t != null && t.getKind() == TypeKind.DECLARED && types.isSameType(types.erasure(t), model);
  }

  /** Whether {@code t} is an Iterable (a list, say) of tensors. */
  boolean isTensorIterable(TypeMirror t) {
    if (!is(t, iterable)) {
      return false;
    }
    for (TypeMirror s = t; s != null; ) {
      if (s.getKind() == TypeKind.DECLARED && types.isSameType(types.erasure(s), iterable)) {
        List<? extends TypeMirror> args = ((DeclaredType) s).getTypeArguments();
        return args.size() == 1 && isTensor(args.get(0));
      }
      List<? extends TypeMirror> supers = types.directSupertypes(s);
      s = null;
      for (TypeMirror sup : supers) {
        if (is(sup, iterable)) {
          s = sup;
          break;
        }
      }
    }
    return false;
  }

  private boolean is(TypeMirror t, TypeMirror of) {
    if (t == null || of == null) {
      return false;
    }
    TypeMirror u = upper(t);
    return u.getKind() == TypeKind.DECLARED && types.isSubtype(types.erasure(u), of);
  }

  private static TypeMirror upper(TypeMirror t) {
    if (t.getKind() == TypeKind.TYPEVAR) {
      return upper(((TypeVariable) t).getUpperBound());
    }
    if (t.getKind() == TypeKind.WILDCARD && ((WildcardType) t).getExtendsBound() != null) {
      return upper(((WildcardType) t).getExtendsBound());
    }
    return t;
  }

  /**
   * Whether a model class holds state that a move would move: an instance field (its own or
   * inherited) of a tensor, model, collection, map or array type. A stateless layer (an
   * activation, a pooling, a flatten) works on any device.
   */
  boolean hasState(TypeMirror modelType) {
    return stateful.computeIfAbsent(types.erasure(modelType).toString(), k -> computeHasState(modelType));
  }

  private boolean computeHasState(TypeMirror modelType) {
    for (TypeMirror t = modelType; t != null && t.getKind() == TypeKind.DECLARED && !isModelBase(t); ) {
      TypeElement e = (TypeElement) types.asElement(t);
      for (VariableElement f : ElementFilter.fieldsIn(e.getEnclosedElements())) {
        TypeMirror ft = f.asType();
        boolean container = ft.getKind() == TypeKind.ARRAY || is(ft, iterable) || ft.toString().startsWith("java.util.Map");
        if (!f.getModifiers().contains(Modifier.STATIC) && (isTensor(ft) || isModel(ft) || container
            || ft.getKind() == TypeKind.TYPEVAR)) {
          return true;
        }
      }
      t = e.getSuperclass();
    }
    return false;
  }

  /** Whether {@code type} or one of its superclasses or interfaces carries {@code annotation}. */
  boolean hasInherited(TypeMirror type, Class<? extends Annotation> annotation) {
    if (type == null || upper(type).getKind() != TypeKind.DECLARED) {
      return false;
    }
    Element e = types.asElement(upper(type));
    if (e != null && e.getAnnotation(annotation) != null) {
      return true;
    }
    for (TypeMirror s : types.directSupertypes(upper(type))) {
      if (hasInherited(s, annotation)) {
        return true;
      }
    }
    return false;
  }
}
