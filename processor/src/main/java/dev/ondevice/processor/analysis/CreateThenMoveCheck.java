package dev.ondevice.processor.analysis;

import com.sun.source.tree.ExpressionTree;
import com.sun.source.tree.IdentifierTree;
import com.sun.source.tree.MemberSelectTree;
import com.sun.source.tree.MethodInvocationTree;
import com.sun.source.util.TreePath;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.type.TypeMirror;

/**
 * {@link CheckId#CREATE_THEN_MOVE}: a tensor created on the CPU and moved to a device right away,
 * directly ({@code Tensor.zeros(3).to(device)}), under ops that take no other tensor, or, in code
 * run on every step, through variables and helpers.
 */
final class CreateThenMoveCheck extends DeviceCheck {
  CreateThenMoveCheck(AnalysisContext ctx, Interpretation at, DeviceTexts texts) {
    super(ctx, at, texts);
  }

  @Override
  void move(TensorMove m) {
    MethodInterpreter.Call c = m.call();
    if (c.receiverTree == null
        || Place.CPU.equals(m.target())
        || (!m.target().isKnown() && !movesToANamedDevice(c))) {
      return;
    }
    if (c.isCpuFactory(c.receiverTree) || helperWithADeviceOverload(c, m.receiver())) {
      createdThenMoved(c);
      return;
    }
    TreePath factory = factoryUnderHostOps(c.receiverPath(), c);
    String device =
        texts.deviceArgumentText(c) == null ? "the device" : texts.deviceArgumentText(c);
    if (factory != null) {
      report(
          CheckId.CREATE_THEN_MOVE,
          c.path,
          ctx.shortText(c.receiverTree)
              + " is computed on the CPU from "
              + ctx.shortText(factory.getLeaf())
              + " and "
              + texts.moveText(c)
              + " copies it to the device right away;"
              + " compute it there instead: create "
              + ctx.shortText(factory.getLeaf())
              + " on the device (pass "
              + device
              + " to the factory)",
          false);
    } else if (at.everyStep() != null
        && (factory = ctx.computedOnTheHost().factoryBehind(c.receiverPath(), c.path)) != null) {
      // Through a variable or a helper, only where it costs on every step: set-up code that builds
      // on the CPU and moves once (data standing in for what was loaded) is left alone.
      report(
          CheckId.CREATE_THEN_MOVE,
          c.path,
          ctx.shortText(c.receiverTree)
              + " is computed on the CPU, from"
              + " factories such as "
              + ctx.shortText(factory.getLeaf())
              + " ("
              + ctx.placeOf(factory)
              + "), and "
              + texts.moveText(c)
              + " copies it to the device "
              + at.everyStep()
              + "; compute it there instead: pass "
              + device
              + " down to those factories",
          false);
    }
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
    return (a instanceof MethodInvocationTree call
            && call.getMethodSelect() instanceof MemberSelectTree select
            && select.getIdentifier().contentEquals("device")
            && call.getArguments().isEmpty())
        || (a instanceof IdentifierTree
            && ctx.types().isDevice(ctx.trees().getTypeMirror(c.argumentPath(i))));
  }

  /**
   * Whether the tensor moved comes on the CPU from a method of the user's that has an overload
   * taking a device ({@code makeCoordsGrid(b, h, w).to(d)} beside {@code makeCoordsGrid(b, h, w,
   * device)}): a factory of the user's, called without its device.
   */
  private boolean helperWithADeviceOverload(MethodInterpreter.Call c, Value receiver) {
    if (!Place.CPU.equals(receiver.place())
        || !(c.receiverTree instanceof MethodInvocationTree helper)) {
      return false;
    }
    TreePath helperPath = c.receiverPath();
    return ctx.trees().getElement(helperPath) instanceof ExecutableElement m
        && ctx.semantics(m).kind == MethodSemantics.Kind.OTHER
        && ctx.pathOf(m) != null
        && CreateThenMoveFix.suggestion(ctx, helperPath, helper, "device") != null;
  }

  private void createdThenMoved(MethodInterpreter.Call c) {
    ExpressionTree factory = MethodInterpreter.skipParens(c.receiverTree);
    String device = texts.deviceArgumentText(c);
    String suggestion =
        device == null || !(factory instanceof MethodInvocationTree call)
            ? null
            : CreateThenMoveFix.suggestion(ctx, c.receiverPath(), call, device);
    Fix fix =
        suggestion == null
            ? null
            : Fix.replace("create the tensor on the device", c.tree, suggestion);
    report(
        CheckId.CREATE_THEN_MOVE,
        c.path,
        ctx.shortText(factory)
            + " creates the tensor on the CPU and "
            + texts.moveText(c)
            + " copies it to the device right away; create it there instead"
            + (suggestion == null ? ": pass the device to the factory" : ": " + suggestion),
        false,
        fix);
  }

  /**
   * The CPU factory at the bottom of a chain of ops that take no other tensor ({@code
   * Tensor.arange(0, half).to(DType.FLOAT32).mul(-k).div(half).exp()}): computed on the CPU only to
   * be moved. Null where the chain holds another tensor, a variable, or no factory.
   */
  private TreePath factoryUnderHostOps(TreePath receiver, MethodInterpreter.Call c) {
    TreePath p = receiver;
    for (int depth = 0; depth < 16; depth++) {
      ExpressionTree e = MethodInterpreter.skipParens((ExpressionTree) p.getLeaf());
      if (!(e instanceof MethodInvocationTree call)
          || !(call.getMethodSelect() instanceof MemberSelectTree select)) {
        return null;
      }
      TreePath callPath = new TreePath(p, e);
      if (depth > 0 && c.isCpuFactory(call)) {
        return callPath;
      }
      for (ExpressionTree a : call.getArguments()) {
        TypeMirror t = ctx.trees().getTypeMirror(new TreePath(callPath, a));
        if (t == null
            || (ctx.types().isTensor(t) && !c.valueOf(a).cpuScalarLike())
            || ctx.containers().holdsTensors(t)) {
          return null; // another tensor: what is computed depends on it (a 0-dim CPU scalar does
          // not count)
        }
      }
      if (!ctx.types()
          .isTensor(
              ctx.trees()
                  .getTypeMirror(
                      new TreePath(new TreePath(callPath, select), select.getExpression())))) {
        return null;
      }
      p = new TreePath(new TreePath(callPath, select), select.getExpression());
    }
    return null;
  }
}
