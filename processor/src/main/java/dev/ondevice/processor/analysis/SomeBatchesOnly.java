package dev.ondevice.processor.analysis;

import com.sun.source.tree.BinaryTree;
import com.sun.source.tree.BlockTree;
import com.sun.source.tree.BreakTree;
import com.sun.source.tree.CaseTree;
import com.sun.source.tree.ConditionalExpressionTree;
import com.sun.source.tree.ContinueTree;
import com.sun.source.tree.ExpressionTree;
import com.sun.source.tree.IfTree;
import com.sun.source.tree.LabeledStatementTree;
import com.sun.source.tree.ReturnTree;
import com.sun.source.tree.StatementTree;
import com.sun.source.tree.ThrowTree;
import com.sun.source.tree.Tree;
import com.sun.source.tree.UnaryTree;
import com.sun.source.util.TreePath;
import java.util.List;

/**
 * Whether code in the batch loop runs on some batches only, by the look of it, so that a host read
 * there is not one per batch: under a condition that holds on every n-th batch only ({@code if (step
 * % 100 == 0)}, the usual logging, also as the left operand of {@code &&} or a {@code ?:}), after a
 * guard that skips the other batches ({@code if (step % 100 != 0) continue;}, or {@code return} in a
 * {@code @Step} method or a lambda run per batch), or followed in its block by a statement that
 * leaves the batch loop ({@code break}, {@code return}, {@code throw}: a last read before stopping).
 */
final class SomeBatchesOnly {
  private SomeBatchesOnly() {}

  /**
   * Whether the code at {@code path} runs on some batches only, in the batch loop {@code loop}
   * ({@code null} in a {@code @Step} method or a lambda run per batch, whose {@code return} ends the
   * batch).
   */
  static boolean runs(TreePath path, Tree loop) {
    String exitLabel = null; // a labeled break after the read, whose statement must enclose the batch loop
    boolean pastLoop = false;
    Tree child = path.getLeaf();
    for (TreePath p = path.getParentPath(); p != null; child = p.getLeaf(), p = p.getParentPath()) {
      Tree t = p.getLeaf();
      if (pastLoop) {
        if (t instanceof LabeledStatementTree l && l.getLabel().contentEquals(exitLabel)) {
          return true;
        }
        if (endsTheSearch(t)) {
          return false;
        }
        continue;
      }
      if (t == loop) {
        if (exitLabel == null) {
          return false;
        }
        pastLoop = true;
        continue;
      }
      if (endsTheSearch(t)) {
        return false;
      }
      if (t instanceof LabeledStatementTree l && exitLabel != null && l.getLabel().contentEquals(exitLabel)) {
        exitLabel = null; // the break leaves a statement inside the batch loop
      }
      if (onEveryNthBranch(t, child)) {
        return true;
      }
      List<? extends StatementTree> statements = t instanceof BlockTree b ? b.getStatements()
          : t instanceof CaseTree c && c.getBody() == null ? c.getStatements() : null;
      if (statements == null) {
        continue;
      }
      boolean after = false;
      for (StatementTree s : statements) {
        if (s == child) {
          after = true;
        } else if (!after && skipsAllButEveryNth(s, p, loop)) {
          return true;
        } else if (after && loop != null && (s instanceof ReturnTree || s instanceof ThrowTree)) {
          return true;
        } else if (after && loop != null && s instanceof BreakTree b) {
          if (b.getLabel() == null && reachesBatchLoop(p, loop, true)) {
            return true;
          }
          if (b.getLabel() != null && exitLabel == null) {
            exitLabel = b.getLabel().toString();
          }
        }
      }
    }
    return false;
  }

  private static boolean endsTheSearch(Tree t) {
    return switch (t.getKind()) {
      case LAMBDA_EXPRESSION, METHOD, CLASS -> true;
      default -> false;
    };
  }

  /**
   * Whether {@code child} is the part of {@code t} that runs only where a condition holds on every
   * n-th batch: the branch of an {@code if} or a {@code ?:}, or the right operand of {@code &&} (of
   * {@code ||} where the left one is false on every n-th batch only).
   */
  private static boolean onEveryNthBranch(Tree t, Tree child) {
    if (t instanceof IfTree branch) {
      return (child == branch.getThenStatement() && everyNthWhen(branch.getCondition(), true))
          || (child == branch.getElseStatement() && everyNthWhen(branch.getCondition(), false));
    }
    if (t instanceof ConditionalExpressionTree choice) {
      return (child == choice.getTrueExpression() && everyNthWhen(choice.getCondition(), true))
          || (child == choice.getFalseExpression() && everyNthWhen(choice.getCondition(), false));
    }
    if (t instanceof BinaryTree b && child == b.getRightOperand()) {
      return (t.getKind() == Tree.Kind.CONDITIONAL_AND && everyNthWhen(b.getLeftOperand(), true))
          || (t.getKind() == Tree.Kind.CONDITIONAL_OR && everyNthWhen(b.getLeftOperand(), false));
    }
    return false;
  }

  /**
   * A guard before the code that ends the batch unless it is an n-th one: {@code if (step % 100 !=
   * 0) continue;} in the batch loop, {@code if (step % 100 != 0) return ...;} in a {@code @Step}
   * method or a lambda run per batch ({@code loop} null).
   */
  private static boolean skipsAllButEveryNth(StatementTree s, TreePath block, Tree loop) {
    if (!(s instanceof IfTree guard) || guard.getElseStatement() != null
        || !everyNthWhen(guard.getCondition(), false)) {
      return false;
    }
    StatementTree then = guard.getThenStatement();
    if (then instanceof BlockTree b && b.getStatements().size() == 1) {
      then = b.getStatements().get(0);
    }
    if (loop == null) {
      return then instanceof ReturnTree;
    }
    return then instanceof ContinueTree c && c.getLabel() == null && reachesBatchLoop(block, loop, false);
  }

  /**
   * Whether an unlabeled {@code continue} (or {@code break}, {@code viaBreak}) in the block at
   * {@code block} goes to the batch loop {@code loop}: no other loop (or switch) is in between.
   */
  private static boolean reachesBatchLoop(TreePath block, Tree loop, boolean viaBreak) {
    for (TreePath p = block.getParentPath(); p != null; p = p.getParentPath()) {
      Tree t = p.getLeaf();
      if (t == loop) {
        return true;
      }
      switch (t.getKind()) {
        case ENHANCED_FOR_LOOP, FOR_LOOP, WHILE_LOOP, DO_WHILE_LOOP, LAMBDA_EXPRESSION, METHOD, CLASS -> {
          return false;
        }
        case SWITCH, SWITCH_EXPRESSION -> {
          if (viaBreak) {
            return false;
          }
        }
        default -> {}
      }
    }
    return false;
  }

  /**
   * Whether {@code condition} having the value {@code value} means the batch is an n-th one: it
   * compares a remainder ({@code step % 100 == 0} true, {@code step % 100 != 0} false), through
   * {@code !} and parentheses. Under {@code &&} and {@code ||} one such operand is enough: {@code
   * step % 100 == 0 && loss < best} holds on n-th batches only; {@code step % 100 == 0 || last} on
   * those and a few more, which is still not every batch.
   */
  static boolean everyNthWhen(ExpressionTree condition, boolean value) {
    ExpressionTree e = MethodInterpreter.skipParens(condition);
    return switch (e.getKind()) {
      case LOGICAL_COMPLEMENT -> everyNthWhen(((UnaryTree) e).getExpression(), !value);
      case CONDITIONAL_AND, CONDITIONAL_OR -> everyNthWhen(((BinaryTree) e).getLeftOperand(), value)
          || everyNthWhen(((BinaryTree) e).getRightOperand(), value);
      case EQUAL_TO -> value && comparesRemainder((BinaryTree) e);
      case NOT_EQUAL_TO -> !value && comparesRemainder((BinaryTree) e);
      default -> false;
    };
  }

  private static boolean comparesRemainder(BinaryTree comparison) {
    return MethodInterpreter.skipParens(comparison.getLeftOperand()).getKind() == Tree.Kind.REMAINDER
        || MethodInterpreter.skipParens(comparison.getRightOperand()).getKind() == Tree.Kind.REMAINDER;
  }
}
