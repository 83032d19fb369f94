package dev.ondevice.processor.analysis;

import com.sun.source.tree.AssignmentTree;
import com.sun.source.tree.BlockTree;
import com.sun.source.tree.CompoundAssignmentTree;
import com.sun.source.tree.EnhancedForLoopTree;
import com.sun.source.tree.ExpressionStatementTree;
import com.sun.source.tree.IdentifierTree;
import com.sun.source.tree.LambdaExpressionTree;
import com.sun.source.tree.LiteralTree;
import com.sun.source.tree.MemberSelectTree;
import com.sun.source.tree.MethodInvocationTree;
import com.sun.source.tree.MethodTree;
import com.sun.source.tree.ParenthesizedTree;
import com.sun.source.tree.StatementTree;
import com.sun.source.tree.Tree;
import com.sun.source.tree.VariableTree;
import com.sun.source.util.SourcePositions;
import com.sun.source.util.TreePath;
import com.sun.source.util.TreePathScanner;
import dev.ondevice.annotations.BatchSource;
import java.util.ArrayList;
import java.util.List;
import javax.lang.model.element.Element;
import javax.lang.model.type.TypeKind;

/**
 * The rewrite of the seed's {@code total += loss.item()} inside a batch loop into an accumulation
 * on the device, read once after the loop:
 *
 * <pre>
 * double total = 0;                     Tensor total = Tensor.scalar(0.0);
 * for (Batch b : loader) {              for (Batch b : loader) {
 *   total += loss.item();         -&gt;      total = total.add(loss.detach());
 * }                                     }
 * return total / n;                     return total.item() / n;
 * </pre>
 *
 * Offered only when it is safe: a local {@code double} or {@code float} (for {@code item()}) or
 * {@code long} (for {@code itemAsLong()}), or a {@code var}, declared alone with the literal 0 in
 * the block of the batch loop, before it; changed in the loop by this one statement only; and only
 * read after the loop, where it becomes a read of the tensor ({@code (float)} for a {@code float}
 * total). The 0-dim CPU scalar it starts from may meet a tensor on any device, as in PyTorch.
 */
final class AccumulateOnDeviceFix {
  private AccumulateOnDeviceFix() {}

  /**
   * Whether the read is a method of a tensor called on a tensor, so that the rewritten code can
   * call {@code detach()} on the receiver and the same read on the total (a user's own
   * {@code @HostSync} method on another type gets the warning without this fix).
   */
  private static boolean readsATensor(AnalysisContext ctx, TreePath call, MemberSelectTree select) {
    Element method = ctx.trees().getElement(call);
    TreePath receiver = new TreePath(new TreePath(call, select), select.getExpression());
    return method != null
        && ctx.types().isTensor(method.getEnclosingElement().asType())
        && ctx.types().isTensor(ctx.trees().getTypeMirror(receiver));
  }

  /** The fix for the host read at {@code call}, or null when the pattern does not apply. */
  static Fix of(AnalysisContext ctx, TreePath call) {
    MethodInvocationTree item = (MethodInvocationTree) call.getLeaf();
    if (!(item.getMethodSelect() instanceof MemberSelectTree select)
        || !item.getArguments().isEmpty()
        || !readsATensor(ctx, call, select)) {
      return null;
    }
    String read = select.getIdentifier().toString();
    TypeKind result = ctx.trees().getTypeMirror(call).getKind();
    boolean integral = result == TypeKind.LONG;
    if (!(result == TypeKind.DOUBLE || result == TypeKind.FLOAT || integral)) {
      return null;
    }
    TreePath assignPath = call.getParentPath();
    while (assignPath != null && assignPath.getLeaf() instanceof ParenthesizedTree) {
      assignPath = assignPath.getParentPath();
    }
    if (assignPath == null
        || assignPath.getLeaf().getKind() != Tree.Kind.PLUS_ASSIGNMENT
        || !(assignPath.getParentPath().getLeaf() instanceof ExpressionStatementTree)) {
      return null;
    }
    CompoundAssignmentTree assign = (CompoundAssignmentTree) assignPath.getLeaf();
    if (!(assign.getVariable() instanceof IdentifierTree)) {
      return null;
    }
    Element total = ctx.trees().getElement(new TreePath(assignPath, assign.getVariable()));
    TreePath loop = enclosingBatchLoop(ctx, assignPath);
    if (total == null || loop == null || !(loop.getParentPath().getLeaf() instanceof BlockTree)) {
      return null;
    }
    VariableTree declaration =
        declarationBefore(
            (BlockTree) loop.getParentPath().getLeaf(),
            loop.getLeaf(),
            total,
            ctx,
            loop.getParentPath(),
            integral);
    if (declaration == null) {
      return null;
    }
    SourcePositions positions = ctx.trees().getSourcePositions();
    long loopEnd = positions.getEndPosition(ctx.unit(), loop.getLeaf());
    List<Fix.Edit> edits = new ArrayList<>();
    if (positions.getStartPosition(ctx.unit(), declaration.getType()) >= 0
        && positions.getEndPosition(ctx.unit(), declaration.getType()) >= 0) {
      edits.add(Fix.replaceEdit(declaration.getType(), "Tensor"));
    } // else declared with var (javac gives it no source range), which the new initializer makes a
    // Tensor
    edits.add(
        Fix.replaceEdit(
            declaration.getInitializer(), integral ? "Tensor.scalar(0L)" : "Tensor.scalar(0.0)"));
    String name = total.getSimpleName().toString();
    boolean floatTotal = total.asType().getKind() == TypeKind.FLOAT;
    String receiver = ctx.text(select.getExpression());
    edits.add(Fix.replaceEdit(assign, name + " = " + name + ".add(" + receiver + ".detach())"));
    boolean[] safe = {true};
    TreePath method = enclosingMethodBody(loop);
    new TreePathScanner<Void, Void>() {
      @Override
      public Void visitIdentifier(IdentifierTree node, Void unused) {
        TreePath p = getCurrentPath();
        if (total.equals(ctx.trees().getElement(p)) && node != assign.getVariable()) {
          long at = positions.getStartPosition(ctx.unit(), node);
          Tree parent = p.getParentPath().getLeaf();
          boolean written =
              (parent instanceof AssignmentTree
                  || parent instanceof CompoundAssignmentTree
                  || parent.getKind().name().contains("CREMENT"));
          if (at < loopEnd || written) {
            safe[0] = false;
          } else {
            edits.add(
                Fix.replaceEdit(
                    node,
                    floatTotal
                        ? "((float) " + name + "." + read + "())"
                        : name + "." + read + "()"));
          }
        }
        return super.visitIdentifier(node, null);
      }
    }.scan(method, null);
    if (!safe[0]) {
      return null;
    }
    return new Fix(
        "accumulate " + name + " on the device and read it once after the loop",
        edits,
        List.of("dev.ondevice.Tensor"));
  }

  private static TreePath enclosingBatchLoop(AnalysisContext ctx, TreePath from) {
    for (TreePath p = from; p != null; p = p.getParentPath()) {
      if (p.getLeaf() instanceof EnhancedForLoopTree) {
        TreePath expression = new TreePath(p, ((EnhancedForLoopTree) p.getLeaf()).getExpression());
        if (ctx.types().hasInherited(ctx.trees().getTypeMirror(expression), BatchSource.class)) {
          return p;
        }
      }
    }
    return null;
  }

  private static VariableTree declarationBefore(
      BlockTree block,
      Tree loop,
      Element variable,
      AnalysisContext ctx,
      TreePath blockPath,
      boolean integral) {
    for (StatementTree s : block.getStatements()) {
      if (s == loop) {
        return null;
      }
      if (s instanceof VariableTree v
          && variable.equals(ctx.trees().getElement(new TreePath(blockPath, s)))) {
        if (StatementFixes.declaresSeveral(block, v)) {
          return null; // double total = 0, steps = 0: the type is shared
        }
        TypeKind kind = variable.asType().getKind();
        boolean zero =
            v.getInitializer() instanceof LiteralTree
                && ((LiteralTree) v.getInitializer()).getValue() instanceof Number
                && ((Number) ((LiteralTree) v.getInitializer()).getValue()).doubleValue() == 0;
        boolean fits =
            integral ? kind == TypeKind.LONG : kind == TypeKind.DOUBLE || kind == TypeKind.FLOAT;
        return fits && zero ? v : null;
      }
    }
    return null;
  }

  private static TreePath enclosingMethodBody(TreePath from) {
    TreePath last = from;
    for (TreePath p = from; p != null; p = p.getParentPath()) {
      if (p.getLeaf() instanceof MethodTree || p.getLeaf() instanceof LambdaExpressionTree) {
        return p;
      }
      last = p;
    }
    return last;
  }
}
