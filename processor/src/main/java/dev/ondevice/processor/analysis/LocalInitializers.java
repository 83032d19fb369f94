package dev.ondevice.processor.analysis;

import com.sun.source.tree.AssignmentTree;
import com.sun.source.tree.CompoundAssignmentTree;
import com.sun.source.tree.MethodTree;
import com.sun.source.tree.UnaryTree;
import com.sun.source.tree.VariableTree;
import com.sun.source.util.TreePath;
import com.sun.source.util.TreePathScanner;
import javax.lang.model.element.Element;
import javax.lang.model.element.ElementKind;

/**
 * The one value a local variable holds: its initializer, where nothing in its method assigns it
 * again ({@code Tensor keep = Tensor.rand(n).gt(0.5);} read later is that expression). Shared by
 * the look-ups that follow a variable back to where its tensor was made.
 */
final class LocalInitializers {
  private LocalInitializers() {}

  /**
   * The initializer of {@code local}, a local variable declared with one and never assigned after,
   * with its declaration's path as parent; null otherwise.
   */
  static TreePath soleInitializer(AnalysisContext ctx, Element local) {
    if (local == null || local.getKind() != ElementKind.LOCAL_VARIABLE) {
      return null;
    }
    TreePath declaration = ctx.pathOf(local);
    if (declaration == null
        || !(declaration.getLeaf() instanceof VariableTree v)
        || v.getInitializer() == null) {
      return null;
    }
    TreePath method = enclosingMethod(declaration);
    return method == null || assignedAgain(ctx, method, local)
        ? null
        : new TreePath(declaration, v.getInitializer());
  }

  /** The method around {@code path}, or null outside one. */
  static TreePath enclosingMethod(TreePath path) {
    TreePath p = path;
    while (p != null && !(p.getLeaf() instanceof MethodTree)) {
      p = p.getParentPath();
    }
    return p;
  }

  /** Whether {@code local} is assigned anywhere in {@code method} besides its declaration. */
  private static boolean assignedAgain(AnalysisContext ctx, TreePath method, Element local) {
    boolean[] found = {false};
    new TreePathScanner<Void, Void>() {
      @Override
      public Void visitAssignment(AssignmentTree node, Void unused) {
        found[0] |=
            ctx.trees().getElement(new TreePath(getCurrentPath(), node.getVariable())) == local;
        return super.visitAssignment(node, null);
      }

      @Override
      public Void visitCompoundAssignment(CompoundAssignmentTree node, Void unused) {
        found[0] |=
            ctx.trees().getElement(new TreePath(getCurrentPath(), node.getVariable())) == local;
        return super.visitCompoundAssignment(node, null);
      }

      @Override
      public Void visitUnary(UnaryTree node, Void unused) {
        found[0] |=
            ctx.trees().getElement(new TreePath(getCurrentPath(), node.getExpression())) == local;
        return super.visitUnary(node, null);
      }
    }.scan(method, null);
    return found[0];
  }
}
