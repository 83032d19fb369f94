package dev.ondevice.processor.analysis;

import dev.ondevice.annotations.BatchSource;
import dev.ondevice.annotations.OnDevice;
import java.lang.annotation.Annotation;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.lang.model.element.AnnotationMirror;
import javax.lang.model.element.Element;
import javax.lang.model.element.ElementKind;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.Modifier;
import javax.lang.model.element.Name;
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

/**
 * The runtime types the analysis recognises (looked up by name) and type tests on them. One
 * instance per compilation: what a class is (a tensor, a model, ...) and which annotations it
 * inherits are computed once per class, as the analysis asks on every call. The names of the
 * implicit receivers ({@code this}, {@code super}) are looked up once too.
 */
final class RuntimeTypes {
  private static final int TENSOR = 1;
  private static final int DEVICE = 2;
  private static final int MODEL = 4;
  private static final int ITERABLE = 8;
  private static final int STRING = 16;
  private static final int MAP = 32;
  private static final int SHAPE = 64;
  private static final int PARAMETER = 128;
  private static final Set<String> PRINTERS =
      Set.of(
          "java.io.PrintStream",
          "java.io.PrintWriter",
          "java.lang.StringBuilder",
          "java.util.logging.Logger");

  private final Types types;
  private final TypeMirror tensor;
  private final TypeMirror parameter;
  private final TypeMirror device;
  private final TypeMirror model;
  private final TypeMirror iterable;
  private final TypeMirror iterator;
  private final TypeMirror map;
  private final Element shapeElement;
  private final Element modelElement;
  private final Element stringElement;
  private final Element resultPairElement;
  private final TypeMirror optimizer;
  private final IdentityHashMap<Element, Integer> kinds = new IdentityHashMap<>();
  private final IdentityHashMap<Element, Boolean> stateful = new IdentityHashMap<>();
  private final Map<Class<? extends Annotation>, IdentityHashMap<Element, Boolean>> inherited =
      new HashMap<>();
  private final IdentityHashMap<Element, Boolean> printers = new IdentityHashMap<>();
  private final Element checkpointElement;
  private final Element mapLocationElement;
  private final AnnotationReader annotations;
  private final Elements elements;

  /**
   * Per method: the device its result is declared on, its own or an overridden method's; "" for
   * none.
   */
  private final IdentityHashMap<ExecutableElement, String> returnDevices = new IdentityHashMap<>();

  private final Name thisName;
  private TensorContainers containers;
  private final Name superName;

  RuntimeTypes(Elements elements, Types types) {
    this.elements = elements;
    this.types = types;
    this.annotations = new AnnotationReader(elements);
    this.tensor = erasure(elements, "dev.ondevice.Tensor");
    this.parameter = erasure(elements, "dev.ondevice.Parameter");
    this.device = erasure(elements, "dev.ondevice.Device");
    this.model = erasure(elements, "dev.ondevice.nn.Model");
    this.iterable = erasure(elements, "java.lang.Iterable");
    this.iterator = erasure(elements, "java.util.Iterator");
    this.map = erasure(elements, "java.util.Map");
    this.modelElement = model == null ? null : types.asElement(model);
    this.stringElement = elements.getTypeElement("java.lang.String");
    this.shapeElement = elements.getTypeElement("dev.ondevice.Shape");
    this.resultPairElement = elements.getTypeElement("dev.ondevice.ValuesAndIndices");
    this.optimizer = erasure(elements, "dev.ondevice.optim.Optimizer");
    this.checkpointElement = elements.getTypeElement("dev.ondevice.io.Checkpoint");
    this.mapLocationElement = elements.getTypeElement("dev.ondevice.io.MapLocation");
    this.thisName = elements.getName("this");
    this.superName = elements.getName("super");
  }

  /** Whether a name is {@code this} or {@code super}, compared without decoding it. */
  boolean isThisOrSuper(Name name) {
    return name.equals(thisName) || name.equals(superName);
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

  /** Reads the annotations of the runtime's API and of the code under analysis. */
  AnnotationReader annotations() {
    return annotations;
  }

  /** The device an {@code @OnDevice} on {@code e} declares, or null when {@code e} has none. */
  String declaredDevice(Element e) {
    AnnotationMirror on = annotations.find(e, OnDevice.class);
    return on == null ? null : AnnotationReader.string(on, "value");
  }

  /**
   * The device {@code @OnDevice} declares for the result of {@code m}, or, for a method of the
   * sources marked {@code @Override}, of the nearest method it overrides that declares one: an
   * override keeps the contract of the method it overrides. Null when none does. (The methods of
   * compiled classes, the JDK's among them, carry no {@code @Override}, whose retention is the
   * source: their supertypes are not searched.)
   */
  String returnDevice(ExecutableElement m) {
    String known = returnDevices.get(m);
    if (known == null) {
      known = declaredDevice(m);
      if (known == null
          && m.getKind() == ElementKind.METHOD
          && m.getEnclosingElement() instanceof TypeElement owner
          && annotations.has(m, Override.class)) {
        known = overriddenReturnDevice(m, owner, owner.asType());
      }
      known = known == null ? "" : known;
      returnDevices.put(m, known);
    }
    return known.isEmpty() ? null : known;
  }

  private String overriddenReturnDevice(ExecutableElement m, TypeElement owner, TypeMirror type) {
    for (TypeMirror s : types.directSupertypes(type)) {
      if (!(types.asElement(s) instanceof TypeElement superType)) {
        continue;
      }
      for (Element member : superType.getEnclosedElements()) {
        if (member instanceof ExecutableElement candidate
            && member.getSimpleName().equals(m.getSimpleName())
            && elements.overrides(m, candidate, owner)) {
          String declared = declaredDevice(candidate);
          if (declared != null) {
            return declared;
          }
        }
      }
      String inherited = overriddenReturnDevice(m, owner, s);
      if (inherited != null) {
        return inherited;
      }
    }
    return null;
  }

  /** The containers of tensors of this compilation's types. */
  TensorContainers containers() {
    if (containers == null) {
      containers = new TensorContainers(this);
    }
    return containers;
  }

  /**
   * What a method of the runtime's checkpoints is to the tensors it loads ({@link
   * CheckpointPlaces}).
   */
  enum CheckpointRole {
    NONE,
    /** {@code MapLocation.to(device)}: a location naming one device. */
    LOCATION,
    /**
     * {@code Checkpoint.load(file, location)}: the checkpoint, its tensors where the location says.
     */
    LOAD,
    /** {@code checkpoint.stateDict()}: its tensors. */
    TENSORS
  }

  /** The role of {@code m} among the runtime's checkpoint methods. */
  CheckpointRole checkpointRole(ExecutableElement m) {
    Element owner = m.getEnclosingElement(); // compared first: most calls are of other classes
    if (owner == mapLocationElement && m.getSimpleName().contentEquals("to")) {
      return CheckpointRole.LOCATION;
    }
    if (owner == checkpointElement && m.getSimpleName().contentEquals("load")) {
      return CheckpointRole.LOAD;
    }
    if (owner == checkpointElement && m.getSimpleName().contentEquals("stateDict")) {
      return CheckpointRole.TENSORS;
    }
    return CheckpointRole.NONE;
  }

  /**
   * Whether {@code t} is the runtime's pair of results of a reduction ({@code x.max(1)}: values and
   * indices).
   */
  boolean isResultPair(TypeMirror t) {
    return resultPairElement != null
        && t != null
        && t.getKind() == TypeKind.DECLARED
        && ((DeclaredType) t).asElement() == resultPairElement;
  }

  /** Whether {@code t} is the runtime's {@code Optimizer} or a subclass of it. */
  boolean isOptimizer(TypeMirror t) {
    return optimizer != null && t != null && types.isSubtype(types.erasure(t), optimizer);
  }

  /** Whether {@code t} is a record with a tensor component. */
  boolean isTensorRecord(TypeMirror t) {
    if (t == null
        || t.getKind() != TypeKind.DECLARED
        || !(((DeclaredType) t).asElement() instanceof javax.lang.model.element.TypeElement r)
        || r.getKind() != javax.lang.model.element.ElementKind.RECORD) {
      return false;
    }
    return r.getRecordComponents().stream().anyMatch(c -> isTensor(c.asType()));
  }

  boolean isTensor(TypeMirror t) {
    return (kinds(t) & TENSOR) != 0;
  }

  /** Whether {@code t} is a model's learnable tensor, {@code Parameter}. */
  boolean isParameter(TypeMirror t) {
    return (kinds(t) & PARAMETER) != 0;
  }

  boolean isDevice(TypeMirror t) {
    return (kinds(t) & DEVICE) != 0;
  }

  boolean isModel(TypeMirror t) {
    return (kinds(t) & MODEL) != 0;
  }

  boolean isString(TypeMirror t) {
    return (kinds(t) & STRING) != 0;
  }

  /** Whether {@code t} is the runtime's {@code Shape}. */
  boolean isShape(TypeMirror t) {
    return (kinds(t) & SHAPE) != 0;
  }

  /**
   * Whether a call of {@code m} turns its arguments into text: the methods of print streams and
   * writers, string builders and loggers, {@code String.valueOf} and {@code String.format}.
   */
  boolean prints(ExecutableElement m) {
    Element owner = m.getEnclosingElement();
    boolean printer =
        printers.computeIfAbsent(
            owner,
            o -> o instanceof TypeElement t && PRINTERS.contains(t.getQualifiedName().toString()));
    return printer
        || (owner == stringElement
            && (m.getSimpleName().contentEquals("valueOf")
                || m.getSimpleName().contentEquals("format")));
  }

  /** Whether {@code t} is exactly the model base class. */
  boolean isModelBase(TypeMirror t) {
    return modelElement != null
        && t != null
        && t.getKind() == TypeKind.DECLARED
        && ((DeclaredType) t).asElement() == modelElement;
  }

  /** Whether {@code t} is an Iterable (a list, say) of tensors. */
  boolean isTensorIterable(TypeMirror t) {
    if ((kinds(t) & ITERABLE) == 0) {
      return false;
    }
    for (TypeMirror s = upper(t); s != null; ) {
      if (s.getKind() == TypeKind.DECLARED && types.isSameType(types.erasure(s), iterable)) {
        List<? extends TypeMirror> args = ((DeclaredType) s).getTypeArguments();
        return args.size() == 1 && isTensor(args.get(0));
      }
      List<? extends TypeMirror> supers = types.directSupertypes(s);
      s = null;
      for (TypeMirror sup : supers) {
        if ((kinds(sup) & ITERABLE) != 0) {
          s = sup;
          break;
        }
      }
    }
    return false;
  }

  /**
   * The kinds of the class of {@code t} (its upper bound for a type variable), computed once per
   * class.
   */
  private int kinds(TypeMirror t) {
    if (t == null) {
      return 0;
    }
    TypeMirror u = upper(t);
    if (u.getKind() != TypeKind.DECLARED) {
      return 0;
    }
    Element e = ((DeclaredType) u).asElement();
    Integer k = kinds.get(e);
    return k != null ? k : firstKinds(u, e);
  }

  /**
   * Computes and caches the kinds of class {@code e}, the first time a type of it is asked about.
   */
  private int firstKinds(TypeMirror u, Element e) {
    TypeMirror erased = types.erasure(u);
    int k =
        (is(erased, tensor) ? TENSOR : 0)
            | (is(erased, device) ? DEVICE : 0)
            | (is(erased, model) ? MODEL : 0)
            | (is(erased, iterable) ? ITERABLE : 0)
            | (is(erased, map) ? MAP : 0)
            | (e == stringElement ? STRING : 0)
            | (e == shapeElement ? SHAPE : 0)
            | (is(erased, parameter) ? PARAMETER : 0);
    kinds.put(e, k);
    return k;
  }

  private boolean is(TypeMirror erased, TypeMirror of) {
    return of != null && types.isSubtype(erased, of);
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
   * inherited) of a tensor, model, collection, map or array type. A stateless layer (an activation,
   * a pooling, a flatten) works on any device.
   */
  boolean hasState(TypeMirror modelType) {
    TypeMirror u = upper(modelType);
    if (u.getKind() != TypeKind.DECLARED) {
      return computeHasState(u);
    }
    return stateful.computeIfAbsent(((DeclaredType) u).asElement(), e -> computeHasState(u));
  }

  private boolean computeHasState(TypeMirror modelType) {
    for (TypeMirror t = modelType;
        t != null && t.getKind() == TypeKind.DECLARED && !isModelBase(t); ) {
      TypeElement e = (TypeElement) types.asElement(t);
      for (VariableElement f : ElementFilter.fieldsIn(e.getEnclosedElements())) {
        TypeMirror ft = f.asType();
        boolean container = ft.getKind() == TypeKind.ARRAY || (kinds(ft) & (ITERABLE | MAP)) != 0;
        if (!f.getModifiers().contains(Modifier.STATIC)
            && (isTensor(ft) || isModel(ft) || container || ft.getKind() == TypeKind.TYPEVAR)) {
          return true;
        }
      }
      t = e.getSuperclass();
    }
    return false;
  }

  /** Whether {@code type} is a {@code java.util.Iterator}. */
  boolean isIterator(TypeMirror type) {
    return iterator != null
        && type != null
        && type.getKind() == TypeKind.DECLARED
        && types.isAssignable(types.erasure(type), iterator);
  }

  /**
   * Whether {@code type} is an iterator over batches: an {@code Iterator} whose type carries
   * {@code @BatchSource} ({@code DataLoader.BatchIterator}).
   */
  boolean isBatchIterator(TypeMirror type) {
    return hasInherited(type, BatchSource.class) && isIterator(upper(type));
  }

  /**
   * Whether {@code type} or one of its superclasses or interfaces carries {@code annotation};
   * computed once per class and annotation.
   */
  boolean hasInherited(TypeMirror type, Class<? extends Annotation> annotation) {
    if (type == null || upper(type).getKind() != TypeKind.DECLARED) {
      return false;
    }
    TypeMirror u = upper(type);
    IdentityHashMap<Element, Boolean> known =
        inherited.computeIfAbsent(annotation, a -> new IdentityHashMap<>());
    Element e = ((DeclaredType) u).asElement();
    Boolean has = known.get(e);
    if (has == null) {
      has = annotations.has(e, annotation);
      for (TypeMirror s : types.directSupertypes(u)) {
        has = has || hasInherited(s, annotation);
      }
      known.put(e, has);
    }
    return has;
  }
}
