package dev.ondevice.processor.analysis;

import com.sun.source.tree.ClassTree;
import com.sun.source.tree.IdentifierTree;
import com.sun.source.tree.LambdaExpressionTree;
import com.sun.source.tree.MethodTree;
import com.sun.source.tree.Tree;
import com.sun.source.tree.VariableTree;
import com.sun.source.util.SourcePositions;
import com.sun.source.util.TreePath;
import com.sun.source.util.TreePathScanner;
import javax.lang.model.element.Element;
import javax.lang.model.element.ElementKind;

/**
 * Whether a local variable is read after a statement: an assignment fix is only a fix when the
 * assigned value is used, not a dead store that silences the finding.
 */
final class VariableUses {
  private VariableUses() {}

  /**
   * Whether {@code variable} may be read after the statement at {@code statement}: a field always
   * (it outlives the method), a local or parameter when a later part of the method, or the loop
   * that repeats the statement, names it.
   */
  static boolean readAfter(AnalysisContext ctx, TreePath statement, Element variable) {
    if (variable.getKind() == ElementKind.FIELD) {
      return true;
    }
    SourcePositions positions = ctx.trees().getSourcePositions();
    long start = positions.getStartPosition(ctx.unit(), statement.getLeaf());
    long end = positions.getEndPosition(ctx.unit(), statement.getLeaf());
    TreePath scope = enclosingLoop(statement);
    boolean inLoop = scope != null;
    if (scope == null) {
      scope = enclosingMethod(statement);
    }
    if (scope == null) {
      return true;
    }
    boolean repeated = inLoop && !declaresIn(ctx, scope, variable);
    boolean[] read = {false};
    new TreePathScanner<Void, Void>() {
      @Override
      public Void visitIdentifier(IdentifierTree id, Void unused) {
        long at = positions.getStartPosition(ctx.unit(), id);
        boolean outside = at >= end || (repeated && at < start);
        if (outside && variable.equals(ctx.trees().getElement(getCurrentPath()))) {
          read[0] = true;
        }
        return null;
      }
    }.scan(scope, null);
    return read[0] || (inLoop && readAfter(ctx, scope, variable));
  }

  /** Whether the variable is declared inside {@code scope}, so each pass of a loop has its own. */
  private static boolean declaresIn(AnalysisContext ctx, TreePath scope, Element variable) {
    boolean[] found = {false};
    new TreePathScanner<Void, Void>() {
      @Override
      public Void visitVariable(VariableTree v, Void unused) {
        if (variable.equals(ctx.trees().getElement(getCurrentPath()))) {
          found[0] = true;
        }
        return super.visitVariable(v, null);
      }
    }.scan(scope, null);
    return found[0];
  }

  /**
   * Whether a local variable or parameter is used inside a lambda or a local or anonymous class of
   * the method, where it must stay effectively final: assigning it would not compile.
   */
  static boolean capturedInLambdaOrClass(AnalysisContext ctx, TreePath at, Element variable) {
    if (variable.getKind() == ElementKind.FIELD) {
      return false;
    }
    TreePath method = enclosingMethod(at);
    if (method == null
        || (method.getLeaf() instanceof LambdaExpressionTree
            && !declaresIn(ctx, method, variable))) {
      return true;
    }
    boolean[] captured = {false};
    new TreePathScanner<Void, Integer>() {
      @Override
      public Void visitLambdaExpression(LambdaExpressionTree lambda, Integer depth) {
        return super.visitLambdaExpression(lambda, depth + 1);
      }

      @Override
      public Void visitClass(ClassTree type, Integer depth) {
        return super.visitClass(type, depth + 1);
      }

      @Override
      public Void visitIdentifier(IdentifierTree id, Integer depth) {
        if (depth > 0 && variable.equals(ctx.trees().getElement(getCurrentPath()))) {
          captured[0] = true;
        }
        return null;
      }
    }.scan(
        method.getLeaf() instanceof MethodTree
            ? new TreePath(method, ((MethodTree) method.getLeaf()).getBody())
            : method,
        0);
    return captured[0];
  }

  private static TreePath enclosingLoop(TreePath statement) {
    for (TreePath p = statement.getParentPath(); p != null; p = p.getParentPath()) {
      switch (p.getLeaf().getKind()) {
        case FOR_LOOP, ENHANCED_FOR_LOOP, WHILE_LOOP, DO_WHILE_LOOP -> {
          return p;
        }
        case METHOD, LAMBDA_EXPRESSION, CLASS -> {
          return null;
        }
        default -> {}
      }
    }
    return null;
  }

  private static TreePath enclosingMethod(TreePath statement) {
    for (TreePath p = statement; p != null; p = p.getParentPath()) {
      Tree.Kind k = p.getLeaf().getKind();
      if (k == Tree.Kind.METHOD || k == Tree.Kind.LAMBDA_EXPRESSION) {
        return p;
      }
    }
    return null;
  }
}
