package dev.ondevice.processor.analysis;

import com.sun.source.tree.ExpressionTree;
import com.sun.source.tree.MethodInvocationTree;
import com.sun.source.tree.MethodTree;
import com.sun.source.tree.Tree;
import com.sun.source.util.TreePath;
import dev.ondevice.annotations.OnDevice;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.Supplier;
import javax.lang.model.element.Element;
import javax.lang.model.element.ElementKind;
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
    if (c.cpu() != null
        && c.cpu().value.origin() == Value.Origin.CPU_BY_CONSTRUCTION
        && chosenByConstruction(c, why)) {
      return;
    }
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
    if (moved == c.cpu()
        && (at.laterIteration()
            ? remadeInTheLoop(c, other, why, target, note)
            : madeByTheCallers(c, other, why, note))) {
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
   * A CPU operand that a move or factory put on a {@code Device} field which every object of its
   * class made here holds as the CPU by its constructors' choice ({@link ConstructedDevices}). In a
   * model, reported at that move: a field set when the model was made does not follow it when it
   * moves ({@code return out.to(self.device)}). In any other object, reported where it is made
   * without a device ({@code new KaplanMeierEstimator()}), the line to change. False where neither
   * is in this file.
   */
  private boolean chosenByConstruction(DeviceConflict c, String why) {
    Operand cpu = c.cpu();
    Operand device = c.device();
    TreePath made = cpu.value.originPath();
    VariableElement field = fieldOf(made);
    if (field == null || made.getCompilationUnit() != ctx.unit()) {
      return false;
    }
    TypeElement owner = (TypeElement) field.getEnclosingElement();
    List<TreePath> inFile =
        ctx.constructedAt(field).stream()
            .filter(site -> site.getCompilationUnit() == ctx.unit())
            .toList();
    // The objects made in the method where the tensors meet, if any: those are the ones used here.
    List<TreePath> here = inFile.stream().filter(site -> inTheMethodOf(site, c.at())).toList();
    List<TreePath> sites = here.isEmpty() ? inFile : here;
    String madeText =
        ctx.shortText(made.getLeaf()) + (made == c.at() ? "" : " (line " + ctx.lineOf(made) + ")");
    if (ctx.types().isModel(owner.asType())) {
      reportAt(
          CheckId.MIXED_DEVICES,
          made,
          c.at(),
          ctx.shortText(made.getLeaf())
              + " puts a tensor on "
              + field.getSimpleName()
              + ", which is the CPU in every "
              + owner.getSimpleName()
              + " made here"
              + madeWhere(sites)
              + ": a Device field set when a model is made does not follow it when it moves, and "
              + usedWith(c, device, why)
              + ". Take the device from the tensors it works on (an input's device()), not from "
              + field.getSimpleName(),
          c.possible());
      return true;
    }
    for (TreePath site : sites) {
      reportAt(
          CheckId.MIXED_DEVICES,
          site,
          c.at(),
          ctx.shortText(site.getLeaf())
              + " gives no device, so its "
              + field.getSimpleName()
              + " is the CPU, where "
              + madeText
              + " puts what it computes; "
              + usedWith(c, device, why)
              + ". Give it the device of the tensors it works on",
          c.possible());
    }
    return !sites.isEmpty();
  }

  /** The field a move's or factory's device argument names, if every object holds it as the CPU. */
  private VariableElement fieldOf(TreePath made) {
    if (!(made.getLeaf() instanceof MethodInvocationTree call)) {
      return null;
    }
    for (ExpressionTree a : call.getArguments()) {
      Element e = ctx.trees().getElement(new TreePath(made, a));
      if (e instanceof VariableElement f
          && e.getKind() == ElementKind.FIELD
          && ctx.constructedAt(f) != null) {
        return f;
      }
    }
    return null;
  }

  /** {@code (new WaveletConv(3, 8), line 52)} for the first two {@code new}s. */
  private String madeWhere(List<TreePath> sites) {
    if (sites.isEmpty()) {
      return "";
    }
    List<String> texts = new java.util.ArrayList<>();
    for (TreePath site : sites.subList(0, Math.min(2, sites.size()))) {
      texts.add(ctx.shortText(site.getLeaf()) + ", line " + ctx.lineOf(site));
    }
    return " (" + String.join("; ", texts) + (sites.size() > 2 ? "; ..." : "") + ")";
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
   * Reports a CPU operand that the loop's first iteration has on the device and a later one on the
   * CPU at the factories in this method that made it so ({@code evalMasks = Tensor.of(..)} at the
   * end of the loop, after {@code Tensor evalMasks = Tensor.zeros(shape, device)} before it): those
   * assignments are the lines to change. False where no such factory is known.
   */
  private boolean remadeInTheLoop(
      DeviceConflict c, Operand device, String why, String target, String note) {
    List<TreePath> made = c.cpu().value.madeAt();
    if (made.isEmpty()
        || !made.stream().allMatch(f -> inTheMethodOf(f, c.at()))
        || made.stream().anyMatch(f -> TreeSearch.within(f, c.at().getLeaf()))) {
      return false;
    }
    for (TreePath factory : made) {
      String remade =
          target != null && StatementFixes.usableAt(ctx, factory, DeviceTexts.leadingName(target))
              ? CreateThenMoveFix.suggestion(
                  ctx, factory, (MethodInvocationTree) factory.getLeaf(), target)
              : null;
      reportAt(
          CheckId.MIXED_DEVICES,
          factory,
          c.at(),
          ctx.shortText(factory.getLeaf())
              + " makes a tensor on the CPU here, which the loop's next iteration gives "
              + c.op()
              + " (line "
              + ctx.lineOf(c.at())
              + ") as "
              + c.cpu().text(ctx)
              + meeting(device, why, note)
              + (remade != null
                  ? "Create it there: " + remade
                  : "Move it to the device, where it was before the loop: "
                      + ctx.shortText(factory.getLeaf())
                      + ".to("
                      + (target == null ? "device" : target)
                      + ")"),
          c.possible(),
          remade == null
              ? null
              : Fix.replace("create it on the device", factory.getLeaf(), remade));
    }
    return true;
  }

  /**
   * Reports a CPU operand that the callers of this method made and passed on to it at the factories
   * that made it ({@code sequenceLength = Tensor.of(lengths)} in {@code dynamicRnn}, handed down to
   * the helper whose op meets the RNN's outputs): those are the lines to change. False where they
   * are not all in callers in this file.
   */
  private boolean madeByTheCallers(DeviceConflict c, Operand device, String why, String note) {
    List<TreePath> made = c.cpu().value.madeAt();
    if (made.isEmpty()
        || made.stream()
            .anyMatch(f -> f.getCompilationUnit() != ctx.unit() || inTheMethodOf(f, c.at()))) {
      return false;
    }
    TreePath method = LocalInitializers.enclosingMethod(c.at());
    String callee =
        method == null ? "the method" : ((MethodTree) method.getLeaf()).getName().toString();
    for (TreePath factory : made) {
      reportAt(
          CheckId.MIXED_DEVICES,
          factory,
          c.at(),
          ctx.shortText(factory.getLeaf())
              + " makes a tensor on the CPU here, which is passed on to "
              + callee
              + ", where "
              + c.op()
              + " (line "
              + ctx.lineOf(c.at())
              + ") gets it as "
              + c.cpu().text(ctx)
              + meeting(device, why, note)
              + "Create it on the device of the tensors it is used with, or move it there before"
              + " passing it on",
          c.possible());
    }
    return true;
  }

  /** {@code , with x on device; why. (note.) } of the two reports at a factory. */
  private String meeting(Operand device, String why, String note) {
    return ", with "
        + device.text(ctx)
        + " on "
        + device.value.place().describe()
        + "; "
        + why
        + ". "
        + (note == null ? "" : "(" + note + ".) ");
  }

  /** Whether {@code a} is in the body of the method that {@code b} is in. */
  private static boolean inTheMethodOf(TreePath a, TreePath b) {
    TreePath m = LocalInitializers.enclosingMethod(a);
    return m != null && m.getLeaf() == leafOf(LocalInitializers.enclosingMethod(b));
  }

  private static Tree leafOf(TreePath p) {
    return p == null ? null : p.getLeaf();
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
