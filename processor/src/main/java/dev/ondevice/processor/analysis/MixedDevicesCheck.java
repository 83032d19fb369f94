package dev.ondevice.processor.analysis;

import com.sun.source.tree.MethodInvocationTree;
import com.sun.source.tree.Tree;
import com.sun.source.util.TreePath;
import dev.ondevice.annotations.OnDevice;
import java.util.IdentityHashMap;
import java.util.Objects;
import java.util.Set;
import java.util.function.Supplier;
import javax.lang.model.element.TypeElement;
import javax.lang.model.element.VariableElement;

/**
 * {@link CheckId#MIXED_DEVICES}: tensors on provably different devices meet in one op, model call
 * or loss, or a tensor is given where {@code @OnDevice} declares another device. Conflicts that a
 * more specific check explains (a batch's targets, a factory in a model, a static constant, a model
 * never moved) are left to it.
 */
final class MixedDevicesCheck extends DeviceCheck {
  /**
   * Ops that look values up in their receiver by index: a table pinned to the CPU keeps its place
   * for them.
   */
  private static final Set<String> LOOKUPS = Set.of("indexSelect", "gather", "take");

  /**
   * Factories reported as the line to change ({@link #remadeOnTheDevice}), by the device they were
   * told to use: a later op that needs the same tensor on another device is reported at the op.
   */
  private final IdentityHashMap<Tree, String> remadeOn = new IdentityHashMap<>();

  MixedDevicesCheck(AnalysisContext ctx, Interpretation at, DeviceTexts texts) {
    super(ctx, at, texts);
  }

  @Override
  void conflict(DeviceConflict c) {
    if (c.culprit() == DeviceConflict.Culprit.PINNED) {
      pinned(c);
    } else if (c.culprit() == DeviceConflict.Culprit.OTHER) {
      other(c);
    }
  }

  /**
   * A tensor on the CPU assigned to the state of the model whose method this is ({@code globMean =
   * Checkpoint.load(file, MapLocation.to(Device.cpu())).stateDict().get("mean")}): after the model
   * moved, this state stays on the CPU while the rest is on the device. A factory without a device
   * is left to DefaultDeviceInModel, a field pinned with {@code @OnDevice("cpu")} is meant to be
   * there, and a 0-dim tensor may stand beside any device.
   */
  @Override
  void stateAssigned(TreePath value, VariableElement field, Value v) {
    if (!at.scope().isModelInstanceMethod()
        || !Place.CPU.equals(v.place())
        || v.zeroDim()
        || v.isDefaultDeviceFactory()
        || v.origin() == Value.Origin.PINNED_CPU
        || !(field.getEnclosingElement() instanceof TypeElement owner)
        || !ctx.types().isModel(owner.asType())
        || !OnDevice.MODEL.equals(
            Objects.requireNonNullElse(ctx.types().declaredDevice(field), OnDevice.MODEL))) {
      return;
    }
    String name = field.getSimpleName().toString();
    report(
        CheckId.MIXED_DEVICES,
        value,
        name
            + " is state of "
            + owner.getSimpleName()
            + ", which moves with the model,"
            + " but "
            + ctx.shortText(value.getLeaf())
            + " is on the CPU: once the model is on a device, "
            + name
            + " stays here and meets the model's other tensors on two devices. Assign it where the model is: "
            + texts.movedFrom(value, "device()"),
        false);
  }

  @Override
  void contract(TreePath path, Value v, Place declared, Supplier<String> what) {
    Place.Conflict level = Place.conflict(declared, v.place());
    if (level == Place.Conflict.NONE || v.cpuScalarLike()) {
      return;
    }
    // hostIds.to(device) given where the CPU is wanted: hostIds.to(Device.cpu()), not a second
    // move.
    report(
        CheckId.MIXED_DEVICES,
        path,
        ctx.shortText(path.getLeaf())
            + " is on "
            + v.place().describe()
            + ", but "
            + what.get()
            + " must be on "
            + declared.describe()
            + "; move it there: "
            + texts.movedFrom(path, texts.deviceText(declared, null)),
        level == Place.Conflict.POSSIBLE);
  }

  @Override
  void rejectedArgument(
      MethodInterpreter.Call c, RejectedArgument r, Value argument, TreePath argumentPath) {
    if (argument.origin() == Value.Origin.BATCH) {
      return; // TargetsNotMoved
    }
    RejectedArguments.Advice advice =
        RejectedArguments.advice(ctx, texts, r, argument, argumentPath);
    report(
        CheckId.MIXED_DEVICES,
        argumentPath,
        c.method.getSimpleName()
            + " gets "
            + ctx.shortText(argumentPath.getLeaf())
            + " on the CPU and "
            + advice.uses()
            + "; "
            + (advice.target() == null ? advice.move() : "move it: " + advice.move()),
        false,
        advice.fix());
  }

  private void pinned(DeviceConflict c) {
    Operand cpu = c.cpu();
    Operand device = c.device();
    String found =
        c.op()
            + " gets tensors on two devices: "
            + cpu.text(ctx)
            + " is pinned to the CPU"
            + " (@OnDevice(\"cpu\")) and "
            + device.text(ctx)
            + " is on "
            + device.value.place().describe()
            + "; a pinned tensor stays on the CPU when its model moves: ";
    if (LOOKUPS.contains(c.op().toString())) {
      // table.indexSelect(0, rows): the table stays on the host by design, so the indices move.
      String toCpu = device.text(ctx) + ".to(Device.cpu())";
      report(
          CheckId.MIXED_DEVICES,
          c.at(),
          found
              + "move "
              + device.text(ctx)
              + " to it for this lookup, "
              + toCpu
              + ", and the result to the device where it is needed",
          c.possible(),
          texts.moveFix(device, "Device.cpu()"));
    } else {
      String target = texts.deviceText(device.value.place(), device);
      report(
          CheckId.MIXED_DEVICES,
          c.at(),
          found
              + "if "
              + cpu.text(ctx)
              + " is needed on the device, remove"
              + " @OnDevice(\"cpu\") so that it moves with the model, or copy it for this op: "
              + cpu.text(ctx)
              + ".to("
              + target
              + ")",
          c.possible(),
          texts.moveFix(cpu, target));
    }
  }

  private void other(DeviceConflict c) {
    if (c.cpu() != null && c.cpu().role == Operand.Role.HELD) {
      held(c);
      return;
    }
    if (c.cpu() != null && c.cpu().value.origin() == Value.Origin.CPU_ACCUMULATOR) {
      accumulator(c);
      return;
    }
    Operand a = c.a();
    Operand b = c.b();
    Operand moved = c.cpu() != null ? c.cpu() : b;
    Operand other = moved == a ? b : a;
    String why =
        c.possible()
            ? "they may be different devices at run time"
            : c.cpu() != null && other.value.place().kind() == Place.Kind.SYMBOL
                ? "in device-agnostic code this runs only when "
                    + other.value.place().describe()
                    + " is the CPU, and fails on the GPU machine"
                : "the op fails at run time";
    String target = texts.deviceText(other.value.place(), other);
    String note = a.note != null ? a.note : b.note;
    String found =
        c.op()
            + " gets tensors on two devices: "
            + texts.describe(a)
            + " and "
            + texts.describe(b)
            + (at.laterIteration()
                ? " from the loop's second iteration on, as its first one leaves it there"
                : "")
            + "; "
            + why
            + ". "
            + (note == null ? "" : "(" + note + ".) ");
    String movedText = moved.text(ctx);
    if (moved.role == Operand.Role.IN_PLACE_RECEIVER) {
      // total.to(device).addi(x) would add into a copy: the receiver must be moved for good.
      report(
          CheckId.MIXED_DEVICES,
          c.at(),
          found
              + "An in-place op writes its result where "
              + movedText
              + " is: move "
              + movedText
              + " first ("
              + movedText
              + " = "
              + movedText
              + ".to("
              + target
              + ")), or create it there",
          c.possible());
      return;
    }
    if (ctx.containers().holdsTensors(ctx.trees().getTypeMirror(moved.path))) {
      if (moved == c.cpu() && heldPuts(c, other, why)) {
        return;
      }
      // forward(input) with a Map of CPU tensors: a container has no to(); its tensors move one by
      // one.
      report(
          CheckId.MIXED_DEVICES,
          c.at(),
          found
              + movedText
              + " holds tensors on the CPU: move each of them"
              + (target == null ? "" : " to " + target)
              + " where they are put into it",
          c.possible());
      return;
    }
    String created = texts.createdOn(moved, target);
    if (created != null) {
      report(
          CheckId.MIXED_DEVICES,
          c.at(),
          found + "Create " + movedText + " there: " + created,
          c.possible(),
          Fix.replace("create it on the device", moved.path.getLeaf(), created));
      return;
    }
    // A requirement inferred from a method's body (a note says why) is reported at the call, with
    // the why.
    if (moved == c.cpu()
        && target != null
        && note == null
        && remadeOnTheDevice(c, other, why, target)) {
      return;
    }
    report(
        CheckId.MIXED_DEVICES,
        c.at(),
        found + "Move " + movedText + ": " + texts.movedFrom(moved.path, target),
        c.possible(),
        texts.moveFix(moved, target));
  }

  /**
   * Whether {@code t} reads a tensor out of a JDK container that holds tensors on the CPU ({@code
   * inputs.get("input_ids")} of a map a helper filled on the host); a batch's are
   * TargetsNotMoved's.
   */
  private boolean cpuRead(Tree t) {
    if (!(t instanceof MethodInvocationTree call)
        || !(call.getMethodSelect() instanceof com.sun.source.tree.MemberSelectTree select)
        || !select.getIdentifier().contentEquals("get")
        || !(MethodInterpreter.skipParens(select.getExpression())
            instanceof com.sun.source.tree.IdentifierTree container)) {
      return false;
    }
    Value held = at.valueOf(container);
    return held != null
        && Place.CPU.equals(held.place())
        && held.origin() != Value.Origin.BATCH
        && !held.cpuPuts().isEmpty();
  }

  /**
   * A CPU operand read, through the method's locals, out of a container of CPU tensors ({@code
   * Tensor label = inputs.get("input_ids")} beside a moved copy of the map): reported at the read,
   * the line to change, with a move there.
   */
  private boolean readOnTheCpu(
      DeviceConflict c, Operand device, String why, String target, MadeOnTheCpu.Made made) {
    TreePath read = made.factory();
    String moved = ctx.shortText(read.getLeaf()) + ".to(" + target + ")";
    reportAt(
        CheckId.MIXED_DEVICES,
        read,
        c.at(),
        made.variable()
            + " is read here from a container of tensors on the CPU, and "
            + usedWith(c, device, why)
            + ". Move it where it is read: "
            + moved,
        c.possible(),
        Fix.replace("move it to the device", read.getLeaf(), moved));
    return true;
  }

  /**
   * A container of CPU tensors given where a device is needed ({@code model.forward(input)} with
   * {@code input} filled by a helper), reported where each CPU tensor put into it in this file was
   * made or read, the lines to change: the local's initializer where a local was put, else the put.
   * False where no put is known here.
   */
  private boolean heldPuts(DeviceConflict c, Operand device, String why) {
    boolean reported = false;
    for (Value.Put put : c.cpu().value.cpuPuts()) {
      if (put.at().getCompilationUnit() != ctx.unit()) {
        continue;
      }
      TreePath where =
          Objects.requireNonNullElse(
              LocalInitializers.soleInitializer(ctx, ctx.trees().getElement(put.at())), put.at());
      String target = texts.deviceAt(where, device);
      String moved = target == null ? null : texts.movedFrom(where, target);
      reportAt(
          CheckId.MIXED_DEVICES,
          where,
          c.at(),
          ctx.shortText(where.getLeaf())
              + " is on the CPU here and is put into a container (line "
              + ctx.lineOf(put.at())
              + ") that "
              + c.op()
              + " (line "
              + ctx.lineOf(c.at())
              + ") gets as "
              + c.cpu().text(ctx)
              + ", while "
              + texts.describe(device)
              + "; "
              + why
              + ". A container has no to(): move each tensor before it is put, "
              + (moved == null ? "to the device of " + device.text(ctx) : moved),
          c.possible(),
          moved == null ? null : Fix.replace("move it to the device", where.getLeaf(), moved));
      reported = true;
    }
    return reported;
  }

  /**
   * A field of a plain object that starts on the CPU and only ever accumulates into itself ({@code
   * rhoLoss = Tensor.cat(List.of(rhoLoss, loss))}), meeting a tensor on a device: reported at its
   * initializer, the line to change.
   */
  private void accumulator(DeviceConflict c) {
    Operand cpu = c.cpu();
    Operand device = c.device();
    String name = cpu.value.originName();
    reportAt(
        CheckId.MIXED_DEVICES,
        cpu.value.originPath(),
        c.at(),
        name
            + " starts here on the CPU, and each assignment computes its next value from it, so it"
            + " stays there; "
            + usedWith(
                c,
                device,
                c.possible()
                    ? "they may be different devices at run time"
                    : "the op fails when they differ")
            + ". Create "
            + name
            + " on the device of what it accumulates (a device given to the constructor), or move"
            + " what it accumulates to the CPU there: "
            + device.text(ctx)
            + ".to(Device.cpu())",
        c.possible());
  }

  /**
   * A container given a tensor on the CPU and one on a device, joined by one op ({@code
   * Tensor.stack(parts)}): reported where the CPU one was put, the line to change.
   */
  private void held(DeviceConflict c) {
    Operand cpu = c.cpu();
    Operand device = c.device();
    String target = texts.deviceAt(cpu.path, device);
    String found =
        c.op()
            + " (line "
            + ctx.lineOf(c.at())
            + ") joins tensors put into one container, and they are on"
            + " two devices: "
            + cpu.text(ctx)
            + " is put into it here on the CPU, and "
            + device.text(ctx)
            + " (line "
            + ctx.lineOf(device.path)
            + ") on "
            + device.value.place().describe()
            + "; "
            + (c.possible()
                ? "they may be different devices at run time"
                : "the op fails when they differ")
            + ". ";
    String created = texts.createdOn(cpu, target);
    if (created != null) {
      reportAt(
          CheckId.MIXED_DEVICES,
          cpu.path,
          c.at(),
          found + "Create it there: " + created,
          c.possible(),
          Fix.replace("create it on the device", cpu.path.getLeaf(), created));
    } else if (target != null) {
      reportAt(
          CheckId.MIXED_DEVICES,
          cpu.path,
          c.at(),
          found + "Move it there: " + texts.movedFrom(cpu.path, target),
          c.possible(),
          texts.moveFix(cpu, target));
    } else {
      reportAt(
          CheckId.MIXED_DEVICES,
          cpu.path,
          c.at(),
          found + "Create or move it on the device of " + device.text(ctx),
          c.possible());
    }
  }

  /**
   * Reports a CPU operand made by a factory in this method ({@link MadeOnTheCpu}) at that factory,
   * the line to change, with the factory's overload that takes the device; false where there is
   * none, or the device cannot be named there.
   */
  private boolean remadeOnTheDevice(DeviceConflict c, Operand device, String why, String target) {
    MadeOnTheCpu.Made made =
        MadeOnTheCpu.factoryOf(ctx, c.cpu().path, t -> at.isCpuFactory(t) || cpuRead(t));
    if (made == null
        || !StatementFixes.usableAt(ctx, made.factory(), DeviceTexts.leadingName(target))) {
      return false;
    }
    TreePath factory = made.factory();
    if (cpuRead(factory.getLeaf())) {
      return readOnTheCpu(c, device, why, target, made);
    }
    String remade =
        CreateThenMoveFix.suggestion(
            ctx, factory, (MethodInvocationTree) factory.getLeaf(), target);
    if (remade == null
        || !remadeOn.computeIfAbsent(factory.getLeaf(), f -> target).equals(target)) {
      return false;
    }
    // Where the initializer computes with other tensors, they must move too: no automatic fix then.
    reportAt(
        CheckId.MIXED_DEVICES,
        factory,
        c.at(),
        made.variable()
            + " is made here on the CPU, and "
            + usedWith(c, device, why)
            + ". Create it there: "
            + remade
            + (made.withOtherTensors() ? ", and the tensors it is computed with as well" : ""),
        c.possible(),
        made.withOtherTensors()
            ? null
            : Fix.replace("create it on the device", factory.getLeaf(), remade));
    return true;
  }

  /**
   * The op that uses a CPU tensor reported where it was made or read, and what it meets there:
   * {@code mul (line 16) uses it with mask, which is on device; why}.
   */
  private String usedWith(DeviceConflict c, Operand device, String why) {
    return c.op()
        + " (line "
        + ctx.lineOf(c.at())
        + ") uses it with "
        + device.text(ctx)
        + ", which is on "
        + device.value.place().describe()
        + "; "
        + why;
  }
}
