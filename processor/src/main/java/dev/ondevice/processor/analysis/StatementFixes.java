package dev.ondevice.processor.analysis;

import com.sun.source.tree.BlockTree;
import com.sun.source.tree.IdentifierTree;
import com.sun.source.tree.MethodTree;
import com.sun.source.tree.Scope;
import com.sun.source.tree.StatementTree;
import com.sun.source.tree.Tree;
import com.sun.source.tree.VariableTree;
import com.sun.source.util.SourcePositions;
import com.sun.source.util.TreePath;
import com.sun.source.util.TreePathScanner;
import java.util.List;
import javax.lang.model.element.Element;
import javax.lang.model.element.TypeElement;
import javax.lang.model.util.ElementFilter;

/** Fixes that insert a statement, indented as the statement they stand beside. */
final class StatementFixes {
  private StatementFixes() {}

  /** Inserts {@code statement} before the statement that contains {@code at}. */
  static Fix before(
      AnalysisContext ctx, TreePath at, String statement, String description, String... imports) {
    TreePath s = enclosingStatement(at);
    if (s == null) {
      return null;
    }
    return new Fix(
        description,
        List.of(Fix.prefixEdit(s.getLeaf(), statement + "\n" + indent(ctx, s.getLeaf()))),
        List.of(imports));
  }

  /**
   * Inserts {@code statement} after the statement that contains {@code at}, where a statement
   * follows it in its block.
   */
  static Fix after(AnalysisContext ctx, TreePath at, String statement, String description) {
    TreePath s = enclosingStatement(at);
    if (s == null || !(s.getParentPath().getLeaf() instanceof BlockTree block)) {
      return null;
    }
    int i = block.getStatements().indexOf(s.getLeaf());
    if (i < 0 || i + 1 >= block.getStatements().size()) {
      return null;
    }
    StatementTree next = block.getStatements().get(i + 1);
    return new Fix(
        description, List.of(Fix.prefixEdit(next, statement + "\n" + indent(ctx, next))));
  }

  /**
   * Inserts {@code statement} right after the declaration of the local variable {@code variable}
   * refers to, when it is declared in a block of the same method.
   */
  static Fix afterDeclaration(
      AnalysisContext ctx, TreePath variable, String statement, String description) {
    return afterDeclaration(ctx, variable, statement, description, null);
  }

  /**
   * As {@link #afterDeclaration(AnalysisContext, TreePath, String, String)}, only when the local
   * variable {@code needs} (if not null) is declared before that point, not later in the method.
   */
  static Fix afterDeclaration(
      AnalysisContext ctx, TreePath variable, String statement, String description, String needs) {
    if (!(variable.getLeaf() instanceof IdentifierTree)) {
      return null;
    }
    Element e = ctx.trees().getElement(variable);
    TreePath method = variable;
    while (method != null && !(method.getLeaf() instanceof MethodTree)) {
      method = method.getParentPath();
    }
    if (e == null || method == null) {
      return null;
    }
    StatementTree[] next = new StatementTree[1];
    long[] neededAt = {-1};
    new TreePathScanner<Void, Void>() {
      @Override
      public Void visitBlock(BlockTree block, Void unused) {
        List<? extends StatementTree> statements = block.getStatements();
        for (int i = 0; i + 1 < statements.size(); i++) {
          if (statements.get(i) instanceof VariableTree declared
              && e.equals(
                  ctx.trees().getElement(new TreePath(getCurrentPath(), statements.get(i))))) {
            int after = i + 1;
            while (after < statements.size()
                && statements.get(after) instanceof VariableTree v
                && v.getModifiers() == declared.getModifiers()) {
              after++; // Linear encoder = ..., decoder = ...: after the last of them
            }
            next[0] = after < statements.size() ? statements.get(after) : null;
          }
        }
        return super.visitBlock(block, null);
      }

      @Override
      public Void visitVariable(VariableTree v, Void unused) {
        if (needs != null && v.getName().contentEquals(needs)) {
          neededAt[0] =
              Math.max(
                  neededAt[0], ctx.trees().getSourcePositions().getStartPosition(ctx.unit(), v));
        }
        return super.visitVariable(v, null);
      }
    }.scan(method, null);
    if (next[0] == null
        || neededAt[0] >= ctx.trees().getSourcePositions().getStartPosition(ctx.unit(), next[0])) {
      return null;
    }
    return new Fix(
        description, List.of(Fix.prefixEdit(next[0], statement + "\n" + indent(ctx, next[0]))));
  }

  /**
   * Whether {@code variable} is one of several declared by one statement ({@code double a = 0, b =
   * 0;}), which javac gives as several variable trees sharing their modifiers and type.
   */
  static boolean declaresSeveral(BlockTree block, VariableTree variable) {
    for (StatementTree s : block.getStatements()) {
      if (s != variable
          && s instanceof VariableTree v
          && v.getModifiers() == variable.getModifiers()) {
        return true;
      }
    }
    return false;
  }

  /**
   * Whether the variable {@code name}, read from the code being analysed, may be used at {@code
   * at}: a local variable or parameter declared before it in a block (or the method, or a loop)
   * that contains it, or a field (no local of that name in the method). Not a local declared later,
   * or in a block that has ended.
   */
  static boolean usableAt(AnalysisContext ctx, TreePath at, String name) {
    TreePath method = at;
    while (method != null && !(method.getLeaf() instanceof MethodTree)) {
      method = method.getParentPath();
    }
    if (method == null || name.isEmpty()) {
      return false;
    }
    SourcePositions positions = ctx.trees().getSourcePositions();
    long start = positions.getStartPosition(ctx.unit(), at.getLeaf());
    long end = positions.getEndPosition(ctx.unit(), at.getLeaf());
    boolean[] local = {false};
    boolean[] inScope = {false};
    new TreePathScanner<Void, Void>() {
      @Override
      public Void visitVariable(VariableTree v, Void unused) {
        if (v.getName().contentEquals(name)) {
          local[0] = true;
          Tree scope = getCurrentPath().getParentPath().getLeaf();
          inScope[0] |=
              positions.getStartPosition(ctx.unit(), v) < start
                  && positions.getStartPosition(ctx.unit(), scope) <= start
                  && end <= positions.getEndPosition(ctx.unit(), scope);
        }
        return super.visitVariable(v, null);
      }
    }.scan(method, null);
    return inScope[0] || (!local[0] && visibleOutsideTheMethod(ctx, at, name));
  }

  /**
   * Whether {@code name}, not a local of the method, names something there: a field of an enclosing
   * class (its own or inherited), or a type ({@code Env} of {@code Env.DEVICE}), taken to be one
   * when it starts with a capital letter. A variable of a caller ({@code device} where only {@code
   * x} is in scope) is not.
   */
  private static boolean visibleOutsideTheMethod(AnalysisContext ctx, TreePath at, String name) {
    if (Character.isUpperCase(name.charAt(0))) {
      return true;
    }
    for (Scope scope = ctx.trees().getScope(at); scope != null; scope = scope.getEnclosingScope()) {
      TypeElement type = scope.getEnclosingClass();
      if (type != null
          && ElementFilter.fieldsIn(ctx.elements().getAllMembers(type)).stream()
              .anyMatch(f -> f.getSimpleName().contentEquals(name))) {
        return true;
      }
    }
    return false;
  }

  private static TreePath enclosingStatement(TreePath at) {
    for (TreePath p = at; p.getParentPath() != null; p = p.getParentPath()) {
      if (p.getLeaf() instanceof StatementTree
          && p.getParentPath().getLeaf() instanceof BlockTree) {
        return p;
      }
    }
    return null;
  }

  /** The whitespace before a statement on its line. */
  private static String indent(AnalysisContext ctx, Tree statement) {
    long start = ctx.trees().getSourcePositions().getStartPosition(ctx.unit(), statement);
    String source = ctx.sourceText();
    int lineStart = source.lastIndexOf('\n', (int) start - 1) + 1;
    String prefix = start > lineStart ? source.substring(lineStart, (int) start) : "";
    return prefix.isBlank() ? prefix : "";
  }
}
