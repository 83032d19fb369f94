package dev.ondevice.processor.analysis;

import com.sun.source.tree.CaseTree;
import com.sun.source.tree.ConditionalExpressionTree;
import com.sun.source.tree.IfTree;
import com.sun.source.tree.Tree;
import com.sun.source.util.TreePath;
import java.util.IdentityHashMap;

/**
 * Whether two statements of one method run on exclusive paths: in the two branches of an {@code
 * if}, of a {@code ?:} or in two cases of a {@code switch}. Code before, after or around a branch
 * runs with it, and so do two iterations of a loop.
 */
final class Alternatives {
  private Alternatives() {}

  /** Whether {@code a} and {@code b} lie in different branches of their innermost common choice. */
  static boolean exclusive(TreePath a, TreePath b) {
    IdentityHashMap<Tree, Tree> childTowardsB = new IdentityHashMap<>();
    Tree below = null;
    for (TreePath p = b; p != null; p = p.getParentPath()) {
      childTowardsB.put(p.getLeaf(), below);
      below = p.getLeaf();
    }
    Tree childTowardsA = null;
    for (TreePath p = a; p != null; p = p.getParentPath()) {
      Tree t = p.getLeaf();
      if (childTowardsB.containsKey(t)) {
        Tree towardsB = childTowardsB.get(t);
        return childTowardsA != null
            && towardsB != null
            && childTowardsA != towardsB
            && isBranch(t, childTowardsA)
            && isBranch(t, towardsB);
      }
      childTowardsA = t;
    }
    return false;
  }

  /** Whether {@code child} is a branch of the choice {@code t}, not its condition. */
  private static boolean isBranch(Tree t, Tree child) {
    if (t instanceof IfTree i) {
      return child == i.getThenStatement() || child == i.getElseStatement();
    }
    if (t instanceof ConditionalExpressionTree c) {
      return child == c.getTrueExpression() || child == c.getFalseExpression();
    }
    return child instanceof CaseTree;
  }
}
