package dev.ondevice.processor.analysis;

import com.sun.source.tree.ExpressionTree;
import com.sun.source.tree.MethodInvocationTree;
import com.sun.source.util.TreePath;
import java.util.ArrayList;
import java.util.List;
import javax.lang.model.element.Element;
import javax.lang.model.element.ElementKind;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.Modifier;
import javax.lang.model.element.TypeElement;
import javax.lang.model.element.VariableElement;
import javax.lang.model.type.ArrayType;
import javax.lang.model.type.TypeKind;
import javax.lang.model.type.TypeMirror;

/**
 * The interpreter's rules for the calls where devices meet or change: a move, an op whose tensors
 * must share a device, a model call, the arguments of a method whose parameters declare a device.
 * Each computes the call's value and tells the checks what it found ({@link TensorMove}, {@link
 * DeviceConflict}, contracts, reads); the checks report, and never decide a value.
 */
final class DeviceOps {
  private final AnalysisContext ctx;
  private final ModelScope scope;
  private final MethodInterpreter interpreter;
  private final Checks checks;

  DeviceOps(AnalysisContext ctx, ModelScope scope, MethodInterpreter interpreter, Checks checks) {
    this.ctx = ctx;
    this.scope = scope;
    this.interpreter = interpreter;
    this.checks = checks;
  }

  // ------------------------------------------------------------------ moves

  /**
   * {@code x.to(device)}: the moved tensor, on the target, pinned or pending a non-blocking copy to
   * the host.
   */
  Value move(MethodInterpreter.Call c, Place deviceArgument) {
    MethodSemantics s = c.semantics;
    Value receiver = c.receiver == null ? Value.UNKNOWN : c.receiver;
    if (c.receiverTree != null) {
      checks.read(c.receiverPath(), receiver);
    }
    Place target = deviceArgument != null ? deviceArgument : moveTarget(c);
    boolean nonBlocking =
        s.nonBlockingParameter >= 0
            && Boolean.TRUE.equals(interpreter.constant(c.argumentPath(s.nonBlockingParameter)));
    int d = s.deviceParameter;
    boolean byConstruction =
        d >= 0 && d < c.argumentTrees.size() && ctx.cpuByConstruction(c.argumentPath(d)) != null;
    TensorMove move =
        new TensorMove(c, receiver, target, nonBlocking, deviceArgument != null, byConstruction);
    checks.move(move);
    if (!nonBlocking && Place.CPU.equals(target) && move.fromDevice()) {
      interpreter.env().completePendingHostCopies();
    }
    Value result = Value.fresh(target).withZeroDim(receiver.zeroDim());
    if (s.pins) {
      result = result.withPinned(Value.Tri.YES);
    }
    if (nonBlocking && Place.CPU.equals(target) && move.fromDevice()) {
      result = result.withPendingHostCopy(true);
    }
    if (Place.CPU.equals(target) && receiver.origin() == Value.Origin.BATCH) {
      result = result.withOrigin(Value.Origin.BATCH, receiver.originPath(), receiver.originName());
    }
    return result;
  }

  private Place moveTarget(MethodInterpreter.Call c) {
    String to = c.semantics.moveTo;
    if (to.equals("cpu")) {
      return Place.CPU;
    }
    if (to.equals("cuda")) {
      for (int i = 0; i < c.argumentTrees.size(); i++) {
        Object k = interpreter.constant(c.argumentPath(i));
        if (k instanceof Integer) {
          return Place.fixed("cuda:" + k);
        }
      }
      return c.argumentTrees.isEmpty() ? Place.fixed("cuda:0") : Place.UNKNOWN;
    }
    return Place.UNKNOWN;
  }

  // ------------------------------------------------------------------ ops

  /**
   * An op whose tensors must share a device: each pair on different devices is a conflict (every
   * culprit of the op, not only the first); the result is where the device operand is.
   */
  Value sameDevice(MethodInterpreter.Call c) {
    List<Operand> operands = operands(c);
    for (Operand o : operands) {
      checks.read(o.path, o.value);
    }
    parameterContracts(c);
    if (c.semantics.crossDevice) {
      return c.receiver == null ? Value.UNKNOWN : c.receiver;
    }
    Operand reference = null;
    boolean conflicting = false;
    Place movedTo = null;
    for (Operand o : operands) {
      if (!o.value.place().isKnown()) {
        continue;
      }
      if (reference == null || (reference.cpuScalar() && !o.cpuScalar())) {
        reference = o;
        continue;
      }
      if (o.cpuScalar() || (conflicting && o.onCpu() == reference.onCpu())) {
        continue;
      }
      // After a CPU operand meets a device one, the device one is the reference that the next CPU
      // operands are compared with (two factories in one cat).
      boolean conflict = conflict(c.method.getSimpleName(), c.path, reference, o, false);
      if (conflict && reference.onCpu()) {
        movedTo = o.value.place();
        reference = o;
      }
      conflicting |= conflict;
    }
    if (!conflicting && reference != null && !reference.cpuScalar()) {
      for (Operand o : operands) {
        if (!conflicting
            && o.value.origin() == Value.Origin.DEFAULT_DEVICE_FACTORY_ON_SOME_PATHS
            && !o.value.place().isKnown()) {
          conflicting =
              conflict(
                  c.method.getSimpleName(),
                  c.path,
                  reference,
                  o,
                  false); // if (h == null) h = zeros(..)
        }
      }
      for (Operand o : operands) {
        if (!conflicting
            && o.value.place().kind() == Place.Kind.BY_PATH
            && !o.value.zeroDim()
            && !o.value.isDefaultDeviceFactory()) {
          conflicting =
              conflict(
                  c.method.getSimpleName(),
                  c.path,
                  reference,
                  o,
                  false); // if (gpu) x = x.to(device)
        }
      }
    }
    // With a CPU operand in conflict, the result is where the other operand is, as the fix moves
    // the CPU one there: what is computed from it is not reported again
    // (classWeights.indexSelect(0, yb).mul(loss)).
    Place place =
        reference == null ? Place.UNKNOWN : movedTo != null ? movedTo : reference.value.place();
    if (reference != null && reference.cpuScalar()) {
      place = Place.CPU;
      for (Operand o : operands) {
        if (!o.cpuScalar()) {
          place = Place.UNKNOWN;
          break;
        }
      }
    }
    if (c.semantics.inPlace && c.receiver != null) {
      return c.receiver;
    }
    Value result =
        Value.fresh(place)
            .withZeroDim(c.semantics.zeroDim(c.argumentTrees.size()) || keepsZeroDim(c, operands));
    if (Place.CPU.equals(place) && c.receiver != null && c.receiver.pinned() != Value.Tri.NO) {
      // The result may be a view of the receiver's memory (view, narrow, ...), pinned if it is.
      result = result.withPinned(Value.Tri.MAYBE);
    }
    if (Place.CPU.equals(result.place())) {
      for (Operand o : operands) {
        result = result.withMadeAt(o.value.madeAt()); // Tensor.of(obs).unsqueeze(0)
      }
      for (Operand o : operands) {
        if (o.value.origin() != Value.Origin.NONE && o.onCpu()) {
          return result.withOrigin(o.value.origin(), o.value.originPath(), o.value.originName());
        }
      }
    }
    return reference == null || reference.cpuScalar() ? onSomePaths(result, operands) : result;
  }

  /**
   * The tensor operands of an op: its receiver, its tensor arguments, the tensors of a list it
   * joins.
   */
  private List<Operand> operands(MethodInterpreter.Call c) {
    List<Operand> operands = new ArrayList<>(c.argumentTrees.size() + 1);
    if (c.receiver != null
        && c.receiverTree != null
        && ctx.types().isTensor(ctx.trees().getTypeMirror(c.receiverPath()))) {
      operands.add(
          new Operand(
              c.receiver,
              c.receiverPath(),
              c.receiverTree,
              "self",
              c.semantics.inPlace ? Operand.Role.IN_PLACE_RECEIVER : Operand.Role.OPERAND,
              null));
    } else if (c.receiver != null
        && c.receiverTree == null
        && scope.isModelInstanceMethod()
        && ctx.types().isTensor(c.method.getEnclosingElement().asType())) {
      operands.add(new Operand(c.receiver, c.path, null, "self"));
    }
    List<? extends VariableElement> params = c.method.getParameters();
    for (int i = 0; i < c.argumentTrees.size(); i++) {
      TreePath ap = c.argumentPath(i);
      TypeMirror t = ctx.trees().getTypeMirror(ap);
      CharSequence name = i < params.size() ? params.get(i).getSimpleName() : "arg";
      if (ctx.types().isTensor(t)) {
        operands.add(new Operand(c.arguments.get(i), ap, c.argumentTrees.get(i), name));
      } else if (ctx.types().isTensorIterable(t)) {
        ExpressionTree a = MethodInterpreter.skipParens(c.argumentTrees.get(i));
        if (a instanceof MethodInvocationTree methodInvocationTree
            && isCollectionFactory(ctx.trees().getElement(new TreePath(c.path, a)))) {
          for (ExpressionTree element : methodInvocationTree.getArguments()) {
            TreePath ep = new TreePath(new TreePath(c.path, a), element);
            if (ctx.types().isTensor(ctx.trees().getTypeMirror(ep))) {
              operands.add(
                  new Operand(c.valueOf(element), ep, element, name, Operand.Role.JOINED, null));
            }
          }
        } else if (c.arguments.get(i).mixedPuts() != null) {
          // A list a loop filled with device tensors and, on some iterations, a CPU factory's.
          for (Value.Put put : c.arguments.get(i).mixedPuts()) {
            operands.add(
                new Operand(
                    put.value(), put.at(), put.at().getLeaf(), name, Operand.Role.HELD, null));
          }
        } else if (c.arguments.get(i).place().isKnown()) {
          operands.add(
              new Operand(
                  c.arguments.get(i), ap, c.argumentTrees.get(i), name, Operand.Role.JOINED, null));
        }
      }
    }
    return operands;
  }

  /**
   * The result of an op whose one tensor operand is on the CPU on some paths only ({@code
   * h.mul(2.0).tanh()} after {@code if (h == null) h = Tensor.zeros(..)}): the same, on those
   * paths.
   */
  private static Value onSomePaths(Value result, List<Operand> operands) {
    Operand factory = null;
    for (Operand o : operands) {
      if (o.value.origin() == Value.Origin.DEFAULT_DEVICE_FACTORY_ON_SOME_PATHS
          && !o.value.zeroDim()) {
        factory = factory == null ? o : null;
        if (factory == null) {
          return result;
        }
      } else if (!o.cpuScalar()) {
        return result;
      }
    }
    return factory == null || result.zeroDim()
        ? result
        : result.withOrigin(factory.value.origin(), factory.value.originPath(), null);
  }

  /**
   * Whether a call makes a collection of its arguments, as {@code List.of}, {@code Set.of} and
   * {@code Arrays.asList} do: a static method of one type variable whose parameters are all of it
   * (or arrays of it), so that the arguments are the elements. The arguments of any other call in a
   * collection's place (a helper that moves its tensors, say) are not.
   */
  private boolean isCollectionFactory(Element e) {
    if (!(e instanceof ExecutableElement m)
        || !m.getModifiers().contains(Modifier.STATIC)
        || m.getTypeParameters().size() != 1
        || m.getParameters().isEmpty()) {
      return false;
    }
    TypeMirror element = m.getTypeParameters().get(0).asType();
    for (VariableElement p : m.getParameters()) {
      TypeMirror t = p.asType();
      if (t.getKind() == TypeKind.ARRAY) {
        t = ((ArrayType) t).getComponentType();
      }
      if (!ctx.types().types().isSameType(t, element)) {
        return false;
      }
    }
    return true;
  }

  /**
   * Whether an op keeps 0-dim operands 0-dim: all its tensor operands are 0-dim and it takes no
   * dimension, size or shape (an integral, an integral array or a {@code Shape}), as the
   * elementwise ops, the reductions of a whole tensor and the dtype conversions do.
   */
  private boolean keepsZeroDim(MethodInterpreter.Call c, List<Operand> operands) {
    if (operands.isEmpty() || c.semantics.takesShape) {
      return false;
    }
    for (Operand o : operands) {
      if (!o.value.zeroDim()) {
        return false;
      }
    }
    return !joinsTensors(c.method);
  }

  /**
   * Whether {@code m} takes a list or an array of tensors ({@code stack}, {@code cat}): its result
   * has a dimension more.
   */
  private boolean joinsTensors(ExecutableElement m) {
    for (VariableElement p : m.getParameters()) {
      TypeMirror t = p.asType();
      if (ctx.types().isTensorIterable(t)
          || (t.getKind() == TypeKind.ARRAY
              && ctx.types().isTensor(((ArrayType) t).getComponentType()))) {
        return true;
      }
    }
    return false;
  }

  // ------------------------------------------------------------------ model calls

  /**
   * A model call: each of its tensor arguments against the model's device; the result is on it
   * (unknown after a conflict). Where the model's device is not known, its arguments are not
   * compared with each other: a model may take tensors on several devices on purpose (model
   * parallelism, CPU lengths for a packed sequence).
   */
  Value modelCall(MethodInterpreter.Call c) {
    Value model = c.receiver == null ? Value.UNKNOWN : c.receiver;
    Operand modelOperand = new Operand(model, c.receiverPath(), c.receiverTree, "the model");
    List<? extends VariableElement> params = c.method.getParameters();
    // Where the model is not known, its inputs must still agree with one another: the inputs moved
    // to its device and the mask left on the CPU (model.forward(ids.to(device), mask)).
    Operand firstInput = null;
    boolean conflicting = false;
    for (int i = 0; i < c.argumentTrees.size() && i < params.size(); i++) {
      TreePath ap = c.argumentPath(i);
      TypeMirror type = ctx.trees().getTypeMirror(ap);
      // forward(Map<String, Tensor> input) uses its tensors on the model's device, unless it moves
      // them itself.
      boolean held =
          ctx.containers().holdsTensors(type)
              && ctx.isUserModelMethod(c.method)
              && !MethodInterpreter.movesToADevice(c.method, ctx);
      Value arg = c.arguments.get(i);
      if (!ctx.types().isTensor(type) && !(held && Place.CPU.equals(arg.place()))) {
        continue; // a container is compared only where it holds CPU tensors: other devices are the
        // callee's to check
      }
      checks.read(ap, arg);
      String declared = c.semantics.parameterDevices[i];
      if (declared == null && ctx.deviceNeutralParameter(c.method, i)) {
        continue; // forward(ids, lengths) reading lengths on the host, load(vectors) copying them
        // in
      }
      if (declared != null && !declared.equals(dev.ondevice.annotations.OnDevice.MODEL)) {
        VariableElement param = params.get(i);
        checks.contract(
            ap,
            arg,
            scope.declaredPlace(declared, model),
            () ->
                "parameter "
                    + param.getSimpleName()
                    + " of "
                    + c.method.getSimpleName()
                    + " (@OnDevice(\""
                    + declared
                    + "\"))");
      } else if (!arg.cpuScalarLike()) {
        String note =
            declared == null
                    && !c.method.getSimpleName().contentEquals("forward")
                    && ctx.isUserModelMethod(c.method)
                ? c.method.getSimpleName()
                    + " is taken to need "
                    + params.get(i).getSimpleName()
                    + " on the"
                    + " model's device: its body uses it where the device matters (with the model's state or outputs,"
                    + " returned, stored or converted)"
                : null;
        Operand argument =
            new Operand(
                arg,
                ap,
                c.argumentTrees.get(i),
                params.get(i).getSimpleName(),
                Operand.Role.OPERAND,
                note);
        // Every argument on another device is reported, not only the first (forward(xPred,
        // xPredMask)).
        if (conflict(c.method.getSimpleName(), c.path, modelOperand, argument, true)) {
          conflicting = true;
        } else if (!model.place().isKnown()
            && arg.place().isKnown()
            && !spreadOverDevices(c.method)) {
          if (firstInput == null) {
            firstInput = argument;
          } else {
            conflicting |= conflict(c.method.getSimpleName(), c.path, firstInput, argument, true);
          }
        }
      }
    }
    if (conflicting) {
      return Value.UNKNOWN;
    }
    if (c.semantics.returnDevice != null) {
      return Value.on(scope.declaredPlace(c.semantics.returnDevice, model));
    }
    if (!c.semantics.returnsTensor && !ctx.containers().holdsTensors(c.method.getReturnType())) {
      return Value
          .UNKNOWN; // forward returning a Map<String, Tensor> of outputs is followed as a tensor is
    }
    switch (ctx.returns(c.method)) {
      case CPU -> {
        TreePath method = ctx.pathOf(c.method);
        TreePath moved =
            method == null
                ? null
                : ConstructedDevices.returnedMoves(method, ctx).stream()
                    .filter(java.util.Objects::nonNull)
                    .findFirst()
                    .orElse(null);
        return moved == null
            ? Value.fresh(Place.CPU) // predict(x) ending in .cpu()
            : Value.fresh(Place.CPU)
                .withOrigin(
                    Value.Origin.CPU_BY_CONSTRUCTION,
                    moved,
                    ctx.shortText(((MethodInvocationTree) moved.getLeaf()).getArguments().get(0)));
      }
      case UNKNOWN -> {
        return Value.UNKNOWN; // some of what it returns may be on the CPU
      }
      default -> {}
    }
    if (model.place().isKnown()) {
      return Value.fresh(model.place());
    }
    if (spreadOverDevices(c.method)) {
      return Value.UNKNOWN; // a model spread over devices gives its outputs where its last part is
    }
    Place inputs = Place.NONE;
    for (int i = 0; i < c.argumentTrees.size(); i++) {
      Value arg = c.arguments.get(i);
      if (ctx.types().isTensor(ctx.trees().getTypeMirror(c.argumentPath(i)))
          && !arg.cpuScalarLike()) {
        inputs = inputs.join(arg.place());
      }
    }
    return Place.NONE.equals(inputs)
        ? Value.fresh(Place.UNKNOWN)
        : Value.fresh(inputs).withOrigin(Value.Origin.MODEL_OUTPUT, c.path, null);
  }

  /**
   * Whether {@code m}'s model places its parts on devices of their own (PyTorch's model-parallel
   * tutorial).
   */
  private boolean spreadOverDevices(ExecutableElement m) {
    return m.getEnclosingElement() instanceof TypeElement owner && ctx.placesPartsItself(owner);
  }

  // ------------------------------------------------------------------ contracts

  /** The tensor arguments of a call against {@code @OnDevice} on its method's parameters. */
  void parameterContracts(MethodInterpreter.Call c) {
    if (c.semantics.kind != MethodSemantics.Kind.MODEL_CALL) {
      parameterContracts(c.path, c.method, c.semantics, c.receiver, c.argumentTrees, c.arguments);
    }
  }

  /**
   * The tensor arguments of a call or a constructor ({@code new TensorDataset(x, y)}) at {@code
   * path} against {@code @OnDevice} on the parameters of {@code m}, the last one standing for every
   * argument of a varargs parameter.
   */
  void parameterContracts(
      TreePath path,
      ExecutableElement m,
      MethodSemantics s,
      Value receiver,
      List<? extends ExpressionTree> argumentTrees,
      List<Value> arguments) {
    String[] declared = s.parameterDevices;
    List<? extends VariableElement> params = m.getParameters();
    for (int i = 0; i < argumentTrees.size() && declared.length > 0; i++) {
      int p = m.isVarArgs() ? Math.min(i, declared.length - 1) : i;
      if (p >= declared.length || declared[p] == null) {
        continue;
      }
      TreePath ap = new TreePath(path, argumentTrees.get(i));
      if (ctx.types().isTensor(ctx.trees().getTypeMirror(ap))) {
        VariableElement param = params.get(p);
        String declaredDevice = declared[p];
        checks.contract(
            ap,
            arguments.get(i),
            scope.declaredPlace(declaredDevice, receiver),
            () ->
                "parameter "
                    + param.getSimpleName()
                    + " of "
                    + (m.getKind() == ElementKind.CONSTRUCTOR
                        ? m.getEnclosingElement().getSimpleName()
                        : m.getSimpleName())
                    + " (@OnDevice(\""
                    + declaredDevice
                    + "\"))");
      }
    }
  }

  /**
   * An argument the method called rejects ({@link RejectedArgument}): handed on to this body's own
   * callers where this body was given it, else told to the checks.
   */
  void rejectedArgument(MethodInterpreter.Call c, RejectedArgument r) {
    if (r.parameter() >= c.arguments.size()) {
      return;
    }
    Value arg = c.arguments.get(r.parameter());
    TreePath argPath = c.argumentPath(r.parameter());
    if (arg.place().givenParameter() >= 0) {
      ctx.rejected(
          new RejectedArgument(
              arg.place().givenParameter(),
              argPath,
              c.method.getSimpleName(),
              r.needed(),
              r.other()));
    } else if (Place.CPU.equals(arg.place()) && !arg.cpuScalarLike()) {
      checks.rejectedArgument(c, r, arg, argPath);
    }
  }

  // ------------------------------------------------------------------ conflicts

  /**
   * Whether operands are on different devices, or may be; a conflict is told to the checks, or,
   * where a caller gave the CPU operand, recorded for that caller ({@link CallResults}).
   */
  private boolean conflict(CharSequence op, TreePath at, Operand a, Operand b, boolean modelCall) {
    Place.Conflict level = Place.conflict(a.value.place(), b.value.place());
    if (a.role == Operand.Role.HELD
        && b.role == Operand.Role.HELD
        && Alternatives.exclusive(a.path, b.path)) {
      return false; // put on the two paths of an if: the container holds one or the other
    }
    if (level != Place.Conflict.NONE && (byPathFromAFactory(a) || byPathFromAFactory(b))) {
      level = Place.Conflict.NONE; // DefaultDeviceInModel reports it at its factory
    }
    if (level == Place.Conflict.NONE) {
      Operand cpu =
          a.value.origin() == Value.Origin.DEFAULT_DEVICE_FACTORY_ON_SOME_PATHS
              ? a
              : b.value.origin() == Value.Origin.DEFAULT_DEVICE_FACTORY_ON_SOME_PATHS ? b : null;
      if (cpu == null || !onTheCpuOnSomePaths(cpu, cpu == a ? b : a)) {
        return false;
      }
      checks.conflict(
          new DeviceConflict(
              op, at, a, b, level, modelCall, cpu, DeviceConflict.Culprit.DEFAULT_DEVICE_FACTORY));
      return true;
    }
    Operand given =
        a.value.place().givenParameter() >= 0
            ? a
            : b.value.place().givenParameter() >= 0 ? b : null;
    if (given != null) {
      // A caller gave it on the CPU: the caller's to move, reported at its call (CallResults).
      Operand other = given == a ? b : a;
      ctx.rejected(
          new RejectedArgument(
              given.value.place().givenParameter(), at, op, other.value.place(), other.text(ctx)));
      return true;
    }
    Operand cpu = a.onCpu() ? a : b.onCpu() ? b : null;
    checks.conflict(
        new DeviceConflict(
            op, at, a, b, inferred(level, a, b), modelCall, cpu, culprit(cpu, a, modelCall)));
    return true;
  }

  /** What put the CPU operand of a conflict on the CPU. */
  private DeviceConflict.Culprit culprit(Operand cpu, Operand a, boolean modelCall) {
    if (cpu == null) {
      return DeviceConflict.Culprit.OTHER;
    }
    if (modelCall && cpu == a && a.value.origin() == Value.Origin.REPLACED_PART) {
      return DeviceConflict.Culprit.REPLACED_PART;
    }
    if (modelCall && cpu == a && a.value.origin() == Value.Origin.UNMOVED_MODEL) {
      return DeviceConflict.Culprit.UNMOVED_MODEL;
    }
    return switch (cpu.value.origin()) {
      case DEFAULT_DEVICE_FACTORY, DEFAULT_DEVICE_FACTORY_ON_SOME_PATHS ->
          scope.isModelClass()
              ? DeviceConflict.Culprit.DEFAULT_DEVICE_FACTORY
              : DeviceConflict.Culprit.OTHER;
      case STATIC_CONSTANT -> DeviceConflict.Culprit.STATIC_CONSTANT;
      case PINNED_CPU -> DeviceConflict.Culprit.PINNED;
      case BATCH -> DeviceConflict.Culprit.BATCH;
      default -> DeviceConflict.Culprit.OTHER;
    };
  }

  /**
   * An operand on the CPU on some paths because a factory in a model made it there on those paths.
   */
  private static boolean byPathFromAFactory(Operand o) {
    return o.value.place().kind() == Place.Kind.BY_PATH && o.value.isDefaultDeviceFactory();
  }

  /**
   * Whether a tensor that a factory without a device makes on some paths ({@code if (h == null) h =
   * Tensor.zeros(b, n);}) meets one on a device, in a model: on those paths it is on the CPU.
   */
  private boolean onTheCpuOnSomePaths(Operand cpu, Operand device) {
    Place.Kind kind = device.value.place().kind();
    return scope.isModelClass()
        && (kind == Place.Kind.FIXED || kind == Place.Kind.SYMBOL)
        && interpreter.isCpuFactory(cpu.value.originPath().getLeaf());
  }

  /**
   * A conflict between two devices (neither the CPU) where one side is the output of a model of
   * unknown device, taken to be on its inputs' device, is possible only: the model may be split
   * over devices on purpose. Against the CPU it stays certain (targets left behind).
   */
  private static Place.Conflict inferred(Place.Conflict level, Operand a, Operand b) {
    boolean guessed =
        a.value.origin() == Value.Origin.MODEL_OUTPUT
            || b.value.origin() == Value.Origin.MODEL_OUTPUT;
    boolean cpu = a.onCpu() || b.onCpu();
    return guessed && !cpu ? Place.Conflict.POSSIBLE : level;
  }
}
