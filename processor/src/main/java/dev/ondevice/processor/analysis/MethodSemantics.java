package dev.ondevice.processor.analysis;

import dev.ondevice.annotations.Factory;
import dev.ondevice.annotations.HostSync;
import dev.ondevice.annotations.InPlace;
import dev.ondevice.annotations.Move;
import dev.ondevice.annotations.NonBlocking;
import dev.ondevice.annotations.ReturnsDevice;
import dev.ondevice.annotations.SameDevice;
import dev.ondevice.annotations.ZeroDim;
import java.util.List;
import javax.lang.model.element.AnnotationMirror;
import javax.lang.model.element.Element;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.Modifier;
import javax.lang.model.element.TypeElement;
import javax.lang.model.element.VariableElement;
import javax.lang.model.type.ArrayType;
import javax.lang.model.type.TypeKind;
import javax.lang.model.type.TypeMirror;

/**
 * What a method does to devices, read once from the annotations on it and on its class: the
 * analysis knows nothing about particular method names.
 */
final class MethodSemantics {
  /** The kinds of method, by annotation. */
  enum Kind {
    /** {@code @Factory}: a new tensor. */
    FACTORY,
    /** {@code @Move}: the receiver on another device. */
    MOVE,
    /**
     * {@code @SameDevice}, on the method or its class: operands on one device, the result on it.
     */
    SAME_DEVICE,
    /** {@code @ReturnsDevice}: a device value. */
    RETURNS_DEVICE,
    /**
     * An instance method of a model taking or returning tensors: arguments on the model's device.
     */
    MODEL_CALL,
    /** Anything else: the result is unknown. */
    OTHER
  }

  final Kind kind;
  final boolean hostSync;
  final boolean inPlace;
  final boolean crossDevice;
  private final boolean zeroDim;

  /** The index of a varargs parameter of dimensions annotated {@code @ZeroDim}, or -1. */
  private final int zeroDimWhenEmpty;

  final boolean fromHostData;
  final boolean returnsTensor;
  final String moveTo;
  final boolean pins;
  final int nonBlockingParameter;

  /** The index of the first {@code Device} parameter, or -1 without one. */
  final int deviceParameter;

  /**
   * Whether a parameter gives a dimension, a size or a shape: an integral, an integral array or a
   * {@code Shape}.
   */
  final boolean takesShape;

  final ReturnsDevice.Source deviceSource;
  final String[] parameterDevices;
  final String returnDevice;

  private MethodSemantics(
      Kind kind,
      boolean hostSync,
      boolean inPlace,
      boolean crossDevice,
      boolean zeroDim,
      int zeroDimWhenEmpty,
      boolean fromHostData,
      boolean returnsTensor,
      String moveTo,
      boolean pins,
      int nonBlockingParameter,
      int deviceParameter,
      boolean takesShape,
      ReturnsDevice.Source deviceSource,
      String[] parameterDevices,
      String returnDevice) {
    this.kind = kind;
    this.hostSync = hostSync;
    this.inPlace = inPlace;
    this.crossDevice = crossDevice;
    this.zeroDim = zeroDim;
    this.zeroDimWhenEmpty = zeroDimWhenEmpty;
    this.fromHostData = fromHostData;
    this.returnsTensor = returnsTensor;
    this.moveTo = moveTo;
    this.pins = pins;
    this.nonBlockingParameter = nonBlockingParameter;
    this.deviceParameter = deviceParameter;
    this.takesShape = takesShape;
    this.deviceSource = deviceSource;
    this.parameterDevices = parameterDevices;
    this.returnDevice = returnDevice;
  }

  /**
   * The place of the argument passed as the first {@code Device} parameter, or null without one.
   */
  Place devicePlace(List<Value> args) {
    return deviceParameter >= 0 && deviceParameter < args.size()
        ? args.get(deviceParameter).place()
        : null;
  }

  /**
   * Whether the result of a call with {@code argumentCount} arguments is 0-dim: always for a method
   * annotated {@code @ZeroDim}, and when the call passes no dimensions to a varargs parameter of
   * dimensions annotated {@code @ZeroDim} ({@code Tensor.zeros()}, {@code Shape.of()}).
   */
  boolean zeroDim(int argumentCount) {
    return zeroDim || argumentCount == zeroDimWhenEmpty;
  }

  /** Whether the result is a new tensor that must not be discarded. */
  boolean pure() {
    return returnsTensor
        && !inPlace
        && (kind == Kind.FACTORY || kind == Kind.MOVE || kind == Kind.SAME_DEVICE);
  }

  static MethodSemantics of(ExecutableElement m, RuntimeTypes rt) {
    AnnotationReader annotations = rt.annotations();
    boolean returnsTensor = rt.isTensor(m.getReturnType());
    boolean takesTensors = false;
    List<? extends VariableElement> params = m.getParameters();
    String[] paramDevices = new String[params.size()];
    int nonBlocking = -1;
    int deviceParameter = -1;
    boolean takesShape = false;
    int zeroDimWhenEmpty = -1;
    for (int i = 0; i < params.size(); i++) {
      VariableElement p = params.get(i);
      TypeMirror t = p.asType();
      takesTensors |= rt.isTensor(t) || rt.isTensorIterable(t);
      if (deviceParameter < 0 && rt.isDevice(t)) {
        deviceParameter = i;
      }
      takesShape |=
          isIntegral(t)
              || (t.getKind() == TypeKind.ARRAY && isIntegral(((ArrayType) t).getComponentType()))
              || rt.isShape(t);
      if (p.getAnnotationMirrors().isEmpty()) {
        continue;
      }
      paramDevices[i] = rt.declaredDevice(p);
      if (m.isVarArgs() && i == params.size() - 1 && annotations.has(p, ZeroDim.class)) {
        zeroDimWhenEmpty = i;
      }
      if (t.getKind() == TypeKind.BOOLEAN && annotations.has(p, NonBlocking.class)) {
        nonBlocking = i;
      }
    }
    if (m.getAnnotationMirrors().isEmpty()) {
      return unannotated(
          m,
          rt,
          returnsTensor,
          takesTensors,
          paramDevices,
          nonBlocking,
          deviceParameter,
          takesShape,
          zeroDimWhenEmpty);
    }
    String returnDevice = rt.returnDevice(m);
    AnnotationMirror inPlace = annotations.find(m, InPlace.class);
    boolean hostSync = annotations.has(m, HostSync.class);
    boolean zeroDim = annotations.has(m, ZeroDim.class);
    boolean fromHostData = false;
    Kind kind;
    String moveTo = null;
    boolean pins = false;
    ReturnsDevice.Source source = null;
    AnnotationMirror factory = annotations.find(m, Factory.class);
    AnnotationMirror move = annotations.find(m, Move.class);
    AnnotationMirror returnsDevice = annotations.find(m, ReturnsDevice.class);
    if (factory != null) {
      kind = Kind.FACTORY;
      zeroDim |= AnnotationReader.bool(factory, "zeroDim");
      fromHostData = AnnotationReader.bool(factory, "fromHostData");
    } else if (move != null) {
      kind = Kind.MOVE;
      moveTo = AnnotationReader.string(move, "to");
      pins = AnnotationReader.bool(move, "pins");
    } else if (returnsDevice != null) {
      kind = Kind.RETURNS_DEVICE;
      source = ReturnsDevice.Source.valueOf(AnnotationReader.enumConstant(returnsDevice, "value"));
    } else if ((returnsTensor || takesTensors)
        && (annotations.has(m, SameDevice.class) || declaredInSameDeviceType(m, rt))) {
      kind = Kind.SAME_DEVICE;
    } else if ((returnsTensor || takesTensors)
        && !m.getModifiers().contains(Modifier.STATIC)
        && isModelMethod(m, rt)) {
      kind = Kind.MODEL_CALL;
    } else {
      kind = Kind.OTHER;
    }
    return new MethodSemantics(
        kind,
        hostSync,
        inPlace != null,
        inPlace != null && AnnotationReader.bool(inPlace, "crossDevice"),
        zeroDim,
        zeroDimWhenEmpty,
        fromHostData,
        returnsTensor,
        moveTo,
        pins,
        nonBlocking,
        deviceParameter,
        takesShape,
        source,
        paramDevices,
        returnDevice);
  }

  /** {@link #of} for a method without annotations (most of them): only its class says anything. */
  private static MethodSemantics unannotated(
      ExecutableElement m,
      RuntimeTypes rt,
      boolean returnsTensor,
      boolean takesTensors,
      String[] paramDevices,
      int nonBlocking,
      int deviceParameter,
      boolean takesShape,
      int zeroDimWhenEmpty) {
    Kind kind = Kind.OTHER;
    if ((returnsTensor || takesTensors) && declaredInSameDeviceType(m, rt)) {
      kind = Kind.SAME_DEVICE;
    } else if ((returnsTensor || takesTensors)
        && !m.getModifiers().contains(Modifier.STATIC)
        && isModelMethod(m, rt)) {
      kind = Kind.MODEL_CALL;
    }
    return new MethodSemantics(
        kind,
        false,
        false,
        false,
        false,
        zeroDimWhenEmpty,
        false,
        returnsTensor,
        null,
        false,
        nonBlocking,
        deviceParameter,
        takesShape,
        null,
        paramDevices,
        rt.returnDevice(m));
  }

  private static boolean isIntegral(TypeMirror t) {
    return switch (t.getKind()) {
      case INT, LONG, SHORT, BYTE -> true;
      default -> false;
    };
  }

  private static boolean declaredInSameDeviceType(ExecutableElement m, RuntimeTypes rt) {
    Element owner = m.getEnclosingElement();
    return owner instanceof TypeElement && rt.hasInherited(owner.asType(), SameDevice.class);
  }

  private static boolean isModelMethod(ExecutableElement m, RuntimeTypes rt) {
    Element owner = m.getEnclosingElement();
    return owner instanceof TypeElement
        && rt.isModel(owner.asType())
        && !rt.isModelBase(owner.asType());
  }
}
