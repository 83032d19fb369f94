package dev.ondevice.processor.analysis;

import com.sun.source.tree.MemberSelectTree;
import com.sun.source.tree.Tree;
import com.sun.source.util.TreePath;
import dev.ondevice.annotations.Buffer;
import dev.ondevice.annotations.OnDevice;
import javax.lang.model.element.Element;
import javax.lang.model.element.ElementKind;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.Modifier;
import javax.lang.model.element.NestingKind;
import javax.lang.model.element.TypeElement;
import javax.lang.model.element.VariableElement;
import javax.lang.model.type.DeclaredType;
import javax.lang.model.type.TypeMirror;

/**
 * The class and method a body belongs to: whether it is a model (its state and inputs are on the
 * model's device, a symbolic place), and the places of fields and of {@code @OnDevice} values.
 */
final class ModelScope {
  private final RuntimeTypes rt;
  private final boolean modelClass;
  private final boolean instanceMethod;
  private final TypeElement type;
  private final ExecutableElement method;
  private final Value thisValue;

  /**
   * The scope of a body of {@code type}: {@code method} is null for an initializer (a block or a
   * field's initializer). In a constructor or an initializer the model is being built, and its
   * state is wherever that code puts it (the CPU by default) until the model is moved, so there
   * {@code this} and the parameters are not on the model's device.
   */
  ModelScope(RuntimeTypes rt, TypeElement type, ExecutableElement method, boolean instance) {
    this(rt, type, method, instance, false, null);
  }

  /**
   * @param spread whether the model places its parts on devices of their own (it has no one device)
   * @param deviceField the final {@code Device} field its constructors move it to ({@link
   *     DeviceField}): the model is on that field's device; or null
   */
  ModelScope(
      RuntimeTypes rt,
      TypeElement type,
      ExecutableElement method,
      boolean instance,
      boolean spread,
      VariableElement deviceField) {
    this.rt = rt;
    this.modelClass = type != null && rt.isModel(type.asType());
    this.instanceMethod =
        instance
            && method != null
            && method.getKind() == ElementKind.METHOD
            && !method.getModifiers().contains(Modifier.STATIC);
    this.type = type;
    this.method = method;
    this.thisValue =
        modelClass && instanceMethod && !spread
            ? Value.on(Place.symbol(deviceField != null ? deviceField : type, "the model's device"))
            : Value.UNKNOWN;
  }

  boolean isModelClass() {
    return modelClass;
  }

  /**
   * Whether the body is an instance method of a model, not a constructor or an initializer: its
   * tensor parameters default to the model's device.
   */
  boolean isModelInstanceMethod() {
    return modelClass && instanceMethod;
  }

  /**
   * For messages: {@code Class.method}, {@code (anonymous Base).method}, {@code the constructor of
   * Class} or {@code an initializer of Class}.
   */
  String methodName() {
    String owner = type == null ? "" : className(type);
    if (method == null) {
      return "an initializer of " + owner;
    }
    if (method.getKind() == ElementKind.CONSTRUCTOR) {
      return "the constructor of " + owner;
    }
    return (owner.isEmpty() ? "" : owner + ".") + method.getSimpleName();
  }

  private static String className(TypeElement type) {
    if (type.getNestingKind() != NestingKind.ANONYMOUS) {
      return type.getSimpleName().toString();
    }
    TypeMirror base =
        type.getInterfaces().isEmpty() ? type.getSuperclass() : type.getInterfaces().get(0);
    Element baseElement = base instanceof DeclaredType declared ? declared.asElement() : null;
    return "(anonymous " + (baseElement == null ? "class" : baseElement.getSimpleName()) + ")";
  }

  Value thisValue() {
    return thisValue;
  }

  /** The place an {@code @OnDevice} value names, "model" being this model's device. */
  Place declaredPlace(String onDevice) {
    return declaredPlace(onDevice, thisValue);
  }

  /** The place an {@code @OnDevice} value names, "model" being the device of {@code model}. */
  Place declaredPlace(String onDevice, Value model) {
    return switch (onDevice) {
      case OnDevice.MODEL -> model == null ? Place.UNKNOWN : model.place();
      case "cpu", "cpu:0" -> Place.CPU;
      case "cuda" -> Place.fixed("cuda:0");
      default -> onDevice.matches("cuda:(0|[1-9][0-9]*)") ? Place.fixed(onDevice) : Place.UNKNOWN;
    };
  }

  /**
   * The value of field {@code f} read through {@code receiver} by {@code access}, whose source text
   * names a device field in messages and fixes ({@code device}, {@code Env.DEVICE}, {@code
   * cfg.device}); static tensors and final devices are evaluated by {@code ctx}.
   */
  Value field(AnalysisContext ctx, VariableElement f, Value receiver, Tree access) {
    boolean tensor = rt.isTensor(f.asType());
    boolean model = rt.isModel(f.asType());
    if (!tensor && !model) {
      if (!rt.isDevice(f.asType())) {
        return Value.UNKNOWN;
      }
      Place initial = ctx.finalDevice(f);
      String name =
          access instanceof MemberSelectTree ? ctx.text(access) : f.getSimpleName().toString();
      return Value.on(initial != null ? initial.named(name) : Place.symbol(f, name));
    }
    String on = rt.declaredDevice(f);
    if (on != null) {
      Value v = Value.on(declaredPlace(on, receiver));
      return Place.CPU.equals(v.place()) && tensor
          ? v.withOrigin(Value.Origin.PINNED_CPU, null, f.getSimpleName().toString())
          : v;
    }
    if (f.getModifiers().contains(Modifier.STATIC)) {
      if (!tensor) {
        return Value.UNKNOWN;
      }
      Value v = ctx.staticField(f);
      return Place.CPU.equals(v.place()) && !v.cpuScalarLike()
          ? v.withOrigin(Value.Origin.STATIC_CONSTANT, null, f.getSimpleName().toString())
          : v;
    }
    Element owner = f.getEnclosingElement();
    boolean modelState =
        owner instanceof TypeElement
            && rt.isModel(owner.asType())
            && (model || rt.annotations().has(f, Buffer.class) || rt.isTensor(f.asType()));
    if (!modelState && tensor && f.getModifiers().contains(Modifier.FINAL)) {
      return ctx.finalFieldOnTheCpu(f)
          ? Value.on(Place.CPU)
          : Value.UNKNOWN; // a trainer's class weights
    }
    TreePath start = modelState || !tensor ? null : ctx.cpuAccumulatorStart(f);
    if (start != null) {
      // rhoLoss = Tensor.cat(List.of(rhoLoss, loss)): where it started is where it stays.
      return Value.on(Place.CPU)
          .withOrigin(Value.Origin.CPU_ACCUMULATOR, start, f.getSimpleName().toString());
    }
    if (model && !modelState) {
      Place held = ctx.heldModel(f); // a trainer's model, moved in its constructor or by its caller
      return held.isKnown() ? Value.on(held) : Value.UNKNOWN;
    }
    return modelState && receiver != null ? Value.on(receiver.place()) : Value.UNKNOWN;
  }
}
