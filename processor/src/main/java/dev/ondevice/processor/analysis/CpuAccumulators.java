package dev.ondevice.processor.analysis;

import com.sun.source.tree.AssignmentTree;
import com.sun.source.tree.CompoundAssignmentTree;
import com.sun.source.tree.ExpressionTree;
import com.sun.source.tree.IdentifierTree;
import com.sun.source.tree.MemberSelectTree;
import com.sun.source.tree.MethodInvocationTree;
import com.sun.source.tree.VariableTree;
import com.sun.source.util.TreePath;
import com.sun.source.util.TreePathScanner;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.Modifier;
import javax.lang.model.element.VariableElement;

/**
 * Tensor fields of plain objects that only ever accumulate into themselves ({@code Tensor rhoLoss =
 * Tensor.of(new float[0]);}, then {@code rhoLoss = Tensor.cat(List.of(rhoLoss, loss))} and nothing
 * else): each value is computed from the one before, so the field stays on the device its
 * initializer chose. The look-up reads the source only; where the initializer puts it is for the
 * caller to judge.
 */
final class CpuAccumulators {
  private CpuAccumulators() {}

  /**
   * The initializer of {@code field}, with its declaration's path as parent, where the field is a
   * mutable instance field that its file alone can assign and every assignment in that file gives
   * it a value computed from its own and moved nowhere; null otherwise.
   */
  static TreePath accumulatingInitializer(AnalysisContext ctx, VariableElement field) {
    if (field.getModifiers().contains(Modifier.FINAL)
        || field.getModifiers().contains(Modifier.STATIC)
        || field.getModifiers().contains(Modifier.PUBLIC)
        || field.getModifiers().contains(Modifier.PROTECTED)) {
      return null;
    }
    TreePath declaration = ctx.pathOf(field);
    if (declaration == null
        || !(declaration.getLeaf() instanceof VariableTree variable)
        || variable.getInitializer() == null) {
      return null;
    }
    boolean[] seen = {false};
    boolean[] other = {false};
    new TreePathScanner<Void, Void>() {
      @Override
      public Void visitAssignment(AssignmentTree node, Void unused) {
        if (writes(node.getVariable())) {
          seen[0] = true;
          other[0] |= !fromItselfUnmoved(new TreePath(getCurrentPath(), node.getExpression()));
        }
        return super.visitAssignment(node, null);
      }

      @Override
      public Void visitCompoundAssignment(CompoundAssignmentTree node, Void unused) {
        other[0] |= writes(node.getVariable());
        return super.visitCompoundAssignment(node, null);
      }

      private boolean writes(ExpressionTree target) {
        return ctx.trees().getElement(new TreePath(getCurrentPath(), target)) == field;
      }

      /** Whether the value reads the field and moves no tensor off the CPU. */
      private boolean fromItselfUnmoved(TreePath value) {
        boolean[] reads = {false};
        boolean[] moves = {false};
        new TreePathScanner<Void, Void>() {
          @Override
          public Void visitIdentifier(IdentifierTree node, Void unused) {
            reads[0] |= ctx.trees().getElement(getCurrentPath()) == field;
            return null;
          }

          @Override
          public Void visitMemberSelect(MemberSelectTree node, Void unused) {
            reads[0] |= ctx.trees().getElement(getCurrentPath()) == field;
            return super.visitMemberSelect(node, null);
          }

          @Override
          public Void visitMethodInvocation(MethodInvocationTree node, Void unused) {
            moves[0] |=
                ctx.trees().getElement(getCurrentPath()) instanceof ExecutableElement m
                    && ctx.semantics(m).kind == MethodSemantics.Kind.MOVE
                    && !"cpu".equals(ctx.semantics(m).moveTo);
            return super.visitMethodInvocation(node, null);
          }
        }.scan(value, null);
        return reads[0] && !moves[0];
      }
    }.scan(declaration.getCompilationUnit(), null);
    return seen[0] && !other[0] ? new TreePath(declaration, variable.getInitializer()) : null;
  }
}
