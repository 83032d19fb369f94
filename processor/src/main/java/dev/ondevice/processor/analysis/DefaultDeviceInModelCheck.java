package dev.ondevice.processor.analysis;

import com.sun.source.tree.BinaryTree;
import com.sun.source.tree.ClassTree;
import com.sun.source.tree.ExpressionTree;
import com.sun.source.tree.IdentifierTree;
import com.sun.source.tree.LambdaExpressionTree;
import com.sun.source.tree.MethodInvocationTree;
import com.sun.source.tree.MethodTree;
import com.sun.source.tree.ReturnTree;
import com.sun.source.tree.Tree;
import com.sun.source.util.TreePath;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.Name;
import javax.lang.model.element.VariableElement;

/**
 * {@link CheckId#DEFAULT_DEVICE_IN_MODEL}: a tensor created on the CPU, the default device, in a
 * model's code, where it meets the model's state or inputs, or where a model's method returns it.
 * Reported at the factory, the line to change.
 */
final class DefaultDeviceInModelCheck extends DeviceCheck {
  DefaultDeviceInModelCheck(AnalysisContext ctx, Interpretation at, DeviceTexts texts) {
    super(ctx, at, texts);
  }

  @Override
  void conflict(DeviceConflict c) {
    if (c.culprit() != DeviceConflict.Culprit.DEFAULT_DEVICE_FACTORY) {
      return;
    }
    Operand cpu = c.cpu();
    Operand device = c.device();
    TreePath factory = cpu.value.originPath();
    String target = texts.deviceAt(factory, device);
    String onDevice =
        target != null && factory.getLeaf() instanceof MethodInvocationTree call
            ? CreateThenMoveFix.suggestion(ctx, factory, call, target)
            : null;
    boolean somePaths = cpu.value.origin() == Value.Origin.DEFAULT_DEVICE_FACTORY_ON_SOME_PATHS;
    String variable = somePaths ? texts.variableText(cpu.named) : null;
    String paths =
        !somePaths
            ? ""
            : variable != null
                ? " on the paths where " + variable + " is this tensor"
                : " on some paths";
    // On some paths only, the paths may never be taken together (if (device().isCpu()) h =
    // Tensor.zeros(..)):
    // a warning, as other conflicts that may not happen are.
    reportAt(
        CheckId.DEFAULT_DEVICE_IN_MODEL,
        factory,
        c.at(),
        ctx.shortText(factory.getLeaf())
            + " creates a tensor"
            + " on the CPU (the default device) inside "
            + at.scope().methodName()
            + ", where it meets "
            + device.text(ctx)
            + " on "
            + device.value.place().describe()
            + paths
            + "; create it there: pass "
            + (target != null ? target : "the device of " + device.text(ctx))
            + " to the factory",
        somePaths,
        onDevice == null
            ? null
            : Fix.replace("create it on the device", factory.getLeaf(), onDevice));
  }

  /**
   * A tensor that a model's method creates on the CPU for want of a device and returns ({@code
   * return Tensor.zeros(batch, hidden);} in {@code initHidden}): its callers combine it with the
   * model's state or outputs, on the model's device once the model has moved. Host data ({@code
   * Tensor.of(ids)}) and 0-dim scalars are on the CPU on purpose.
   */
  @Override
  void returned(TreePath expression, Value v, ExecutableElement method) {
    if (!v.isDefaultDeviceFactory()
        || !at.scope().isModelInstanceMethod()
        || !at.isCpuFactory(v.originPath().getLeaf())
        || returnsCpuElsewhere(expression)
        || CallersOfMethod.takeItOnTheCpu(expression, method, ctx.trees())) {
      return;
    }
    boolean somePaths = v.origin() == Value.Origin.DEFAULT_DEVICE_FACTORY_ON_SOME_PATHS;
    TreePath factory = v.originPath();
    String device = modelDeviceIn(method, expression);
    String onDevice =
        device != null && factory.getLeaf() instanceof MethodInvocationTree call
            ? CreateThenMoveFix.suggestion(ctx, factory, call, device)
            : null;
    Name name = method.getSimpleName();
    reportAt(
        CheckId.DEFAULT_DEVICE_IN_MODEL,
        factory,
        expression,
        ctx.shortText(factory.getLeaf())
            + " creates a"
            + " tensor on the CPU (the default device) that "
            + name
            + " returns"
            + (somePaths ? " on some paths" : "")
            + ": once the model has moved, its callers"
            + " get it on the CPU beside the model's tensors; create it on the model's device, passing "
            + (device != null ? device : "the device of the tensors it is used with")
            + " to the factory, or declare "
            + name
            + " @OnDevice(\"cpu\") if it is meant to be on the CPU",
        somePaths,
        onDevice == null
            ? null
            : Fix.replace("create it on the device", factory.getLeaf(), onDevice));
  }

  /**
   * How a model's method names the model's device: {@code x.device()} of its first tensor
   * parameter, else {@code device()}, the device of the model's state; null for a model without
   * state, whose {@code device()} is always the CPU.
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
    return m != null
        && TreeSearch.contains(
            m,
            t ->
                t instanceof ReturnTree r
                    && r.getExpression() != null
                    && ModelMethodSource.isMoveToCpu(
                        ModelMethodSource.skipParensAndCasts(r.getExpression()), false),
            t -> t instanceof ClassTree || t instanceof LambdaExpressionTree);
  }

  /**
   * Whether the method at {@code inMethod} compares {@code name} with null ({@code prev == null ?
   * ...}): it may be null.
   */
  private static boolean comparedWithNull(CharSequence name, TreePath inMethod) {
    Tree m = enclosingMethod(inMethod);
    return m != null
        && TreeSearch.contains(
            m,
            t ->
                t instanceof BinaryTree b
                    && (b.getKind() == Tree.Kind.EQUAL_TO || b.getKind() == Tree.Kind.NOT_EQUAL_TO)
                    && (isNamed(b.getLeftOperand(), name) || isNamed(b.getRightOperand(), name))
                    && (b.getLeftOperand().getKind() == Tree.Kind.NULL_LITERAL
                        || b.getRightOperand().getKind() == Tree.Kind.NULL_LITERAL),
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
    return MethodInterpreter.skipParens(e) instanceof IdentifierTree id
        && id.getName().contentEquals(name);
  }
}
