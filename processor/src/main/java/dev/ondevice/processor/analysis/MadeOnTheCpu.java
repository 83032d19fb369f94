package dev.ondevice.processor.analysis;

import com.sun.source.tree.AssignmentTree;
import com.sun.source.tree.CompoundAssignmentTree;
import com.sun.source.tree.IdentifierTree;
import com.sun.source.tree.MemberSelectTree;
import com.sun.source.tree.MethodInvocationTree;
import com.sun.source.tree.MethodTree;
import com.sun.source.tree.Tree;
import com.sun.source.tree.UnaryTree;
import com.sun.source.tree.VariableTree;
import com.sun.source.util.TreePath;
import com.sun.source.util.TreePathScanner;
import java.util.function.Predicate;
import javax.lang.model.element.Element;
import javax.lang.model.element.ElementKind;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.Modifier;

/**
 * Where a CPU operand was made, when that is the line to change: a local variable of the same
 * method, never assigned again, whose initializer is a factory without a device, or ops on one
 * ({@code Tensor maskMask = Tensor.rand(mask.shape()).gt(0.15);}). The fix of a tensor made on
 * the CPU and used on a device is to make it there, so the finding points at the factory.
 */
final class MadeOnTheCpu {
  private MadeOnTheCpu() {}

  /**
   * The factory call that made the local {@code operand} names, or null where the operand is not
   * such a local; {@code cpuFactory} says whether a call made a tensor on the CPU for want of a
   * device.
   */
  static TreePath factoryOf(AnalysisContext ctx, TreePath operand, Predicate<Tree> cpuFactory) {
    if (!(MethodInterpreter.skipParens(operand.getLeaf()) instanceof IdentifierTree)) {
      return null;
    }
    Element local = ctx.trees().getElement(operand);
    if (local == null || local.getKind() != ElementKind.LOCAL_VARIABLE) {
      return null;
    }
    TreePath declaration = ctx.trees().getPath(local);
    if (declaration == null || !(declaration.getLeaf() instanceof VariableTree variable)
        || variable.getInitializer() == null) {
      return null;
    }
    TreePath method = enclosingMethod(declaration);
    if (method == null || method.getLeaf() != leafOf(enclosingMethod(operand)) || assignedAgain(ctx, method, local)) {
      return null;
    }
    TreePath made = new TreePath(declaration, variable.getInitializer());
    while (MethodInterpreter.skipParens(made.getLeaf()) instanceof MethodInvocationTree call) {
      if (cpuFactory.test(call)) {
        return new TreePath(made.getParentPath(), call);
      }
      // x.gt(0.15), x.to(DType.FLOAT32): an op on the receiver's device; follow the receiver.
      if (!(call.getMethodSelect() instanceof MemberSelectTree select)
          || !(ctx.trees().getElement(new TreePath(made, call)) instanceof ExecutableElement m)
          || ctx.semantics(m).kind != MethodSemantics.Kind.SAME_DEVICE || m.getModifiers().contains(Modifier.STATIC)) {
        return null;
      }
      made = new TreePath(new TreePath(new TreePath(made, call), select), select.getExpression());
    }
    return null;
  }

  private static Tree leafOf(TreePath p) {
    return p == null ? null : p.getLeaf();
  }

  private static TreePath enclosingMethod(TreePath p) {
    while (p != null && !(p.getLeaf() instanceof MethodTree)) {
      p = p.getParentPath();
    }
    return p;
  }

  /** Whether {@code local} is assigned anywhere in {@code method} after its declaration. */
  private static boolean assignedAgain(AnalysisContext ctx, TreePath method, Element local) {
    boolean[] found = {false};
    new TreePathScanner<Void, Void>() {
      @Override
      public Void visitAssignment(AssignmentTree node, Void unused) {
        found[0] |= ctx.trees().getElement(new TreePath(getCurrentPath(), node.getVariable())) == local;
        return super.visitAssignment(node, null);
      }

      @Override
      public Void visitCompoundAssignment(CompoundAssignmentTree node, Void unused) {
        found[0] |= ctx.trees().getElement(new TreePath(getCurrentPath(), node.getVariable())) == local;
        return super.visitCompoundAssignment(node, null);
      }

      @Override
      public Void visitUnary(UnaryTree node, Void unused) {
        found[0] |= ctx.trees().getElement(new TreePath(getCurrentPath(), node.getExpression())) == local;
        return super.visitUnary(node, null);
      }
    }.scan(method, null);
    return found[0];
  }
}
