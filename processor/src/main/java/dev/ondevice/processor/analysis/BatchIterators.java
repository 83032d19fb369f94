package dev.ondevice.processor.analysis;

import com.sun.source.tree.AssignmentTree;
import com.sun.source.tree.BinaryTree;
import com.sun.source.tree.BlockTree;
import com.sun.source.tree.DoWhileLoopTree;
import com.sun.source.tree.ExpressionStatementTree;
import com.sun.source.tree.ExpressionTree;
import com.sun.source.tree.ForLoopTree;
import com.sun.source.tree.IdentifierTree;
import com.sun.source.tree.MemberSelectTree;
import com.sun.source.tree.MethodInvocationTree;
import com.sun.source.tree.StatementTree;
import com.sun.source.tree.Tree;
import com.sun.source.tree.UnaryTree;
import com.sun.source.tree.VariableTree;
import com.sun.source.tree.WhileLoopTree;
import com.sun.source.util.TreePath;
import java.util.function.Function;
import javax.lang.model.element.Element;

/**
 * Batches taken from an iterator rather than by an enhanced {@code for}: which loops take them
 * ({@code while (it.hasNext()) { Batch b = it.next(); ... }} over {@code loader.iterator()}), and
 * which calls return one. A loop that takes batches is a batch loop, and a batch is in host memory.
 */
final class BatchIterators {
  private final AnalysisContext ctx;

  /** The current value of a local variable, or null. */
  private final Function<Element, Value> values;

  BatchIterators(AnalysisContext ctx, Function<Element, Value> values) {
    this.ctx = ctx;
    this.values = values;
  }

  /**
   * Whether a {@code while}, {@code do} or {@code for} loop takes its batches from a batch iterator
   * ({@code loader.iterator()}): its condition asks the iterator ({@code while (it.hasNext())},
   * {@code while (it.hasNext() && step < max)}), or a statement of its body takes the next batch
   * ({@code Batch b = it.next();}, as in {@code while (true) { if (!it.hasNext()) break; Batch b =
   * it.next(); ... }}). A batch loop too.
   */
  boolean loopTakesBatches(TreePath path, Tree loop) {
    ExpressionTree condition;
    StatementTree body;
    switch (loop.getKind()) {
      case WHILE_LOOP -> {
        condition = ((WhileLoopTree) loop).getCondition();
        body = ((WhileLoopTree) loop).getStatement();
      }
      case DO_WHILE_LOOP -> {
        condition = ((DoWhileLoopTree) loop).getCondition();
        body = ((DoWhileLoopTree) loop).getStatement();
      }
      case FOR_LOOP -> {
        condition = ((ForLoopTree) loop).getCondition();
        body = ((ForLoopTree) loop).getStatement();
      }
      default -> {
        return false;
      }
    }
    if (condition != null && asksBatchIterator(new TreePath(path, condition))) {
      return true;
    }
    if (body instanceof BlockTree block) {
      TreePath blockPath = new TreePath(path, block);
      for (StatementTree s : block.getStatements()) {
        ExpressionTree e =
            s instanceof VariableTree v
                ? v.getInitializer()
                : s instanceof ExpressionStatementTree es ? es.getExpression() : null;
        if (e instanceof AssignmentTree a) {
          e = a.getExpression();
        }
        if (e != null && isNextBatch(new TreePath(new TreePath(blockPath, s), e))) {
          return true;
        }
      }
    }
    return false;
  }

  /**
   * Whether a loop condition calls a batch iterator: {@code it.hasNext()}, also within {@code &&},
   * {@code ||}, {@code !}.
   */
  private boolean asksBatchIterator(TreePath condition) {
    Tree c = MethodInterpreter.skipParens(condition.getLeaf());
    if (c instanceof BinaryTree b
        && (b.getKind() == Tree.Kind.CONDITIONAL_AND || b.getKind() == Tree.Kind.CONDITIONAL_OR)) {
      return asksBatchIterator(new TreePath(condition, b.getLeftOperand()))
          || asksBatchIterator(new TreePath(condition, b.getRightOperand()));
    }
    if (c instanceof UnaryTree u && u.getKind() == Tree.Kind.LOGICAL_COMPLEMENT) {
      return asksBatchIterator(new TreePath(condition, u.getExpression()));
    }
    return c instanceof MethodInvocationTree call
        && call.getMethodSelect() instanceof MemberSelectTree select
        && isBatchIterator(
            new TreePath(new TreePath(new TreePath(condition, c), select), select.getExpression()));
  }

  /** Whether an expression is {@code it.next()} on a batch iterator. */
  boolean isNextBatch(TreePath expression) {
    return expression.getLeaf() instanceof MethodInvocationTree call
        && call.getArguments().isEmpty()
        && call.getMethodSelect() instanceof MemberSelectTree select
        && select.getIdentifier().contentEquals("next")
        && isBatchIterator(new TreePath(new TreePath(expression, select), select.getExpression()));
  }

  /**
   * Whether an expression is an iterator over batches: of a {@code @BatchSource} iterator type, or
   * a variable holding what a {@code @BatchSource} returned as an iterator ({@code Iterator<Batch>
   * it = loader.iterator()}).
   */
  private boolean isBatchIterator(TreePath expression) {
    if (ctx.types().isBatchIterator(ctx.trees().getTypeMirror(expression))) {
      return true;
    }
    if (!(expression.getLeaf() instanceof IdentifierTree)) {
      return false;
    }
    Element e = ctx.trees().getElement(expression);
    Value v = e == null ? null : values.apply(e);
    return v != null && v.origin() == Value.Origin.BATCH_ITERATOR;
  }
}
