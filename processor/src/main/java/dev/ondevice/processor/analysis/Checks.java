package dev.ondevice.processor.analysis;

import com.sun.source.tree.BinaryTree;
import com.sun.source.tree.ClassTree;
import com.sun.source.tree.CompoundAssignmentTree;
import com.sun.source.tree.ExpressionTree;
import com.sun.source.tree.IdentifierTree;
import com.sun.source.tree.LambdaExpressionTree;
import com.sun.source.tree.MemberReferenceTree;
import com.sun.source.tree.MemberSelectTree;
import com.sun.source.tree.MethodInvocationTree;
import com.sun.source.tree.MethodTree;
import com.sun.source.tree.ParenthesizedTree;
import com.sun.source.tree.ReturnTree;
import com.sun.source.tree.Tree;
import com.sun.source.tree.TypeCastTree;
import com.sun.source.util.TreePath;
import com.sun.source.util.TreePathScanner;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import javax.lang.model.element.Element;
import javax.lang.model.element.ElementKind;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.Modifier;
import javax.lang.model.element.Name;
import javax.lang.model.element.TypeElement;
import javax.lang.model.element.VariableElement;
import javax.lang.model.type.ArrayType;
import javax.lang.model.type.TypeKind;
import javax.lang.model.type.TypeMirror;

/**
 * The checks, applied as the interpreter evaluates calls: each decides whether a value or a pair
 * of values is a bug, chooses the most specific check, and writes the message and fixes.
 */
final class Checks {
  /**
   * A tensor operand of an op: its value, where it is, and how to name it. The name is source text,
   * read only when a message needs it: most operands are never reported.
   */
  private final class Operand {
    final Value value;
    final TreePath path;
    /** The parameter the operand is passed as (a name, read only for messages), "self" or "the model". */
    final CharSequence argument;
    private final Tree named;
    final Role role;
    private String text;
    /** Why the operand must be on the device it is compared with, where that is not plain; or null. */
    String note;

    Operand(Value value, TreePath path, Tree named, CharSequence argument) {
      this(value, path, named, argument, Role.OPERAND);
    }

    Operand(Value value, TreePath path, Tree named, CharSequence argument, Role role) {
      this.value = value;
      this.path = path;
      this.named = named;
      this.argument = argument;
      this.role = role;
    }

    /** The operand as written, shortened for a message; {@code this} for the receiver of a model's own call. */
    String text() {
      if (text == null) {
        text = named == null ? "this" : ctx.shortText(named);
      }
      return text;
    }

    /**
     * A 0-dim CPU value, which may stand beside tensors on a device as PyTorch allows for the
     * operands of an op: not as the receiver of an in-place op, whose result stays on its device,
     * nor as one of the tensors {@code cat} and {@code stack} join.
     */
    boolean cpuScalar() {
      return role == Role.OPERAND && value.zeroDim() && Place.CPU.equals(value.place());
    }
  }

  /** What an operand is to its op. */
  private enum Role {
    OPERAND,
    /** The receiver of an in-place op: the result is written where it is. */
    IN_PLACE_RECEIVER,
    /** One of a list of tensors joined into one ({@code Tensor.cat(List.of(a, b), 0)}). */
    JOINED
  }

  private final AnalysisContext ctx;
  private final ModelScope scope;
  private final MethodInterpreter interpreter;
  /**
   * Factories reported as the line to change ({@link #remadeOnTheDevice}), by the device they
   * were told to use: a later op that needs the same tensor on another device is reported at the op.
   */
  private final IdentityHashMap<Tree, String> remadeOn = new IdentityHashMap<>();

  Checks(AnalysisContext ctx, ModelScope scope, MethodInterpreter interpreter) {
    this.ctx = ctx;
    this.scope = scope;
    this.interpreter = interpreter;
  }

  ModelScope scope() {
    return scope;
  }

  // ------------------------------------------------------------------ discarded results

  /**
   * {@code Tensor moved = x.to(device);} whose variable is never read, while {@code x} is read
   * afterwards: the move's result is as good as discarded, and the later uses of {@code x} still
   * see it where it was ({@code model.forward(x)} on the GPU machine fails).
   */
  void storedMoveNeverRead(TreePath move, MethodInvocationTree call, CharSequence stored, CharSequence original) {
    report(CheckId.DISCARDED_MOVE, move, stored + " holds " + ctx.shortText(call) + " but is never read, while "
        + original + " is used afterwards where it still is: tensors do not move in place; use " + stored
        + " instead of " + original + " after the move, or write " + original + " = " + ctx.shortText(call), false);
  }

  void discarded(TreePath path, MethodInvocationTree call, MethodSemantics s) {
    String text = ctx.shortText(call);
    String target = assignmentTarget(path, call);
    String assign = target == null ? "assign its result to a variable and use it" : "write " + target + " = " + text;
    Fix fix = target == null ? null : Fix.prefix("assign the result to " + target, call, target + " = ");
    if (s.kind == MethodSemantics.Kind.MOVE) {
      report(CheckId.DISCARDED_MOVE, path, text + " returns a new tensor and its result is discarded: tensors do not"
          + " move in place (models do); " + assign, false, fix);
    } else {
      // Not only "x = x.op()": a detach() is usually meant where the detached value is used, and
      // assigning it back would cut the gradient of every later use of x.
      String use = target == null ? assign : "use " + text + " where its result is needed, or " + assign
          + " if " + target + " itself must change";
      String inPlace = s.kind == MethodSemantics.Kind.FACTORY ? "" : ", or use the in-place form of the op if there is one";
      report(CheckId.DISCARDED_TENSOR_OP, path, text + " returns a new tensor and its result is discarded, so this"
          + " statement does nothing; " + use + inPlace, false, fix, inPlaceFix(path, call));
    }
  }

  /** A method reference to a pure tensor method passed as a function whose result is dropped. */
  void discardedReference(TreePath path, MemberReferenceTree reference, MethodSemantics s) {
    String text = ctx.shortText(reference);
    Element functional = ctx.types().types().asElement(ctx.trees().getTypeMirror(path));
    String as = functional == null ? "a function" : functional.getSimpleName().toString();
    // Tensor::cuda passed for each tensor can be mapped instead; x::relu (no argument) cannot.
    boolean perElement = ctx.trees().getElement(new TreePath(path, reference.getQualifierExpression()))
        instanceof TypeElement;
    String keep = perElement ? ", for example with stream().map(" + text + ").toList()" : "";
    if (s.kind == MethodSemantics.Kind.MOVE) {
      report(CheckId.DISCARDED_MOVE, path, text + " returns a new tensor, and the " + as + " it is passed as discards"
          + " it: tensors do not move in place (models do); keep the moved tensors" + keep, false);
    } else {
      report(CheckId.DISCARDED_TENSOR_OP, path, text + " returns a new tensor, and the " + as + " it is passed as"
          + " discards it, so it does nothing; keep the results" + keep + ", or use the in-place form of the op"
          + " if there is one", false);
    }
  }

  /**
   * The tensor variable at the root of a discarded chain ({@code x} in {@code x.sub(m).div(s)}) when
   * assigning the result to it is a fix: the variable is read afterwards. Null otherwise.
   */
  private String assignmentTarget(TreePath path, MethodInvocationTree call) {
    TreePath at = path;
    ExpressionTree t = call;
    while (t instanceof MethodInvocationTree && ((MethodInvocationTree) t).getMethodSelect() instanceof MemberSelectTree) {
      MemberSelectTree select = (MemberSelectTree) ((MethodInvocationTree) t).getMethodSelect();
      at = new TreePath(new TreePath(at, select), select.getExpression());
      t = MethodInterpreter.skipParens(select.getExpression());
    }
    if (t == call || !isVariable(at, t) || !ctx.types().isTensor(ctx.trees().getTypeMirror(at))) {
      return null;
    }
    Element variable = ctx.trees().getElement(at);
    if (variable.getModifiers().contains(Modifier.FINAL) || VariableUses.capturedInLambdaOrClass(ctx, path, variable)) {
      return null;
    }
    return VariableUses.readAfter(ctx, path, variable) ? ctx.text(t) : null;
  }

  /**
   * {@code x.add(y)} to {@code x.addi(y)} when the receiver is a variable (an in-place op on a
   * temporary would be discarded as well) and its class has that in-place method.
   */
  private Fix inPlaceFix(TreePath path, MethodInvocationTree call) {
    if (!(call.getMethodSelect() instanceof MemberSelectTree)) {
      return null;
    }
    MemberSelectTree select = (MemberSelectTree) call.getMethodSelect();
    TreePath receiver = new TreePath(new TreePath(path, select), select.getExpression());
    Element m = ctx.trees().getElement(path);
    if (!isVariable(receiver, MethodInterpreter.skipParens(select.getExpression()))
        || !(m instanceof ExecutableElement method) || !(m.getEnclosingElement() instanceof TypeElement)) {
      return null;
    }
    String inPlace = m.getSimpleName() + "i";
    List<? extends VariableElement> params = method.getParameters();
    for (ExecutableElement candidate : javax.lang.model.util.ElementFilter.methodsIn(
        m.getEnclosingElement().getEnclosedElements())) {
      if (candidate.getSimpleName().contentEquals(inPlace) && sameParameters(candidate.getParameters(), params)) {
        return Fix.replace("do it in place with " + inPlace, call, ctx.text(select.getExpression()) + "." + inPlace
            + "(" + String.join(", ", call.getArguments().stream().map(ctx::text).toArray(String[]::new)) + ")");
      }
    }
    return null;
  }

  private boolean sameParameters(List<? extends VariableElement> a, List<? extends VariableElement> b) {
    if (a.size() != b.size()) {
      return false;
    }
    for (int i = 0; i < a.size(); i++) {
      if (!ctx.types().types().isSameType(a.get(i).asType(), b.get(i).asType())) {
        return false;
      }
    }
    return true;
  }

  /** Ops that look values up in their receiver by index: a table pinned to the CPU keeps its place for them. */
  private static final Set<String> LOOKUPS = Set.of("indexSelect", "gather", "take");

  /** Whether an expression names a variable or a field, which a fix can assign to. */
  private boolean isVariable(TreePath path, ExpressionTree t) {
    if (!(t instanceof IdentifierTree || t instanceof MemberSelectTree)) {
      return false;
    }
    return ctx.trees().getElement(path) instanceof VariableElement;
  }

  // ------------------------------------------------------------------ host syncs and pending reads

  void hostSync(MethodInterpreter.Call c) {
    if (c.receiver != null && c.receiverTree != null) {
      pendingRead(c.receiverPath(), c.receiver);
    }
    boolean onHost = c.receiver != null && Place.CPU.equals(c.receiver.place());
    if (interpreter.inBatchLoop() && !onHost && !runsOnceOrPeriodically(c.path)
        && readsADevice(c.receiver, c.receiverTree == null ? null : c.receiverPath())) {
      hostSyncInLoop(c);
    } else if (!interpreter.inBatchLoop() && interpreter.forwardStep() != null && c.receiver != null
        && c.receiverTree != null && onADevice(c.receiver.place()) && c.semantics.kind != MethodSemantics.Kind.MOVE) {
      // A read the step's own computation waits for; not a copy of a result to the host (predict's cpu()).
      report(CheckId.HOST_SYNC_IN_LOOP, c.path, ctx.shortText(c.tree) + " makes the host wait for the device on every"
          + " step (" + interpreter.forwardStep() + "); keep the values on the device (a mask, a count, an index as a"
          + " tensor: where(), maskedFill(), indexSelect()), or compute them once outside the step", false);
    }
  }

  /**
   * Whether a read in the batch loop reads from a device: not from the CPU in the loop itself (an
   * unknown place counts, as the batch loop's tensors mostly are the model's); in a method called
   * once per batch ({@link StepMethods}), only from a device known there, its callers' arguments
   * included ({@link CallSites}), or from a tensor computed from the model's parameters ({@link
   * ParameterDerived}).
   */
  private boolean readsADevice(Value receiver, TreePath receiverPath) {
    return interpreter.stepReason() == null || (receiver != null && onADevice(receiver.place()))
        || (receiverPath != null && ParameterDerived.derives(ctx, receiverPath));
  }

  /** Whether a place is a device other than the CPU: the model's, a device variable's, a fixed GPU. */
  private static boolean onADevice(Place p) {
    return p.kind() == Place.Kind.SYMBOL || p.kind() == Place.Kind.FIXED;
  }

  /** Whether the code at {@code path} runs on some batches only ({@link SomeBatchesOnly}). */
  private boolean runsOnceOrPeriodically(TreePath path) {
    return SomeBatchesOnly.runs(path, interpreter.batchLoop());
  }

  private void hostSyncInLoop(MethodInterpreter.Call c) {
    String text = ctx.shortText(c.tree);
    TypeMirror result = c.method.getReturnType();
    String sum = accumulation(c);
    String tensor = c.receiverTree == null ? "x" : ctx.shortText(c.receiverTree);
    String total = tensor.equals("total") || tensor.startsWith("total.") ? "sum" : "total";
    String advice;
    if (sum != null) {
      advice = "accumulate on the device instead, as " + sum + ", and read the total once per epoch";
    } else if (result.getKind() == TypeKind.BOOLEAN) {
      advice = "read it once per epoch, or every n batches (if (step % 100 == 0) ...)";
    } else if (result.getKind().isPrimitive()) {
      advice = "keep the value on the device (a running sum as " + total + " = " + total + ".add(" + tensor
          + ".detach())) and read"
          + " it once per epoch, or read it every n batches (if (step % 100 == 0) ...)";
    } else {
      advice = "keep the values on the device in the loop and read them once per epoch";
    }
    String where = interpreter.stepReason() == null ? "a synchronisation inside the batch loop"
        : "a synchronisation on every batch: " + interpreter.stepReason();
    report(CheckId.HOST_SYNC_IN_LOOP, c.path, text + " makes the host wait for the device on every batch (" + where
        + "); " + advice, false, AccumulateOnDeviceFix.of(ctx, c.path));
  }

  /**
   * How to sum on the device what {@code c} reads into a running sum, {@code correct +=
   * pred.eq(yb).sum().itemAsLong()}: {@code correct = correct.add(pred.eq(yb).sum())} ({@code
   * .detach()} added for a floating-point read); null where the read is not added to a sum.
   */
  private String accumulation(MethodInterpreter.Call c) {
    if (!(c.path.getParentPath().getLeaf() instanceof CompoundAssignmentTree sum)
        || sum.getKind() != Tree.Kind.PLUS_ASSIGNMENT || sum.getExpression() != c.tree
        || !(sum.getVariable() instanceof IdentifierTree id) || c.receiverTree == null) {
      return null;
    }
    TypeKind read = c.method.getReturnType().getKind();
    if (read != TypeKind.DOUBLE && read != TypeKind.FLOAT && read != TypeKind.LONG && read != TypeKind.INT) {
      return null;
    }
    String total = id.getName().toString();
    String tensor = ctx.shortText(c.receiverTree);
    if (tensor.equals(total) || tensor.startsWith(total + ".")) {
      return null;
    }
    boolean floating = read == TypeKind.DOUBLE || read == TypeKind.FLOAT;
    return total + " = " + total + ".add(" + tensor + (floating ? ".detach()" : "") + ")";
  }

  /** A tensor printed or turned into a string: a host read. */
  void printed(TreePath path, Value v, boolean inString) {
    TypeMirror t = ctx.trees().getTypeMirror(path);
    if (!inString || !ctx.types().isTensor(t)) {
      return;
    }
    pendingRead(path, v);
    if (interpreter.inBatchLoop() && !Place.CPU.equals(v.place()) && !runsOnceOrPeriodically(path)
        && readsADevice(v, path)) {
      report(CheckId.HOST_SYNC_IN_LOOP, path, "printing " + ctx.shortText(path.getLeaf()) + " reads it on the host on"
          + " every batch (a synchronisation inside the batch loop); accumulate on the device and print once per"
          + " epoch", false);
    }
  }

  /** Tensors passed to the printing and formatting methods of the JDK. */
  void printedArguments(TreePath path, ExecutableElement m, List<? extends ExpressionTree> trees, List<Value> args) {
    if (ctx.types().prints(m)) {
      for (int i = 0; i < trees.size(); i++) {
        printed(new TreePath(path, trees.get(i)), args.get(i), true);
      }
    }
  }

  /** Reports reading the result of a non-blocking copy to the host before a synchronisation. */
  private void pendingRead(TreePath path, Value v) {
    if (v.pendingHostCopy()) {
      String text = ctx.shortText(path.getLeaf());
      report(CheckId.UNSYNCED_NON_BLOCKING_READ, path, text + " holds the result of a non-blocking copy to the host"
          + " and is read here before any synchronisation; in PyTorch this reads stale data. Call"
          + " Cuda.synchronize() first, or make the copy blocking", false,
          StatementFixes.before(ctx, path, "Cuda.synchronize();", "synchronise before reading", "dev.ondevice.Cuda"));
    }
  }

  // ------------------------------------------------------------------ moves

  Value move(MethodInterpreter.Call c, Place deviceArgument) {
    MethodSemantics s = c.semantics;
    Value receiver = c.receiver == null ? Value.UNKNOWN : c.receiver;
    if (c.receiverTree != null) {
      pendingRead(c.receiverPath(), receiver);
    }
    Place target = deviceArgument != null ? deviceArgument : moveTarget(c);
    boolean nonBlocking = s.nonBlockingParameter >= 0
        && Boolean.TRUE.equals(interpreter.constant(c.argumentPath(s.nonBlockingParameter)));
    if (nonBlocking && Place.CPU.equals(receiver.place()) && receiver.pinned() == Value.Tri.NO
        && target.isKnown() && !Place.CPU.equals(target) && c.receiverTree != null) {
      String x = ctx.shortText(c.receiverTree);
      report(CheckId.NON_BLOCKING_FROM_PAGEABLE, c.path, x + " is not in pinned memory, so " + ctx.shortText(c.tree)
          + " cannot copy asynchronously: the copy blocks and does not overlap with compute; pin the source ("
          + x + ".pinMemory(), or a DataLoader with pinMemory(true)), or drop nonBlocking", false,
          Fix.replace("copy blocking", c.argumentTrees.get(s.nonBlockingParameter), "false"));
    }
    boolean toADevice = c.receiverTree != null && !Place.CPU.equals(target)
        && (target.isKnown() || movesToANamedDevice(c));
    if (target.kind() == Place.Kind.FIXED && deviceArgument != null && c.receiverTree != null) {
      hardCodedDevice(c, target);
    }
    if (toADevice && (c.isCpuFactory(c.receiverTree) || helperWithADeviceOverload(c, receiver))) {
      createThenMove(c);
    } else if (toADevice) {
      TreePath factory = factoryUnderHostOps(c.receiverPath(), c);
      String device = deviceArgumentText(c) == null ? "the device" : deviceArgumentText(c);
      if (factory != null) {
        report(CheckId.CREATE_THEN_MOVE, c.path, ctx.shortText(c.receiverTree) + " is computed on the CPU from "
            + ctx.shortText(factory.getLeaf()) + " and " + moveText(c) + " copies it to the device right away;"
            + " compute it there instead: create " + ctx.shortText(factory.getLeaf()) + " on the device (pass "
            + device + " to the factory)", false);
      } else if (everyStep() != null
          && (factory = ctx.computedOnTheHost().factoryBehind(c.receiverPath(), c.path)) != null) {
        // Through a variable or a helper, only where it costs on every step: set-up code that builds
        // on the CPU and moves once (data standing in for what was loaded) is left alone.
        report(CheckId.CREATE_THEN_MOVE, c.path, ctx.shortText(c.receiverTree) + " is computed on the CPU, from"
            + " factories such as " + ctx.shortText(factory.getLeaf()) + " (" + ctx.placeOf(factory) + "), and "
            + moveText(c) + " copies it to the device " + everyStep() + "; compute it there instead: pass " + device
            + " down to those factories", false);
      }
    }
    boolean fromDevice = receiver.place().kind() == Place.Kind.FIXED || receiver.place().kind() == Place.Kind.SYMBOL;
    // A blocking copy to the host of a tensor not known to be there waits for the device, as cpu() does.
    if (!nonBlocking && Place.CPU.equals(target) && !Place.CPU.equals(receiver.place()) && c.receiverTree != null
        && interpreter.inBatchLoop() && !s.hostSync && !runsOnceOrPeriodically(c.path)
        && readsADevice(receiver, c.receiverPath())) {
      hostSyncInLoop(c);
    }
    if (!nonBlocking && Place.CPU.equals(target) && fromDevice) {
      interpreter.env().completePendingHostCopies();
    }
    Value result = Value.fresh(target).withZeroDim(receiver.zeroDim());
    if (s.pins) {
      result = result.withPinned(Value.Tri.YES);
    }
    if (nonBlocking && Place.CPU.equals(target) && fromDevice) {
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

  /**
   * {@code x.to(Device.parse("cuda"))} in a body that moves its other tensors to {@code device}:
   * they agree only where {@code device} is that GPU (a run on {@code cuda:1}, or on the CPU, mixes
   * them).
   */
  private void hardCodedDevice(MethodInterpreter.Call c, Place target) {
    TreePath user = c.path.getParentPath();
    while (user != null && user.getLeaf() instanceof ParenthesizedTree) {
      user = user.getParentPath();
    }
    if (user == null || user.getLeaf() instanceof MethodInvocationTree
        || user.getLeaf() instanceof MemberSelectTree) {
      return; // w.mul(x.to(Device.cuda(1))): the op it meets says so, as MixedDevices
    }
    String variable = HardCodedDevices.deviceVariableBeside(c.path, ctx);
    if (variable == null) {
      return;
    }
    ExpressionTree device = c.argumentTrees.get(c.semantics.deviceParameter);
    report(CheckId.HARD_CODED_DEVICE, c.path, ctx.shortText(c.tree) + " moves " + ctx.shortText(c.receiverTree)
        + " to " + target.describe() + ", a device written into the code, while this code moves its other tensors to "
        + variable + ": they meet on different devices wherever " + variable + " is not " + target.describe()
        + " (another GPU, or the CPU); move it to " + variable + " as well", false,
        Fix.replace("move it to " + variable, device, variable));
  }

  /**
   * Whether the tensor moved comes on the CPU from a method of the user's that has an overload
   * taking a device ({@code makeCoordsGrid(b, h, w).to(d)} beside {@code makeCoordsGrid(b, h, w,
   * device)}): a factory of the user's, called without its device.
   */
  private boolean helperWithADeviceOverload(MethodInterpreter.Call c, Value receiver) {
    if (!Place.CPU.equals(receiver.place()) || !(c.receiverTree instanceof MethodInvocationTree helper)) {
      return false;
    }
    TreePath helperPath = c.receiverPath();
    return ctx.trees().getElement(helperPath) instanceof ExecutableElement m
        && ctx.semantics(m).kind == MethodSemantics.Kind.OTHER && ctx.trees().getPath(m) != null
        && CreateThenMoveFix.suggestion(ctx, helperPath, helper, "device") != null;
  }

  private void createThenMove(MethodInterpreter.Call c) {
    ExpressionTree factory = MethodInterpreter.skipParens(c.receiverTree);
    String factoryText = ctx.shortText(factory);
    String device = deviceArgumentText(c);
    String suggestion = device == null || !(factory instanceof MethodInvocationTree call) ? null
        : CreateThenMoveFix.suggestion(ctx, c.receiverPath(), call, device);
    Fix fix = suggestion == null ? null : Fix.replace("create the tensor on the device", c.tree, suggestion);
    report(CheckId.CREATE_THEN_MOVE, c.path, factoryText + " creates the tensor on the CPU and " + moveText(c)
        + " copies it to the device right away; create it there instead"
        + (suggestion == null ? ": pass the device to the factory" : ": " + suggestion), false, fix);
  }

  /**
   * The CPU factory at the bottom of a chain of ops that take no other tensor ({@code
   * Tensor.arange(0, half).to(DType.FLOAT32).mul(-k).div(half).exp()}): computed on the CPU only
   * to be moved. Null where the chain holds another tensor, a variable, or no factory.
   */
  private TreePath factoryUnderHostOps(TreePath receiver, MethodInterpreter.Call c) {
    TreePath p = receiver;
    for (int depth = 0; depth < 16; depth++) {
      ExpressionTree e = MethodInterpreter.skipParens((ExpressionTree) p.getLeaf());
      if (!(e instanceof MethodInvocationTree call) || !(call.getMethodSelect() instanceof MemberSelectTree select)) {
        return null;
      }
      TreePath callPath = new TreePath(p, e);
      if (depth > 0 && c.isCpuFactory(call)) {
        return callPath;
      }
      for (ExpressionTree a : call.getArguments()) {
        TypeMirror t = ctx.trees().getTypeMirror(new TreePath(callPath, a));
        if (t == null || (ctx.types().isTensor(t) && !c.valueOf(a).cpuScalarLike()) || ctx.containers().holdsTensors(t)) {
          return null; // another tensor: what is computed depends on it (a 0-dim CPU scalar does not count)
        }
      }
      if (!ctx.types().isTensor(ctx.trees().getTypeMirror(new TreePath(new TreePath(callPath, select),
          select.getExpression())))) {
        return null;
      }
      p = new TreePath(new TreePath(callPath, select), select.getExpression());
    }
    return null;
  }

  /** When the code runs once per step, said for a message ({@code on every forward pass}); null when it does not. */
  private String everyStep() {
    if (interpreter.inBatchLoop()) {
      return "on every batch";
    }
    return interpreter.forwardStep() != null ? "on every forward pass" : null;
  }

  /**
   * Whether a move names its device, though where that is is not known here: {@code
   * to(timesteps.device())}, {@code to(dev)} with {@code dev} a {@code Device} variable.
   */
  private boolean movesToANamedDevice(MethodInterpreter.Call c) {
    int i = c.semantics.deviceParameter;
    if (i < 0 || i >= c.argumentTrees.size()) {
      return false;
    }
    ExpressionTree a = MethodInterpreter.skipParens(c.argumentTrees.get(i));
    return (a instanceof MethodInvocationTree call && call.getMethodSelect() instanceof MemberSelectTree select
        && select.getIdentifier().contentEquals("device") && call.getArguments().isEmpty())
        || (a instanceof IdentifierTree && ctx.types().isDevice(ctx.trees().getTypeMirror(c.argumentPath(i))));
  }

  /** The move without its receiver: {@code to(device)} of {@code Tensor.zeros(3).to(device)}. */
  private String moveText(MethodInterpreter.Call c) {
    CharSequence name = ((MemberSelectTree) c.tree.getMethodSelect()).getIdentifier();
    List<String> args = new ArrayList<>();
    for (ExpressionTree a : c.argumentTrees) {
      args.add(ctx.shortText(a));
    }
    return name + "(" + String.join(", ", args) + ")";
  }

  /** The source of the move's Device argument, or null. */
  private String deviceArgumentText(MethodInterpreter.Call c) {
    int i = c.semantics.deviceParameter;
    return i >= 0 && i < c.argumentTrees.size() ? ctx.text(c.argumentTrees.get(i)) : null;
  }

  // ------------------------------------------------------------------ ops

  Value sameDevice(MethodInterpreter.Call c) {
    List<Operand> operands = new ArrayList<>(c.argumentTrees.size() + 1);
    if (c.receiver != null && c.receiverTree != null && ctx.types().isTensor(
        ctx.trees().getTypeMirror(c.receiverPath()))) {
      operands.add(new Operand(c.receiver, c.receiverPath(), c.receiverTree, "self",
          c.semantics.inPlace ? Role.IN_PLACE_RECEIVER : Role.OPERAND));
    } else if (c.receiver != null && c.receiverTree == null && scope.isModelInstanceMethod()
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
              operands.add(new Operand(c.valueOf(element), ep, element, name, Role.JOINED));
            }
          }
        } else if (c.arguments.get(i).place().isKnown()) {
          operands.add(new Operand(c.arguments.get(i), ap, c.argumentTrees.get(i), name, Role.JOINED)); // a list's tensors
        }
      }
    }
    for (Operand o : operands) {
      pendingRead(o.path, o.value);
    }
    parameterContracts(c);
    if (c.semantics.crossDevice) {
      return c.receiver == null ? Value.UNKNOWN : c.receiver;
    }
    Operand reference = null;
    boolean reported = false;
    Place movedTo = null;
    for (Operand o : operands) {
      if (!o.value.place().isKnown()) {
        continue;
      }
      if (reference == null || (reference.cpuScalar() && !o.cpuScalar())) {
        reference = o;
        continue;
      }
      if (o.cpuScalar() || (reported && Place.CPU.equals(o.value.place()) == Place.CPU.equals(reference.value.place()))) {
        continue;
      }
      // Every culprit is reported: after a CPU operand is reported against a device one, the device
      // one is the reference that the next CPU operands are compared with (two factories in one cat).
      boolean conflict = conflict(c.method.getSimpleName(), c.path, reference, o, false);
      if (conflict && Place.CPU.equals(reference.value.place())) {
        movedTo = o.value.place();
        reference = o;
      }
      reported |= conflict;
    }
    if (!reported && reference != null && !reference.cpuScalar()) {
      for (Operand o : operands) {
        if (!reported && o.value.origin() == Value.Origin.DEFAULT_DEVICE_FACTORY_ON_SOME_PATHS
            && !o.value.place().isKnown()) {
          reported = conflict(c.method.getSimpleName(), c.path, reference, o, false); // if (h == null) h = zeros(..)
        }
      }
      for (Operand o : operands) {
        if (!reported && o.value.place().kind() == Place.Kind.BY_PATH && !o.value.zeroDim()
            && !o.value.isDefaultDeviceFactory()) {
          reported = conflict(c.method.getSimpleName(), c.path, reference, o, false); // if (gpu) x = x.to(device)
        }
      }
    }
    // Reported with a CPU operand first, the result is where the other operand is, as the fix moves
    // the CPU one there: what is computed from it is not reported again
    // (classWeights.indexSelect(0, yb).mul(loss)).
    Place place = reference == null ? Place.UNKNOWN : movedTo != null ? movedTo : reference.value.place();
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
    Value result = Value.fresh(place).withZeroDim(c.semantics.zeroDim(c.argumentTrees.size()) || keepsZeroDim(c, operands));
    if (Place.CPU.equals(place) && c.receiver != null && c.receiver.pinned() != Value.Tri.NO) {
      // The result may be a view of the receiver's memory (view, narrow, ...), pinned if it is.
      result = result.withPinned(Value.Tri.MAYBE);
    }
    if (Place.CPU.equals(result.place())) {
      for (Operand o : operands) {
        if (o.value.origin() != Value.Origin.NONE && Place.CPU.equals(o.value.place())) {
          return result.withOrigin(o.value.origin(), o.value.originPath(), o.value.originName());
        }
      }
    }
    return reference == null || reference.cpuScalar() ? onSomePaths(result, operands) : result;
  }

  /**
   * The result of an op whose one tensor operand is on the CPU on some paths only ({@code
   * h.mul(2.0).tanh()} after {@code if (h == null) h = Tensor.zeros(..)}): the same, on those paths.
   */
  private static Value onSomePaths(Value result, List<Operand> operands) {
    Operand factory = null;
    for (Operand o : operands) {
      if (o.value.origin() == Value.Origin.DEFAULT_DEVICE_FACTORY_ON_SOME_PATHS && !o.value.zeroDim()) {
        factory = factory == null ? o : null;
        if (factory == null) {
          return result;
        }
      } else if (!o.cpuScalar()) {
        return result;
      }
    }
    return factory == null || result.zeroDim() ? result
        : result.withOrigin(factory.value.origin(), factory.value.originPath(), null);
  }

  /**
   * Whether a call makes a collection of its arguments, as {@code List.of}, {@code Set.of} and
   * {@code Arrays.asList} do: a static method of one type variable whose parameters are all of
   * it (or arrays of it), so that the arguments are the elements. The arguments of any other call
   * in a collection's place (a helper that moves its tensors, say) are not.
   */
  private boolean isCollectionFactory(Element e) {
    if (!(e instanceof ExecutableElement m) || !m.getModifiers().contains(Modifier.STATIC)
        || m.getTypeParameters().size() != 1 || m.getParameters().isEmpty()) {
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

  /** The text of a variable or field that {@code t} names, through parentheses and casts; null for another expression. */
  private String variableText(Tree t) {
    Tree e = t;
    while (e instanceof ParenthesizedTree || e instanceof TypeCastTree) {
      e = e instanceof ParenthesizedTree p ? p.getExpression() : ((TypeCastTree) e).getExpression();
    }
    return e instanceof IdentifierTree || e instanceof MemberSelectTree ? ctx.shortText(e) : null;
  }

  /** Whether {@code m} takes a list or an array of tensors ({@code stack}, {@code cat}): its result has a dimension more. */
  private boolean joinsTensors(ExecutableElement m) {
    for (VariableElement p : m.getParameters()) {
      TypeMirror t = p.asType();
      if (ctx.types().isTensorIterable(t)
          || (t.getKind() == TypeKind.ARRAY && ctx.types().isTensor(((ArrayType) t).getComponentType()))) {
        return true;
      }
    }
    return false;
  }

  /**
   * Checks the tensor arguments of a model call against the model's device; the result is on it
   * (unknown after a report). Where the model's device is not known, its arguments are not compared
   * with each other: a model may take tensors on several devices on purpose (model parallelism, CPU
   * lengths for a packed sequence).
   */
  Value modelCall(MethodInterpreter.Call c) {
    Value model = c.receiver == null ? Value.UNKNOWN : c.receiver;
    Operand modelOperand = new Operand(model, c.receiverPath(), c.receiverTree, "the model");
    List<? extends VariableElement> params = c.method.getParameters();
    // Where the model is not known, its inputs must still agree with one another: the inputs moved
    // to its device and the mask left on the CPU (model.forward(ids.to(device), mask)).
    Operand firstInput = null;
    for (int i = 0; i < c.argumentTrees.size() && i < params.size(); i++) {
      TreePath ap = c.argumentPath(i);
      if (!ctx.types().isTensor(ctx.trees().getTypeMirror(ap))) {
        continue;
      }
      Value arg = c.arguments.get(i);
      pendingRead(ap, arg);
      Operand argument = new Operand(arg, ap, c.argumentTrees.get(i), params.get(i).getSimpleName());
      String declared = c.semantics.parameterDevices[i];
      if (declared == null && ctx.deviceNeutralParameter(c.method, i)) {
        continue; // forward(ids, lengths) reading lengths on the host, load(vectors) copying them in
      }
      if (declared != null && !declared.equals(dev.ondevice.annotations.OnDevice.MODEL)) {
        VariableElement param = params.get(i);
        contract(ap, arg, scope.declaredPlace(declared, model), () -> "parameter " + param.getSimpleName() + " of "
            + c.method.getSimpleName() + " (@OnDevice(\"" + declared + "\"))");
      } else if (!arg.cpuScalarLike()) {
        if (declared == null && !c.method.getSimpleName().contentEquals("forward") && ctx.isUserModelMethod(c.method)) {
          argument.note = c.method.getSimpleName() + " is taken to need " + params.get(i).getSimpleName() + " on the"
              + " model's device: its body uses it where the device matters (with the model's state or outputs,"
              + " returned, stored or converted)";
        }
        if (conflict(c.method.getSimpleName(), c.path, modelOperand, argument, true)) {
          return Value.UNKNOWN;
        }
        if (!model.place().isKnown() && arg.place().isKnown() && !spreadOverDevices(c.method)) {
          if (firstInput == null) {
            firstInput = argument;
          } else if (conflict(c.method.getSimpleName(), c.path, firstInput, argument, true)) {
            return Value.UNKNOWN;
          }
        }
      }
    }
    if (c.semantics.returnDevice != null) {
      return Value.on(scope.declaredPlace(c.semantics.returnDevice, model));
    }
    if (!c.semantics.returnsTensor && !ctx.containers().holdsTensors(c.method.getReturnType())) {
      return Value.UNKNOWN; // forward returning a Map<String, Tensor> of outputs is followed as a tensor is
    }
    switch (ctx.returns(c.method)) {
      case CPU -> {
        return Value.fresh(Place.CPU); // predict(x) ending in .cpu()
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
      if (ctx.types().isTensor(ctx.trees().getTypeMirror(c.argumentPath(i))) && !arg.cpuScalarLike()) {
        inputs = inputs.join(arg.place());
      }
    }
    return Place.NONE.equals(inputs) ? Value.fresh(Place.UNKNOWN)
        : Value.fresh(inputs).withOrigin(Value.Origin.MODEL_OUTPUT, c.path, null);
  }

  /** Whether {@code m}'s model places its parts on devices of their own (PyTorch's model-parallel tutorial). */
  private boolean spreadOverDevices(ExecutableElement m) {
    return m.getEnclosingElement() instanceof javax.lang.model.element.TypeElement owner
        && ctx.placesPartsItself(owner);
  }

  /** Checks tensor arguments against {@code @OnDevice} on the parameters of any method. */
  void parameterContracts(MethodInterpreter.Call c) {
    if (c.semantics.kind != MethodSemantics.Kind.MODEL_CALL) {
      parameterContracts(c.path, c.method, c.semantics, c.receiver, c.argumentTrees, c.arguments);
    }
  }

  /**
   * Checks the tensor arguments of a call or a constructor ({@code new TensorDataset(x, y)}) at
   * {@code path} against {@code @OnDevice} on the parameters of {@code m}, the last one standing for
   * every argument of a varargs parameter.
   */
  void parameterContracts(TreePath path, ExecutableElement m, MethodSemantics s, Value receiver,
      List<? extends ExpressionTree> argumentTrees, List<Value> arguments) {
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
        contract(ap, arguments.get(i), scope.declaredPlace(declaredDevice, receiver), () -> "parameter "
            + param.getSimpleName() + " of " + (m.getKind() == ElementKind.CONSTRUCTOR
            ? m.getEnclosingElement().getSimpleName() : m.getSimpleName()) + " (@OnDevice(\"" + declaredDevice + "\"))");
      }
    }
  }

  /**
   * A tensor that a model's method creates on the CPU for want of a device and returns ({@code
   * return Tensor.zeros(batch, hidden);} in {@code initHidden}): its callers combine it with the
   * model's state or outputs, on the model's device once the model has moved. Host data ({@code
   * Tensor.of(ids)}) and 0-dim scalars are on the CPU on purpose.
   */
  void returned(TreePath expression, Value v, ExecutableElement method) {
    if (!v.isDefaultDeviceFactory() || !scope.isModelInstanceMethod()
        || !interpreter.isCpuFactory(v.originPath().getLeaf()) || returnsCpuElsewhere(expression)
        || CallersOfMethod.takeItOnTheCpu(expression, method, ctx.trees())) {
      return;
    }
    boolean somePaths = v.origin() == Value.Origin.DEFAULT_DEVICE_FACTORY_ON_SOME_PATHS;
    TreePath factory = v.originPath();
    String device = modelDeviceIn(method, expression);
    String onDevice = device != null && factory.getLeaf() instanceof MethodInvocationTree call
        ? CreateThenMoveFix.suggestion(ctx, factory, call, device) : null;
    Name name = method.getSimpleName();
    reportAt(CheckId.DEFAULT_DEVICE_IN_MODEL, factory, expression, ctx.shortText(factory.getLeaf()) + " creates a"
        + " tensor on the CPU (the default device) that " + name + " returns" + (somePaths ? " on some paths" : "")
        + ": once the model has moved, its callers"
        + " get it on the CPU beside the model's tensors; create it on the model's device, passing "
        + (device != null ? device : "the device of the tensors it is used with") + " to the factory, or declare "
        + name + " @OnDevice(\"cpu\") if it is meant to be on the CPU", somePaths,
        onDevice == null ? null : Fix.replace("create it on the device", factory.getLeaf(), onDevice));
  }

  /**
   * How a model's method names the model's device: {@code x.device()} of its first tensor parameter,
   * else {@code device()}, the device of the model's state; null for a model without state, whose
   * {@code device()} is always the CPU.
   */
  private String modelDeviceIn(ExecutableElement method, TreePath inMethod) {
    for (VariableElement p : method.getParameters()) {
      if (ctx.types().isTensor(p.asType()) && !comparedWithNull(p.getSimpleName(), inMethod)) {
        return p.getSimpleName() + ".device()";
      }
    }
    return ctx.types().hasState(method.getEnclosingElement().asType()) ? "device()" : null;
  }

  /**
   * Whether the method at {@code inMethod} has a {@code return} that copies a tensor to the host
   * ({@code return ids.ne(0).sum(1).cpu();}): it means to return host tensors.
   */
  private static boolean returnsCpuElsewhere(TreePath inMethod) {
    Tree m = enclosingMethod(inMethod);
    return m != null && TreeSearch.contains(m, t -> t instanceof ReturnTree r && r.getExpression() != null
        && ModelMethodSource.isMoveToCpu(ModelMethodSource.skipParensAndCasts(r.getExpression()), false),
        t -> t instanceof ClassTree || t instanceof LambdaExpressionTree);
  }

  /** Whether the method at {@code inMethod} compares {@code name} with null ({@code prev == null ? ...}): it may be null. */
  private static boolean comparedWithNull(CharSequence name, TreePath inMethod) {
    Tree m = enclosingMethod(inMethod);
    return m != null && TreeSearch.contains(m, t -> t instanceof BinaryTree b
        && (b.getKind() == Tree.Kind.EQUAL_TO || b.getKind() == Tree.Kind.NOT_EQUAL_TO)
        && (isNamed(b.getLeftOperand(), name) || isNamed(b.getRightOperand(), name))
        && (b.getLeftOperand().getKind() == Tree.Kind.NULL_LITERAL || b.getRightOperand().getKind() == Tree.Kind.NULL_LITERAL),
        t -> false);
  }

  private static Tree enclosingMethod(TreePath path) {
    TreePath m = path;
    while (m != null && !(m.getLeaf() instanceof MethodTree)) {
      m = m.getParentPath();
    }
    return m == null ? null : m.getLeaf();
  }

  private static boolean isNamed(ExpressionTree e, CharSequence name) {
    return MethodInterpreter.skipParens(e) instanceof IdentifierTree id && id.getName().contentEquals(name);
  }

  /** Checks a value against a declared place ({@code @OnDevice} on a parameter, return or variable). */
  void contract(TreePath path, Value v, Place declared, Supplier<String> what) {
    Place.Conflict level = Place.conflict(declared, v.place());
    if (level == Place.Conflict.NONE || v.cpuScalarLike()) {
      return;
    }
    String text = ctx.shortText(path.getLeaf());
    // hostIds.to(device) given where the CPU is wanted: hostIds.to(Device.cpu()), not a second move.
    report(CheckId.MIXED_DEVICES, path, text + " is on " + v.place().describe() + ", but " + what.get() + " must be on "
        + declared.describe() + "; move it there: " + movedFrom(path, deviceText(declared, null)),
        level == Place.Conflict.POSSIBLE);
  }

  // ------------------------------------------------------------------ conflicts

  /**
   * Reports operands on provably different devices with the most specific check; returns whether
   * it reported.
   */
  private boolean conflict(CharSequence op, TreePath at, Operand a, Operand b, boolean modelCall) {
    Place.Conflict level = Place.conflict(a.value.place(), b.value.place());
    if (level != Place.Conflict.NONE && (byPathFromAFactory(a) || byPathFromAFactory(b))) {
      level = Place.Conflict.NONE; // DefaultDeviceInModel reports it at its factory
    }
    if (level == Place.Conflict.NONE) {
      return (a.value.origin() == Value.Origin.DEFAULT_DEVICE_FACTORY_ON_SOME_PATHS
          || b.value.origin() == Value.Origin.DEFAULT_DEVICE_FACTORY_ON_SOME_PATHS) && onTheCpuOnSomePaths(at, a, b);
    }
    Operand given = a.value.place().givenParameter() >= 0 ? a : b.value.place().givenParameter() >= 0 ? b : null;
    if (given != null) {
      // A caller gave it on the CPU: the caller's to move, reported at its call (CallResults).
      Operand other = given == a ? b : a;
      ctx.rejected(new RejectedArgument(given.value.place().givenParameter(), at, op, other.value.place(),
          other.text()));
      return true;
    }
    return reportConflict(inferred(level, a, b), op, at, a, b, modelCall);
  }

  /** An operand on the CPU on some paths because a factory in a model made it there on those paths. */
  private static boolean byPathFromAFactory(Operand o) {
    return o.value.place().kind() == Place.Kind.BY_PATH && o.value.isDefaultDeviceFactory();
  }

  /**
   * A tensor this body gives a method on the CPU, where the method's body meets it with a tensor on
   * a device ({@link RejectedArgument}): reported at the argument, or, where this body was itself
   * given it, handed on to its own callers.
   */
  void rejectedArgument(MethodInterpreter.Call c, RejectedArgument r) {
    if (r.parameter() >= c.arguments.size()) {
      return;
    }
    Value arg = c.arguments.get(r.parameter());
    TreePath argPath = c.argumentPath(r.parameter());
    if (arg.place().givenParameter() >= 0) {
      ctx.rejected(new RejectedArgument(arg.place().givenParameter(), argPath, c.method.getSimpleName(), r.needed(),
          r.other()));
      return;
    }
    if (!Place.CPU.equals(arg.place()) || arg.cpuScalarLike()) {
      return;
    }
    Operand cpu = new Operand(arg, argPath, argPath.getLeaf(), null);
    String uses = "uses it in " + r.op() + " (line " + ctx.lineOf(r.at()) + ") with " + r.other() + " on "
        + r.needed().describe();
    String target = namedInCode(r.needed()) && StatementFixes.usableAt(ctx, argPath, leadingName(r.needed().name()))
        ? r.needed().name() : null;
    String move = target == null ? "move it to that device before the call" : movedFrom(argPath, target);
    Fix fix = target == null ? null : moveFix(cpu, target);
    if (arg.origin() == Value.Origin.BATCH) {
      report(CheckId.TARGETS_NOT_MOVED, argPath, cpu.text() + " is still on the CPU: it comes from the batch, and "
          + c.method.getSimpleName() + " " + uses + "; move every tensor of the batch before using it: " + move, false,
          fix);
      return;
    }
    report(CheckId.MIXED_DEVICES, argPath, c.method.getSimpleName() + " gets " + cpu.text() + " on the CPU and "
        + uses + "; " + (target == null ? move : "move it: " + move), false, fix);
  }

  /**
   * A tensor that a factory without a device makes on some paths ({@code if (h == null) h =
   * Tensor.zeros(b, n);}) meeting one on a device, in a model: on those paths it is on the CPU.
   */
  private boolean onTheCpuOnSomePaths(TreePath at, Operand a, Operand b) {
    Operand cpu = a.value.origin() == Value.Origin.DEFAULT_DEVICE_FACTORY_ON_SOME_PATHS ? a : b;
    Operand device = cpu == a ? b : a;
    Place.Kind kind = device.value.place().kind();
    if (!scope.isModelClass() || (kind != Place.Kind.FIXED && kind != Place.Kind.SYMBOL)
        || !interpreter.isCpuFactory(cpu.value.originPath().getLeaf())) {
      return false;
    }
    return defaultDeviceFactory(at, cpu, device);
  }

  /** Reports a tensor made on the CPU by a factory without a device in a model, meeting one on a device. */
  private boolean defaultDeviceFactory(TreePath at, Operand cpu, Operand device) {
    TreePath factory = cpu.value.originPath();
    String target = deviceAt(factory, device);
    String onDevice = target != null && factory.getLeaf() instanceof MethodInvocationTree call
        ? CreateThenMoveFix.suggestion(ctx, factory, call, target) : null;
    boolean somePaths = cpu.value.origin() == Value.Origin.DEFAULT_DEVICE_FACTORY_ON_SOME_PATHS;
    String variable = somePaths ? variableText(cpu.named) : null;
    String paths = !somePaths ? "" : variable != null ? " on the paths where " + variable + " is this tensor"
        : " on some paths";
    // On some paths only, the paths may never be taken together (if (device().isCpu()) h = Tensor.zeros(..)):
    // a warning, as other conflicts that may not happen are.
    reportAt(CheckId.DEFAULT_DEVICE_IN_MODEL, factory, at, ctx.shortText(factory.getLeaf()) + " creates a tensor on"
        + " the CPU (the default device) inside " + scope.methodName() + ", where it meets " + device.text()
        + " on " + device.value.place().describe() + paths + "; create it there: pass "
        + (target != null ? target : "the device of " + device.text()) + " to the factory", somePaths,
        onDevice == null ? null : Fix.replace("create it on the device", factory.getLeaf(), onDevice));
    return true;
  }

  /**
   * A conflict between two devices (neither the CPU) where one side is the output of a model of
   * unknown device, taken to be on its inputs' device, is possible only: the model may be split
   * over devices on purpose. Against the CPU it stays certain (targets left behind).
   */
  private static Place.Conflict inferred(Place.Conflict level, Operand a, Operand b) {
    boolean guessed = a.value.origin() == Value.Origin.MODEL_OUTPUT || b.value.origin() == Value.Origin.MODEL_OUTPUT;
    boolean cpu = Place.CPU.equals(a.value.place()) || Place.CPU.equals(b.value.place());
    return guessed && !cpu ? Place.Conflict.POSSIBLE : level;
  }

  /** Reports a conflict found by {@link #conflict}; kept apart so that the frequent test stays small. */
  private boolean reportConflict(Place.Conflict level, CharSequence op, TreePath at, Operand a, Operand b,
      boolean modelCall) {
    Operand cpu = Place.CPU.equals(a.value.place()) ? a : Place.CPU.equals(b.value.place()) ? b : null;
    Operand device = cpu == a ? b : a;
    if (modelCall && a.value.origin() == Value.Origin.REPLACED_PART && cpu == a) {
      String target = deviceText(b.value.place(), b);
      String model = variableText(a.named);
      String again = model == null ? "move the model again after replacing the part"
          : "move the model again after replacing it: " + model + ".toDevice(" + target + ")";
      report(CheckId.MODEL_NOT_MOVED, at, a.text() + "." + a.value.originName() + " was replaced by a new part made on"
          + " the CPU after " + a.text() + " was moved: its parameters are on the CPU while " + b.text() + " is on "
          + b.value.place().describe() + "; " + again, false, model == null ? null : StatementFixes.after(ctx,
              a.value.originPath(), model + ".toDevice(" + target + ");", "move the model again after replacing the part"));
      return true;
    }
    if (modelCall && a.value.origin() == Value.Origin.UNMOVED_MODEL && cpu == a) {
      String target = deviceText(b.value.place(), b);
      String model = variableText(a.named);
      String move = model == null ? "keep it in a variable and call toDevice(" + target + ") on it"
          : model + ".toDevice(" + target + ")";
      report(CheckId.MODEL_NOT_MOVED, at, a.text() + " was never moved: its parameters are on the CPU while " + b.text()
          + " is on " + b.value.place().describe() + "; move the model once, before using it: " + move, false,
          model == null ? null : StatementFixes.afterDeclaration(ctx, a.path, model + ".toDevice(" + target + ");",
              "move the model after creating it", leadingName(target)));
      return true;
    }
    if (cpu != null) {
      switch (cpu.value.origin()) {
        case DEFAULT_DEVICE_FACTORY, DEFAULT_DEVICE_FACTORY_ON_SOME_PATHS -> {
          if (scope.isModelClass()) {
            return defaultDeviceFactory(at, cpu, device);
          }
        }
        case STATIC_CONSTANT -> {
          if (ctx.suppressedAt(ctx.trees().getElement(cpu.path), CheckId.STATIC_TENSOR_CONSTANT)) {
            return true;
          }
          report(CheckId.STATIC_TENSOR_CONSTANT, cpu.path, "static tensor " + cpu.value.originName() + " lives on the"
              + " CPU and meets " + device.text() + " on " + device.value.place().describe() + "; a static tensor never"
              + " moves with a model: " + (scope.isModelClass() ? "make it a @Buffer field, or " : "")
              + "create it on " + deviceOf(device), false);
          return true;
        }
        case PINNED_CPU -> {
          String found = op + " gets tensors on two devices: " + cpu.text() + " is pinned to the CPU"
              + " (@OnDevice(\"cpu\")) and " + device.text() + " is on " + device.value.place().describe()
              + "; a pinned tensor stays on the CPU when its model moves: ";
          boolean possible = level == Place.Conflict.POSSIBLE;
          if (LOOKUPS.contains(op.toString())) {
            // table.indexSelect(0, rows): the table stays on the host by design, so the indices move.
            String toCpu = device.text() + ".to(Device.cpu())";
            report(CheckId.MIXED_DEVICES, at, found + "move " + device.text() + " to it for this lookup, " + toCpu
                + ", and the result to the device where it is needed", possible, moveFix(device, "Device.cpu()"));
          } else {
            String target = deviceText(device.value.place(), device);
            report(CheckId.MIXED_DEVICES, at, found + "if " + cpu.text() + " is needed on the device, remove"
                + " @OnDevice(\"cpu\") so that it moves with the model, or copy it for this op: " + cpu.text() + ".to("
                + target + ")", possible, moveFix(cpu, target));
          }
          return true;
        }
        case BATCH -> {
          String name = cpu.text();
          String moved = name + ".to(" + deviceText(device.value.place(), device) + ")";
          boolean variable = MethodInterpreter.skipParens(cpu.path.getLeaf()) instanceof IdentifierTree;
          report(CheckId.TARGETS_NOT_MOVED, cpu.path, name + " is still on the CPU: it comes from the batch, and "
              + device.text() + " is on " + device.value.place().describe() + "; move every tensor of the batch, the"
              + " targets as well as the inputs: " + (variable ? name + " = " + moved : moved), false,
              moveFix(cpu, deviceText(device.value.place(), device)));
          return true;
        }
        default -> {}
      }
    }
    Operand moved = cpu != null ? cpu : b;
    Operand other = moved == a ? b : a;
    String why = level == Place.Conflict.POSSIBLE
        ? "they may be different devices at run time"
        : cpu != null && other.value.place().kind() == Place.Kind.SYMBOL
            ? "in device-agnostic code this runs only when " + other.value.place().describe()
                + " is the CPU, and fails on the GPU machine"
            : "the op fails at run time";
    String target = deviceText(other.value.place(), other);
    String note = a.note != null ? a.note : b.note;
    String found = op + " gets tensors on two devices: " + describe(a) + " and " + describe(b) + "; " + why + ". "
        + (note == null ? "" : "(" + note + ".) ");
    boolean possible = level == Place.Conflict.POSSIBLE;
    if (moved.role == Role.IN_PLACE_RECEIVER) {
      // total.to(device).addi(x) would add into a copy: the receiver must be moved for good.
      report(CheckId.MIXED_DEVICES, at, found + "An in-place op writes its result where " + moved.text() + " is: move "
          + moved.text() + " first (" + moved.text() + " = " + moved.text() + ".to(" + target + ")), or create it"
          + " there", possible);
      return true;
    }
    String created = createdOn(moved, target);
    if (created != null) {
      report(CheckId.MIXED_DEVICES, at, found + "Create " + moved.text() + " there: " + created, possible,
          Fix.replace("create it on the device", moved.path.getLeaf(), created));
      return true;
    }
    // A requirement inferred from a method's body (a note says why) is reported at the call, with the why.
    if (moved == cpu && target != null && note == null && remadeOnTheDevice(level, op, at, moved, other, why, target)) {
      return true;
    }
    report(CheckId.MIXED_DEVICES, at, found + "Move " + moved.text() + ": " + movedFrom(moved.path, target),
        possible, moveFix(moved, target));
    return true;
  }

  /**
   * Reports a CPU operand made by a factory in this method ({@link MadeOnTheCpu}) at that factory,
   * the line to change, with the factory's overload that takes the device; false where there is
   * none, or the device cannot be named there.
   */
  private boolean remadeOnTheDevice(Place.Conflict level, CharSequence op, TreePath at, Operand cpu, Operand device,
      String why, String target) {
    MadeOnTheCpu.Made made = MadeOnTheCpu.factoryOf(ctx, cpu.path, interpreter::isCpuFactory);
    if (made == null || !StatementFixes.usableAt(ctx, made.factory(), leadingName(target))) {
      return false;
    }
    TreePath factory = made.factory();
    String remade = CreateThenMoveFix.suggestion(ctx, factory, (MethodInvocationTree) factory.getLeaf(), target);
    if (remade == null || !remadeOn.computeIfAbsent(factory.getLeaf(), f -> target).equals(target)) {
      return false;
    }
    // Where the initializer computes with other tensors, they must move too: no automatic fix then.
    reportAt(CheckId.MIXED_DEVICES, factory, at, made.variable() + " is made here on the CPU, and " + op + " (line "
        + ctx.lineOf(at) + ") uses it with " + device.text() + ", which is on " + device.value.place().describe()
        + "; " + why + ". Create it there: " + remade + (made.withOtherTensors()
            ? ", and the tensors it is computed with as well" : ""),
        level == Place.Conflict.POSSIBLE,
        made.withOtherTensors() ? null : Fix.replace("create it on the device", factory.getLeaf(), remade));
    return true;
  }


  /** {@code x.to(target)}; for a tensor that is itself a move ({@code x.to(first)}), a move of its source instead of a second one. */
  private String movedFrom(TreePath path, String target) {
    Tree t = path.getLeaf();
    if (t instanceof MethodInvocationTree call && call.getMethodSelect() instanceof MemberSelectTree select
        && interpreter.isMove(path)) {
      return ctx.shortText(select.getExpression()) + ".to(" + target + ")";
    }
    return ctx.shortText(t) + ".to(" + target + ")";
  }

  /**
   * An operand created on the CPU for want of a device ({@code Tensor.ones(3)}), created on {@code
   * device} instead ({@code Tensor.ones(3, device)}), rather than created and then moved; null when
   * the operand is something else or its factory has no overload with a device.
   */
  private String createdOn(Operand o, String device) {
    Tree t = o.path.getLeaf();
    return device != null && t instanceof MethodInvocationTree call && interpreter.isCpuFactory(call)
        ? CreateThenMoveFix.suggestion(ctx, o.path, call, device) : null;
  }

  /**
   * The device of {@code o} as code that can stand at {@code at}: {@code o}'s own variable (or
   * one inside it) if usable there, else the model's {@code device()} in its own methods or a
   * {@code Device} variable usable there; null when there is none.
   */
  private String deviceAt(TreePath at, Operand o) {
    String text = deviceOf(o);
    if (StatementFixes.usableAt(ctx, at, leadingName(text))) {
      return text;
    }
    Place p = o.value.place();
    if (scope.isModelInstanceMethod() && p.equals(scope.thisValue().place())) {
      return "device()";
    }
    return namedInCode(p) && StatementFixes.usableAt(ctx, at, leadingName(p.name())) ? p.name() : null;
  }

  /**
   * Whether a symbolic device is named by code that reads it again: a variable ({@code device}) or
   * a field read through variables and types ({@code Env.DEVICE}, {@code cfg.device}).
   */
  private static boolean namedInCode(Place p) {
    return p.kind() == Place.Kind.SYMBOL && p.name() != null
        && p.name().matches("[A-Za-z_$][\\w$]*(\\.[A-Za-z_$][\\w$]*)*(\\(\\))?");
  }

  private static String describe(Operand o) {
    String argument = o.argument.toString();
    return o.text() + (argument.equals("self") || argument.equals("the model") ? "" : " (argument '" + argument
        + "')") + " is on " + o.value.place().describe();
  }

  /** The variable an expression such as {@code device} or {@code x.device()} starts with. */
  private static String leadingName(String expression) {
    int end = 0;
    while (end < expression.length() && Character.isJavaIdentifierPart(expression.charAt(end))) {
      end++;
    }
    return expression.substring(0, end);
  }

  /** A fix that moves a tensor operand where it is used: {@code x} becomes {@code x.to(device)}. */
  private Fix moveFix(Operand o, String device) {
    if (device == null || !ctx.types().isTensor(ctx.trees().getTypeMirror(o.path))) {
      return null;
    }
    Tree t = o.path.getLeaf();
    boolean primary = t instanceof IdentifierTree || t instanceof MemberSelectTree || t instanceof MethodInvocationTree
        || t instanceof ParenthesizedTree;
    String text = ctx.text(t);
    return Fix.replace("move " + ctx.shortText(t) + (device.equals("Device.cpu()") ? " to the CPU" : " to the device"), t,
        (primary ? text : "(" + text + ")") + ".to(" + device + ")");
  }

  /**
   * Source text naming a place: the Device variable, a fixed device, the model's {@code device()},
   * or the device of the tensor beside it.
   */
  private String deviceText(Place p, Operand beside) {
    if (namedInCode(p) && (beside == null || StatementFixes.usableAt(ctx, beside.path, leadingName(p.name())))) {
      return p.name();
    }
    if (p.kind() == Place.Kind.FIXED) {
      return p.name().matches("cuda:\\d+") ? "Device.cuda(" + p.name().substring(5) + ")"
          : "Device.parse(\"" + p.name() + "\")";
    }
    if (Place.CPU.equals(p)) {
      return "Device.cpu()";
    }
    if (p.kind() == Place.Kind.SYMBOL && scope.isModelInstanceMethod() && p.equals(scope.thisValue().place())) {
      return "device()";
    }
    return beside == null ? "device" : deviceOf(beside);
  }

  /**
   * {@code t.device()} for the simplest expression on the operand's device: the operand itself
   * when it is a variable, else a tensor (then a model) variable inside it on the same device, so
   * that a fix never evaluates a call such as {@code fc.forward(x)} twice.
   */
  private String deviceOf(Operand o) {
    ExpressionTree t = MethodInterpreter.skipParens(o.path.getLeaf());
    if (isVariable(o.path, t)) {
      return ctx.text(t) + ".device()";
    }
    String[] found = new String[2];
    new TreePathScanner<Void, Void>() {
      @Override
      public Void visitIdentifier(IdentifierTree id, Void unused) {
        consider(id);
        return null;
      }

      @Override
      public Void visitMemberSelect(MemberSelectTree select, Void unused) {
        consider(select);
        return super.visitMemberSelect(select, null);
      }

      private void consider(ExpressionTree e) {
        if (!isVariable(getCurrentPath(), e) || !o.value.place().equals(interpreter.valueOf(e).place())) {
          return;
        }
        TypeMirror type = ctx.trees().getTypeMirror(getCurrentPath());
        int kind = ctx.types().isTensor(type) ? 0 : ctx.types().isModel(type) ? 1 : -1;
        if (kind >= 0 && found[kind] == null) {
          found[kind] = ctx.text(e);
        }
      }
    }.scan(o.path, null);
    String source = found[0] != null ? found[0] : found[1] != null ? found[1] : o.text();
    return source + ".device()";
  }

  private void report(CheckId check, TreePath path, String message, boolean downgraded, Fix... fixes) {
    reportAt(check, path, path, message, downgraded, fixes);
  }

  /** Reports at {@code path} a finding found at {@code trigger} (the op where a tensor created at {@code path} is used). */
  private void reportAt(CheckId check, TreePath path, TreePath trigger, String message, boolean downgraded,
      Fix... fixes) {
    List<Fix> present = new ArrayList<>();
    for (Fix f : fixes) {
      if (f != null) {
        present.add(f);
      }
    }
    ctx.report(check, path, trigger, message, downgraded, present.toArray(new Fix[0]));
  }
}
