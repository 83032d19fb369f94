package dev.ondevice.processor.analysis;

import com.sun.source.tree.IdentifierTree;
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
        boolean outside = at >= end || repeated && at < start;
        if (outside && variable.equals(ctx.trees().getElement(getCurrentPath()))) {
          read[0] = true;
        }
        return null;
      }
    }.scan(scope, null);
    return read[0] || inLoop && readAfter(ctx, scope, variable);
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
        return super.visitVariable(v, unused);
      }
    }.scan(scope, null);
    return found[0];
  }

  private static TreePath enclosingLoop(TreePath statement) {
    for (TreePath p = statement.getParentPath(); p != null; p = p.getParentPath()) {
      switch (p.getLeaf().getKind()) {
        case FOR_LOOP:
        case ENHANCED_FOR_LOOP:
        case WHILE_LOOP:
        case DO_WHILE_LOOP:
          return p;
        case METHOD:
        case LAMBDA_EXPRESSION:
        case CLASS:
          return null;
        default:
          break;
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
