package dev.ondevice.processor.analysis;

import com.sun.source.tree.IdentifierTree;
import com.sun.source.tree.MemberSelectTree;
import com.sun.source.tree.MethodInvocationTree;
import com.sun.source.tree.Tree;
import com.sun.source.util.TreePath;
import java.util.function.Predicate;
import javax.lang.model.element.Element;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.Modifier;
import javax.lang.model.type.TypeMirror;

/**
 * Where a CPU operand was made, when that is the line to change: a local variable of the same
 * method, never assigned again, whose initializer is a factory without a device, or ops on one
 * ({@code Tensor maskMask = Tensor.rand(mask.shape()).gt(0.15);}). The fix of a tensor made on the
 * CPU and used on a device is to make it there, so the finding points at the factory.
 */
final class MadeOnTheCpu {
  /**
   * The factory call that made {@code variable}, and whether ops between them computed with other
   * tensors ({@code Tensor.arange(s).le(Tensor.arange(l))}), which would have to move as well.
   */
  record Made(TreePath factory, String variable, boolean withOtherTensors) {}

  /** How many locals are followed back to the factory. */
  private static final int MAX_LOCALS = 5;

  private MadeOnTheCpu() {}

  /**
   * The factory call that made the local {@code operand} reads ({@link #variableUnderOps}), or null
   * where the operand is not such a local; {@code cpuFactory} says whether a call made a tensor on
   * the CPU for want of a device.
   */
  static Made factoryOf(AnalysisContext ctx, TreePath operand, Predicate<Tree> cpuFactory) {
    TreePath variable = variableUnderOps(ctx, operand);
    if (variable == null) {
      return null;
    }
    Element local = null;
    TreePath made = variable; // followed to its initializer by the loop's first step
    boolean withOthers = false;
    for (int locals = 0; locals < MAX_LOCALS; locals++) {
      while (MethodInterpreter.skipParens(made.getLeaf()) instanceof MethodInvocationTree call) {
        if (cpuFactory.test(call)) {
          return new Made(
              new TreePath(made.getParentPath(), call),
              local.getSimpleName().toString(),
              withOthers);
        }
        // x.gt(0.15), x.to(DType.FLOAT32): an op on the receiver's device; follow the receiver.
        if (!(call.getMethodSelect() instanceof MemberSelectTree select)
            || !(ctx.trees().getElement(new TreePath(made, call)) instanceof ExecutableElement m)
            || ctx.semantics(m).kind != MethodSemantics.Kind.SAME_DEVICE
            || m.getModifiers().contains(Modifier.STATIC)) {
          return null;
        }
        withOthers |= takesTensors(ctx, new TreePath(made, call), call);
        made = new TreePath(new TreePath(new TreePath(made, call), select), select.getExpression());
      }
      // Tensor j = Tensor.arange(m); Tensor coeffs = j.div(m).exp(): follow j to its factory.
      Element next =
          MethodInterpreter.skipParens(made.getLeaf()) instanceof IdentifierTree
              ? ctx.trees().getElement(made)
              : null;
      TreePath initializer = LocalInitializers.soleInitializer(ctx, next);
      if (initializer == null
          || LocalInitializers.enclosingMethod(initializer).getLeaf()
              != leafOf(LocalInitializers.enclosingMethod(operand))) {
        return null;
      }
      local = next;
      made = initializer;
    }
    return null;
  }

  /**
   * The variable an operand reads, directly or under ops on it that take no other tensor ({@code
   * mask} of {@code mask.logicalNot()}); null for anything else.
   */
  private static TreePath variableUnderOps(AnalysisContext ctx, TreePath operand) {
    TreePath p = operand;
    for (int depth = 0; depth < 8; depth++) {
      Tree t = MethodInterpreter.skipParens(p.getLeaf());
      if (t instanceof IdentifierTree) {
        return t == p.getLeaf() ? p : new TreePath(p, t);
      }
      if (!(t instanceof MethodInvocationTree call)
          || !(call.getMethodSelect() instanceof MemberSelectTree select)) {
        return null;
      }
      TreePath callPath = t == p.getLeaf() ? p : new TreePath(p, t);
      if (!(ctx.trees().getElement(callPath) instanceof ExecutableElement m)
          || ctx.semantics(m).kind != MethodSemantics.Kind.SAME_DEVICE
          || m.getModifiers().contains(Modifier.STATIC)
          || ctx.semantics(m).inPlace
          || takesTensors(ctx, callPath, call)) {
        return null;
      }
      p = new TreePath(new TreePath(callPath, select), select.getExpression());
    }
    return null;
  }

  private static boolean takesTensors(
      AnalysisContext ctx, TreePath path, MethodInvocationTree call) {
    for (Tree a : call.getArguments()) {
      TypeMirror t = ctx.trees().getTypeMirror(new TreePath(path, a));
      if (t == null || ctx.types().isTensor(t) || ctx.containers().holdsTensors(t)) {
        return true;
      }
    }
    return false;
  }

  private static Tree leafOf(TreePath p) {
    return p == null ? null : p.getLeaf();
  }
}
