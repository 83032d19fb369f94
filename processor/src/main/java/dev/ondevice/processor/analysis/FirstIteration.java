package dev.ondevice.processor.analysis;

import com.sun.source.tree.BinaryTree;
import com.sun.source.tree.BlockTree;
import com.sun.source.tree.BreakTree;
import com.sun.source.tree.CaseTree;
import com.sun.source.tree.CatchTree;
import com.sun.source.tree.ClassTree;
import com.sun.source.tree.ConditionalExpressionTree;
import com.sun.source.tree.ContinueTree;
import com.sun.source.tree.IfTree;
import com.sun.source.tree.LambdaExpressionTree;
import com.sun.source.tree.ReturnTree;
import com.sun.source.tree.StatementTree;
import com.sun.source.tree.ThrowTree;
import com.sun.source.tree.Tree;
import com.sun.source.tree.YieldTree;
import com.sun.source.util.TreePath;

/**
 * Whether the first iteration of a loop certainly reaches a tree of its body: no branch on the way
 * to it (an {@code if}, a {@code ?:}, a {@code switch} case, a {@code catch}, the right of {@code
 * &&} or {@code ||}, a lambda), and no statement before it that may leave the iteration ({@code
 * continue}, {@code break}, {@code return}, {@code throw}). The analysis does not follow
 * conditions, so a finding of the first pass is kept only there: {@code if (step > 0) use(prev)} or
 * {@code if (first) { prev = out; continue; }} may well never run with the values the loop starts
 * from.
 */
final class FirstIteration {
  private FirstIteration() {}

  static boolean reaches(TreePath loop, TreePath tree) {
    Tree child = tree.getLeaf();
    for (TreePath p = tree.getParentPath();
        p != null && p.getLeaf() != loop.getLeaf();
        p = p.getParentPath()) {
      Tree t = p.getLeaf();
      if (branches(t, child)) {
        return false;
      }
      if (t instanceof BlockTree block && leavesBefore(block, child)) {
        return false;
      }
      child = t;
    }
    return true;
  }

  /** Whether {@code parent} runs {@code child} only on some paths. */
  private static boolean branches(Tree parent, Tree child) {
    if (parent instanceof IfTree i) {
      return child != i.getCondition();
    }
    if (parent instanceof ConditionalExpressionTree c) {
      return child != c.getCondition();
    }
    if (parent instanceof BinaryTree b
        && (b.getKind() == Tree.Kind.CONDITIONAL_AND || b.getKind() == Tree.Kind.CONDITIONAL_OR)) {
      return child == b.getRightOperand();
    }
    return parent instanceof CaseTree
        || parent instanceof CatchTree
        || parent instanceof LambdaExpressionTree
        || parent instanceof ClassTree;
  }

  /** Whether a statement of {@code block} before {@code child} contains a jump out of it. */
  private static boolean leavesBefore(BlockTree block, Tree child) {
    for (StatementTree s : block.getStatements()) {
      if (s == child) {
        return false;
      }
      if (jumps(s)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Whether a statement may leave the iteration: a jump not inside a lambda or a class of its own.
   */
  private static boolean jumps(Tree statement) {
    return TreeSearch.contains(
        statement,
        t ->
            t instanceof ContinueTree
                || t instanceof BreakTree
                || t instanceof ReturnTree
                || t instanceof ThrowTree,
        t -> t instanceof YieldTree || t instanceof LambdaExpressionTree || t instanceof ClassTree);
  }
}
