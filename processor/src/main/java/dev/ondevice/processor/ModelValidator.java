package dev.ondevice.processor;

import com.google.errorprone.annotations.FormatMethod;
import com.google.errorprone.annotations.FormatString;
import dev.ondevice.annotations.Buffer;
import dev.ondevice.annotations.OnDevice;
import dev.ondevice.processor.analysis.AnnotationReader;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.function.Supplier;
import javax.annotation.processing.Messager;
import javax.annotation.processing.ProcessingEnvironment;
import javax.lang.model.element.AnnotationMirror;
import javax.lang.model.element.Element;
import javax.lang.model.element.ElementKind;
import javax.lang.model.element.Modifier;
import javax.lang.model.element.ModuleElement;
import javax.lang.model.element.NestingKind;
import javax.lang.model.element.TypeElement;
import javax.lang.model.element.VariableElement;
import javax.lang.model.type.ArrayType;
import javax.lang.model.type.TypeKind;
import javax.lang.model.type.TypeMirror;
import javax.lang.model.util.ElementFilter;
import javax.lang.model.util.Elements;
import javax.tools.Diagnostic;

/**
 * Checks a model class and its fields, reporting each problem on the element (and annotation) that
 * causes it, and describes what the generated code must visit. Generation happens only for a class
 * without errors.
 */
final class ModelValidator {
  /** What a field holds, as far as the generated code is concerned. */
  private enum Holds {
    PARAMETER,
    TENSOR,
    SUBMODULE,
    SUBMODULE_LIST,
    PARAMETER_LIST,
    SUBMODULE_MAP,
    CONTAINER_OF_STATE,
    MAP_WITH_BAD_KEY,
    UNBOUNDED_TYPE_VARIABLE,
    OTHER
  }

  private static final String GENERATED = "javax.annotation.processing.Generated";
  private final Messager messager;
  private final Elements elements;
  private final Supplier<KnownTypes> known;
  private final AnnotationReader annotations;
  private final Map<ModuleElement, Boolean> generatedVisible = new HashMap<>();
  private boolean failed;

  /**
   * @param known the runtime types, looked up on first use (most classes of a compilation need
   *     none)
   */
  ModelValidator(
      ProcessingEnvironment env,
      Messager messager,
      Supplier<KnownTypes> known,
      AnnotationReader annotations) {
    this.messager = messager;
    this.elements = env.getElementUtils();
    this.known = known;
    this.annotations = annotations;
  }

  /**
   * The description of model class {@code type}, or null after reporting its errors.
   *
   * @param generatedHere whether a class gets its model code generated in this compilation
   */
  ModelDescription validate(TypeElement type, Predicate<TypeElement> generatedHere) {
    failed = false;
    QualifiedName name = QualifiedName.of(type, elements);
    QualifiedName generated = GeneratedNames.of(name);
    checkReachable(type, generated);
    QualifiedName superCode = superclassCode(type, generatedHere);
    List<ModelField> fields = new ArrayList<>();
    for (VariableElement field : ElementFilter.fieldsIn(type.getEnclosedElements())) {
      ModelField f = field(field, generated);
      if (f != null) {
        fields.add(f);
        checkNotHiding(type, field);
      }
    }
    return failed
        ? null
        : new ModelDescription(type, name, generated, superCode, fields, generatedVisible(type));
  }

  /**
   * Whether {@code @Generated} is visible from the module of {@code type} (any, on the class path);
   * answered once per module, as a lookup by name tries every module of the platform.
   */
  private boolean generatedVisible(TypeElement type) {
    ModuleElement module = elements.getModuleOf(type);
    return generatedVisible.computeIfAbsent(
        module,
        m ->
            (m == null || m.isUnnamed())
                ? elements.getTypeElement(GENERATED) != null
                : elements.getTypeElement(m, GENERATED) != null);
  }

  /**
   * Reports a state field named as a state field of a model superclass: both would get the same
   * name in the parameters and the state dict, so one would be lost.
   */
  private void checkNotHiding(TypeElement type, VariableElement field) {
    for (TypeMirror s = type.getSuperclass(); known().isModel(s) && !known().isModelBase(s); ) {
      TypeElement superType = (TypeElement) known().types().asElement(s);
      for (VariableElement hidden : ElementFilter.fieldsIn(superType.getEnclosedElements())) {
        if (hidden.getSimpleName().contentEquals(field.getSimpleName()) && isState(hidden)) {
          error(
              field,
              null,
              Messages.HIDES_STATE,
              field.getSimpleName(),
              superType.getSimpleName(),
              field.getSimpleName());
          return;
        }
      }
      s = superType.getSuperclass();
    }
  }

  /**
   * Whether a field of a model is in its parameters, buffers or submodules (without reporting
   * anything).
   */
  private boolean isState(VariableElement field) {
    if (field.getModifiers().contains(Modifier.STATIC)) {
      return false;
    }
    return switch (holds(field.asType())) {
      case PARAMETER, SUBMODULE, SUBMODULE_LIST, PARAMETER_LIST, SUBMODULE_MAP -> true;
      case TENSOR -> {
        AnnotationMirror onDevice = annotations.find(field, OnDevice.class);
        yield annotations.find(field, Buffer.class) != null
            || (onDevice != null && !pinnedToCpu(AnnotationReader.string(onDevice, "value")));
      }
      default -> false;
    };
  }

  /** Whether an {@code @OnDevice} value (null without one) keeps a field on the CPU. */
  private static boolean pinnedToCpu(String onDevice) {
    return "cpu".equals(onDevice) || "cpu:0".equals(onDevice);
  }

  /** Reports {@code @Buffer} fields of a class that is not a model. */
  void checkNonModel(TypeElement type) {
    for (VariableElement field : ElementFilter.fieldsIn(type.getEnclosedElements())) {
      AnnotationMirror buffer = annotations.find(field, Buffer.class);
      if (buffer != null) {
        if (!known().hasRuntime()) {
          error(field, buffer, Messages.RUNTIME_MISSING);
        } else {
          error(
              field,
              buffer,
              Messages.BUFFER_OUTSIDE_MODEL,
              field.getSimpleName(),
              type.getSimpleName());
        }
      }
    }
  }

  private void checkReachable(TypeElement type, QualifiedName generated) {
    if (type.getModifiers().contains(Modifier.PRIVATE)) {
      error(type, null, Messages.PRIVATE_MODEL_CLASS, type.getSimpleName(), generated.simpleName());
    }
    if (type.getNestingKind() == NestingKind.MEMBER
        && !type.getModifiers().contains(Modifier.STATIC)) {
      error(
          type,
          null,
          Messages.INNER_MODEL_CLASS,
          type.getSimpleName(),
          type.getEnclosingElement().getSimpleName());
    }
    for (Element e = type.getEnclosingElement();
        e.getKind() != ElementKind.PACKAGE;
        e = e.getEnclosingElement()) {
      if (e.getModifiers().contains(Modifier.PRIVATE)) {
        error(
            type,
            null,
            Messages.ENCLOSED_IN_PRIVATE,
            type.getSimpleName(),
            e.getSimpleName(),
            generated.simpleName(),
            e.getSimpleName());
      }
    }
  }

  private QualifiedName superclassCode(TypeElement type, Predicate<TypeElement> generatedHere) {
    TypeMirror superclass = type.getSuperclass();
    if (known().isModelBase(superclass)) {
      return null;
    }
    TypeElement superType = (TypeElement) known().types().asElement(superclass);
    QualifiedName code = GeneratedNames.of(QualifiedName.of(superType, elements));
    if (!generatedHere.test(superType) && elements.getTypeElement(code.canonicalName()) == null) {
      error(
          type,
          null,
          Messages.SUPERCLASS_WITHOUT_CODE,
          type.getSimpleName(),
          superType.getSimpleName(),
          code.simpleName(),
          superType.getSimpleName());
    }
    return code;
  }

  private ModelField field(VariableElement field, QualifiedName generated) {
    String name = field.getSimpleName().toString();
    TypeMirror type = field.asType();
    AnnotationMirror bufferMirror = annotations.find(field, Buffer.class);
    AnnotationMirror onDeviceMirror = annotations.find(field, OnDevice.class);
    String onDevice =
        onDeviceMirror == null ? null : AnnotationReader.string(onDeviceMirror, "value");
    boolean pinnedToCpu = pinnedToCpu(onDevice);
    Holds holds = holds(type);
    boolean isStatic = field.getModifiers().contains(Modifier.STATIC);

    if (holds == Holds.PARAMETER) {
      if (bufferMirror != null) {
        return error(field, bufferMirror, Messages.BUFFER_ON_PARAMETER, name);
      }
      if (onDeviceMirror != null) {
        return error(field, onDeviceMirror, Messages.ON_DEVICE_ON_PARAMETER, name);
      }
      if (isStatic) {
        return error(field, null, Messages.STATIC_STATE, "Parameter", name);
      }
      return accessible(field, "Parameter", generated, ModelField.Kind.PARAMETER, true, false);
    }
    if (holds == Holds.TENSOR) {
      if (onDevice != null && !pinnedToCpu && !onDevice.equals(OnDevice.MODEL)) {
        return error(field, onDeviceMirror, Messages.ON_DEVICE_BAD_VALUE, name, onDevice);
      }
      if (bufferMirror == null && onDevice == null) {
        return error(
            field, null, isStatic ? Messages.STATIC_TENSOR : Messages.UNREGISTERED_TENSOR, name);
      }
      if (bufferMirror == null && pinnedToCpu) {
        return null;
      }
      String what = bufferMirror != null ? "@Buffer" : "@OnDevice";
      AnnotationMirror cause = bufferMirror != null ? bufferMirror : onDeviceMirror;
      if (isStatic) {
        return error(field, cause, Messages.STATIC_BUFFER, what, name);
      }
      if (field.getModifiers().contains(Modifier.FINAL)) {
        return error(field, cause, Messages.FINAL_BUFFER, what, name);
      }
      if (type.getKind() == TypeKind.TYPEVAR) {
        return error(field, cause, Messages.GENERIC_BUFFER, what, name, type);
      }
      boolean persistent =
          bufferMirror != null && AnnotationReader.bool(bufferMirror, "persistent");
      return accessible(field, what, generated, ModelField.Kind.BUFFER, persistent, pinnedToCpu);
    }
    if (bufferMirror != null) {
      return error(field, bufferMirror, Messages.BUFFER_NOT_TENSOR, name, type);
    }
    if (onDeviceMirror != null) {
      return error(field, onDeviceMirror, Messages.ON_DEVICE_NOT_TENSOR, name, type);
    }
    return switch (holds) {
      case SUBMODULE, SUBMODULE_LIST, PARAMETER_LIST, SUBMODULE_MAP -> {
        if (isStatic) {
          yield error(field, null, Messages.STATIC_STATE, "model", name);
        }
        yield accessible(
            field,
            holds == Holds.SUBMODULE ? "Submodule" : "Model state",
            generated,
            kind(holds),
            true,
            false);
      }
      case CONTAINER_OF_STATE -> error(field, null, Messages.TENSOR_CONTAINER, name, type);
      case MAP_WITH_BAD_KEY ->
          error(
              field,
              null,
              Messages.MAP_KEY,
              name,
              known().typeArgumentsOf(type, known().mapType()).get(0));
      case UNBOUNDED_TYPE_VARIABLE ->
          isStatic ? null : error(field, null, Messages.GENERIC_FIELD, name, type);
      default -> null;
    };
  }

  private static ModelField.Kind kind(Holds holds) {
    return switch (holds) {
      case SUBMODULE -> ModelField.Kind.SUBMODULE;
      case SUBMODULE_LIST -> ModelField.Kind.SUBMODULE_LIST;
      case PARAMETER_LIST -> ModelField.Kind.PARAMETER_LIST;
      default -> ModelField.Kind.SUBMODULE_MAP;
    };
  }

  private ModelField accessible(
      VariableElement field,
      String what,
      QualifiedName generated,
      ModelField.Kind kind,
      boolean persistent,
      boolean pinnedToCpu) {
    if (field.getModifiers().contains(Modifier.PRIVATE)) {
      return error(
          field,
          null,
          Messages.PRIVATE_FIELD,
          what,
          field.getSimpleName(),
          generated.simpleName(),
          kind == ModelField.Kind.BUFFER ? "reads and writes" : "reads");
    }
    return new ModelField(field.getSimpleName().toString(), kind, persistent, pinnedToCpu);
  }

  private Holds holds(TypeMirror type) {
    Holds direct = directlyHolds(type);
    return direct == Holds.OTHER && known().holdsState(type) ? Holds.CONTAINER_OF_STATE : direct;
  }

  /** What a field of {@code type} holds, looking one level into containers. */
  private Holds directlyHolds(TypeMirror type) {
    if (type.getKind() == TypeKind.ARRAY) {
      return known().isState(((ArrayType) type).getComponentType())
          ? Holds.CONTAINER_OF_STATE
          : Holds.OTHER;
    }
    if (type.getKind() == TypeKind.TYPEVAR
        && known().upperBound(type).toString().equals("java.lang.Object")) {
      return Holds.UNBOUNDED_TYPE_VARIABLE;
    }
    if (known().isParameter(type)) {
      return Holds.PARAMETER;
    }
    if (known().isTensor(type)) {
      return Holds.TENSOR;
    }
    if (known().isModel(type)) {
      return Holds.SUBMODULE;
    }
    if (known().isList(type)) {
      List<? extends TypeMirror> args = known().typeArgumentsOf(type, known().listType());
      if (args.isEmpty()) {
        return Holds.OTHER;
      }
      TypeMirror element = args.get(0);
      if (known().isParameter(element)) {
        return Holds.PARAMETER_LIST;
      }
      if (known().isModel(element)) {
        return Holds.SUBMODULE_LIST;
      }
      return known().isTensor(element) ? Holds.CONTAINER_OF_STATE : Holds.OTHER;
    }
    if (known().isMap(type)) {
      List<? extends TypeMirror> args = known().typeArgumentsOf(type, known().mapType());
      if (args.size() != 2) {
        return Holds.OTHER;
      }
      if (known().isModel(args.get(1))) {
        return known().isString(args.get(0)) ? Holds.SUBMODULE_MAP : Holds.MAP_WITH_BAD_KEY;
      }
      return known().isState(args.get(1)) || known().isState(args.get(0))
          ? Holds.CONTAINER_OF_STATE
          : Holds.OTHER;
    }
    if (known().isCollection(type) || known().isOptional(type)) {
      TypeMirror bound = known().upperBound(type);
      for (TypeMirror arg : ((javax.lang.model.type.DeclaredType) bound).getTypeArguments()) {
        if (known().isState(arg)) {
          return Holds.CONTAINER_OF_STATE;
        }
      }
    }
    return Holds.OTHER;
  }

  private KnownTypes known() {
    return known.get();
  }

  @FormatMethod
  private ModelField error(
      Element e, AnnotationMirror m, @FormatString String format, Object... args) {
    failed = true;
    messager.printMessage(Diagnostic.Kind.ERROR, String.format(format, args), e, m);
    return null;
  }
}
