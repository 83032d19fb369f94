package dev.ondevice.processor.analysis;

import com.sun.source.tree.ArrayAccessTree;
import com.sun.source.tree.AssignmentTree;
import com.sun.source.tree.BinaryTree;
import com.sun.source.tree.BlockTree;
import com.sun.source.tree.BreakTree;
import com.sun.source.tree.CaseTree;
import com.sun.source.tree.CompoundAssignmentTree;
import com.sun.source.tree.ConditionalExpressionTree;
import com.sun.source.tree.ContinueTree;
import com.sun.source.tree.EnhancedForLoopTree;
import com.sun.source.tree.ExpressionStatementTree;
import com.sun.source.tree.ExpressionTree;
import com.sun.source.tree.ForLoopTree;
import com.sun.source.tree.IdentifierTree;
import com.sun.source.tree.IfTree;
import com.sun.source.tree.LabeledStatementTree;
import com.sun.source.tree.LambdaExpressionTree;
import com.sun.source.tree.LiteralTree;
import com.sun.source.tree.MemberSelectTree;
import com.sun.source.tree.MethodInvocationTree;
import com.sun.source.tree.ReturnTree;
import com.sun.source.tree.StatementTree;
import com.sun.source.tree.SwitchExpressionTree;
import com.sun.source.tree.SwitchTree;
import com.sun.source.tree.ThrowTree;
import com.sun.source.tree.Tree;
import com.sun.source.tree.UnaryTree;
import com.sun.source.tree.VariableTree;
import com.sun.source.tree.WhileLoopTree;
import com.sun.source.util.TreePath;
import com.sun.source.util.TreeScanner;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Whether code in the batch loop runs on some batches only, by the look of it, so that a host read
 * there is not one per batch: under a condition that holds on every n-th batch only ({@code if
 * (step % 100 == 0)}, the usual logging, also as the left operand of {@code &&}, a {@code ?:}, a
 * local {@code boolean} given such a condition, or the case of a {@code switch} on such a
 * remainder; the last batch, {@code !it.hasNext()}; a flag its branch clears, {@code if (first)
 * {...; first = false;}}) unless that branch trains itself ({@code if ((i + 1) % nCritic == 0) {
 * ...; loss.backward(); }}, a training step of its own), after a guard that skips the other batches
 * ({@code if (step % 100 != 0) continue;}, or {@code return} in a {@code @Step} method or a lambda
 * run per batch), in or followed by a statement that leaves the batch loop ({@code return}, {@code
 * throw}, {@code break}: a last read before stopping). A remainder counts only where what it
 * divides changes from batch to batch: a counter stepped in the batch loop itself ({@code ++step %
 * 100}), not in an inner or outer loop ({@code epoch % 5}). Lambdas written in the batch loop are
 * taken to run where they are written ({@code log.info(() -> "loss " + loss.item())}). Asked only
 * where a read is about to be reported.
 */
final class SomeBatchesOnly {
  private final Tree loop;

  /**
   * The statement or lambda that runs once per batch: the batch loop, or the {@code loader.forEach}
   * lambda.
   */
  private final boolean lambdaPerBatch;

  private final String loopLabel;

  /**
   * The outermost lambda between the code and the batch loop, which is taken to run where it is
   * written.
   */
  private final Tree lambda;

  private final TreePath path;
  private Set<String> steppedInLoop;

  private SomeBatchesOnly(TreePath path, Tree loop) {
    this.path = path;
    this.loop = loop;
    this.lambdaPerBatch = loop instanceof LambdaExpressionTree;
    Tree outermostLambda = null;
    String label = null;
    for (TreePath p = path.getParentPath(); p != null; p = p.getParentPath()) {
      Tree t = p.getLeaf();
      if (t == loop) {
        if (p.getParentPath() != null
            && p.getParentPath().getLeaf() instanceof LabeledStatementTree l) {
          label = l.getLabel().toString();
        }
        break;
      }
      if (t instanceof LambdaExpressionTree) {
        outermostLambda = t;
      } else if (endsTheSearch(t)) {
        break;
      }
    }
    this.lambda = outermostLambda;
    this.loopLabel = label;
  }

  /**
   * Whether the code at {@code path} runs on some batches only, in the batch loop {@code loop}: a
   * loop statement, a lambda run once per batch ({@code loader.forEach(b -> ...)}), or null in a
   * {@code @Step} method, where a {@code return} ends the batch.
   */
  static boolean runs(TreePath path, Tree loop) {
    return new SomeBatchesOnly(path, loop).runs();
  }

  private boolean runs() {
    String exitLabel =
        null; // a labeled break after the read, whose statement must enclose the batch loop
    boolean pastLoop = false;
    boolean belowLambda = lambda != null;
    Tree child = path.getLeaf();
    for (TreePath p = path.getParentPath(); p != null; child = p.getLeaf(), p = p.getParentPath()) {
      Tree t = p.getLeaf();
      if (pastLoop) {
        if (t instanceof LabeledStatementTree l && l.getLabel().contentEquals(exitLabel)) {
          return true;
        }
        if (endsTheSearch(t) || t instanceof LambdaExpressionTree) {
          return false;
        }
        continue;
      }
      if (t == loop) {
        if (exitLabel == null || lambdaPerBatch) {
          return false;
        }
        pastLoop = true;
        continue;
      }
      if (t == lambda) {
        belowLambda = false; // what encloses it decides
        continue;
      }
      if (endsTheSearch(t)) {
        return false;
      }
      if (t instanceof LabeledStatementTree l
          && exitLabel != null
          && l.getLabel().contentEquals(exitLabel)) {
        exitLabel = null; // the break leaves a statement inside the batch loop
      }
      if (onEveryNthBranch(p, child)) {
        return true;
      }
      if (!belowLambda && leavesTheLoop(t)) {
        return true; // return loss.item(); throw new IllegalStateException("diverged: " + loss)
      }
      List<? extends StatementTree> statements =
          t instanceof BlockTree b
              ? b.getStatements()
              : t instanceof CaseTree c && c.getBody() == null ? c.getStatements() : null;
      if (statements == null || belowLambda) {
        continue;
      }
      boolean after = false;
      for (StatementTree s : statements) {
        if (s == child) {
          after = true;
        } else if (!after && skipsAllButEveryNth(s, p)) {
          return true;
        } else if (after && isStatementLoop()) {
          if (leavesTheLoop(s)
              || (s instanceof BreakTree b && b.getLabel() == null && reachesBatchLoop(p, true))) {
            return true;
          }
          CharSequence label =
              s instanceof BreakTree b
                  ? b.getLabel()
                  : s instanceof ContinueTree c
                          && c.getLabel() != null
                          && !c.getLabel().contentEquals(loopLabel(""))
                      ? c.getLabel()
                      : null;
          if (label != null) {
            exitLabel = exitLabel == null ? label.toString() : exitLabel;
            break;
          }
          if (mayJump(s)) {
            break; // a statement that may leave the block first: the exit is not certain
          }
        }
      }
    }
    return false;
  }

  private boolean isStatementLoop() {
    return loop != null && !lambdaPerBatch;
  }

  private String loopLabel(String none) {
    return loopLabel == null ? none : loopLabel;
  }

  /**
   * A {@code return} or {@code throw} that leaves the batch loop (a {@code return} in a lambda run
   * per batch does not).
   */
  private boolean leavesTheLoop(Tree t) {
    return (t instanceof ReturnTree && isStatementLoop())
        || (t instanceof ThrowTree && loop != null);
  }

  private static boolean endsTheSearch(Tree t) {
    return switch (t.getKind()) {
      case METHOD, CLASS, ENUM, RECORD, INTERFACE -> true;
      default -> false;
    };
  }

  private static boolean mayJump(StatementTree s) {
    return TreeSearch.contains(
        s,
        t ->
            switch (t.getKind()) {
              case BREAK, CONTINUE, RETURN, THROW, YIELD -> true;
              default -> false;
            },
        t -> t instanceof LambdaExpressionTree || endsTheSearch(t));
  }

  /**
   * Whether {@code child} is the part of the tree at {@code at} that runs only where a condition
   * holds on every n-th batch: the branch of an {@code if} or a {@code ?:}, the right operand of
   * {@code &&} (of {@code ||} where the left one is false on n-th batches only), the case of a
   * {@code switch} on a remainder.
   */
  private boolean onEveryNthBranch(TreePath at, Tree child) {
    Tree t = at.getLeaf();
    if (t instanceof IfTree branch) {
      // A branch that trains (loss.backward()) runs a training step on those batches: its reads are
      // that step's.
      return (child == branch.getThenStatement()
              && !TrainingLoops.callsBackward(branch.getThenStatement())
              && (everyNthWhen(at, branch.getCondition(), true) || clearsItsFlag(branch)))
          || (child == branch.getElseStatement() && everyNthWhen(at, branch.getCondition(), false));
    }
    if (t instanceof ConditionalExpressionTree choice) {
      return (child == choice.getTrueExpression() && everyNthWhen(at, choice.getCondition(), true))
          || (child == choice.getFalseExpression()
              && everyNthWhen(at, choice.getCondition(), false));
    }
    if (t instanceof BinaryTree b && child == b.getRightOperand()) {
      return (t.getKind() == Tree.Kind.CONDITIONAL_AND
              && everyNthWhen(at, b.getLeftOperand(), true))
          || (t.getKind() == Tree.Kind.CONDITIONAL_OR
              && everyNthWhen(at, b.getLeftOperand(), false));
    }
    if (t instanceof CaseTree c && !c.getExpressions().isEmpty()) {
      Tree around = at.getParentPath().getLeaf();
      ExpressionTree selector =
          around instanceof SwitchTree s
              ? s.getExpression()
              : around instanceof SwitchExpressionTree e ? e.getExpression() : null;
      return selector != null
          && isSteppedRemainder(at, selector); // switch (step % 3) { case 0: ... }
    }
    return false;
  }

  /**
   * A guard before the code that ends the batch unless it is an n-th one: {@code if (step % 100 !=
   * 0) continue;} (or a block ending so) in the batch loop, {@code if (step % 100 != 0) return
   * ...;} in a {@code @Step} method or a lambda run per batch.
   */
  private boolean skipsAllButEveryNth(StatementTree s, TreePath block) {
    if (!(s instanceof IfTree guard)
        || guard.getElseStatement() != null
        || !everyNthWhen(new TreePath(block, guard), guard.getCondition(), false)) {
      return false;
    }
    StatementTree then = guard.getThenStatement();
    if (then instanceof BlockTree b && !b.getStatements().isEmpty()) {
      then = b.getStatements().get(b.getStatements().size() - 1);
    }
    if (!isStatementLoop()) {
      return then instanceof ReturnTree;
    }
    return then instanceof ContinueTree c
        && (c.getLabel() == null
            ? reachesBatchLoop(block, false)
            : c.getLabel().contentEquals(loopLabel("")));
  }

  /**
   * Whether an unlabeled {@code continue} (or {@code break}, {@code viaBreak}) in the block at
   * {@code block} goes to the batch loop: no other loop (or switch) is in between.
   */
  private boolean reachesBatchLoop(TreePath block, boolean viaBreak) {
    for (TreePath p = block.getParentPath(); p != null; p = p.getParentPath()) {
      Tree t = p.getLeaf();
      if (t == loop) {
        return true;
      }
      switch (t.getKind()) {
        case ENHANCED_FOR_LOOP,
            FOR_LOOP,
            WHILE_LOOP,
            DO_WHILE_LOOP,
            LAMBDA_EXPRESSION,
            METHOD,
            CLASS -> {
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
   * Whether {@code condition} (at {@code at}) having the value {@code value} means the batch is an
   * n-th one: it compares a stepped remainder ({@code step % 100 == 0} true, {@code step % 100 !=
   * 0} false), through {@code !}, parentheses, {@code &&}, {@code ||} and a local {@code boolean}
   * given such a condition, or asks the batch loop's own iterator whether a batch is left ({@code
   * !it.hasNext()}: the last batch). {@code a && b} true and {@code a || b} false need one such
   * operand; {@code a && b} false and {@code a || b} true need both ({@code step % 100 == 0 ||
   * verbose} holds on every batch when {@code verbose}).
   */
  private boolean everyNthWhen(TreePath at, ExpressionTree condition, boolean value) {
    ExpressionTree e = MethodInterpreter.skipParens(condition);
    return switch (e.getKind()) {
      case LOGICAL_COMPLEMENT -> everyNthWhen(at, ((UnaryTree) e).getExpression(), !value);
      case CONDITIONAL_AND, CONDITIONAL_OR -> {
        boolean either = (e.getKind() == Tree.Kind.CONDITIONAL_AND) == value;
        BinaryTree b = (BinaryTree) e;
        yield either
            ? everyNthWhen(at, b.getLeftOperand(), value)
                || everyNthWhen(at, b.getRightOperand(), value)
            : everyNthWhen(at, b.getLeftOperand(), value)
                && everyNthWhen(at, b.getRightOperand(), value);
      }
      case EQUAL_TO -> value && comparesStepped(at, (BinaryTree) e);
      case NOT_EQUAL_TO -> !value && comparesStepped(at, (BinaryTree) e);
      case METHOD_INVOCATION -> !value && asksTheLoopsIterator((MethodInvocationTree) e);
      case IDENTIFIER -> {
        ExpressionTree given = localInitializer(at, ((IdentifierTree) e).getName().toString());
        yield given != null && everyNthWhen(at, given, value);
      }
      default -> false;
    };
  }

  /**
   * {@code step % 100 == 0}, or {@code step == last}, {@code ++i == n}, {@code i + 1 == n}: a
   * stepped remainder (also through a local given it), or a stepped counter itself, which equals a
   * value that does not change with it on one batch.
   */
  private boolean comparesStepped(TreePath at, BinaryTree comparison) {
    ExpressionTree left = comparison.getLeftOperand();
    ExpressionTree right = comparison.getRightOperand();
    return isSteppedRemainder(at, left)
        || isSteppedRemainder(at, right)
        || (isSteppedCounter(left) && !mentionsStepped(right))
        || (isSteppedCounter(right) && !mentionsStepped(left));
  }

  /**
   * A counter stepped once per batch ({@code step}, {@code s.step}, {@code step[0]}), or it plus or
   * minus a value that is not.
   */
  private boolean isSteppedCounter(ExpressionTree e) {
    ExpressionTree x = MethodInterpreter.skipParens(e);
    if (x instanceof UnaryTree u && isStep(u)) {
      return true;
    }
    if (x instanceof BinaryTree sum
        && (x.getKind() == Tree.Kind.PLUS || x.getKind() == Tree.Kind.MINUS)) {
      return (isSteppedCounter(sum.getLeftOperand()) && !mentionsStepped(sum.getRightOperand()))
          || (isSteppedCounter(sum.getRightOperand()) && !mentionsStepped(sum.getLeftOperand()));
    }
    String name = counterName(x);
    return name != null && (loop == null || steppedInLoop().contains(name));
  }

  /**
   * The name a counter is stepped by: {@code step}, the field of {@code s.step}, the array of
   * {@code step[0]}.
   */
  private static String counterName(ExpressionTree e) {
    ExpressionTree x = e instanceof ArrayAccessTree element ? element.getExpression() : e;
    return x instanceof IdentifierTree id
        ? id.getName().toString()
        : x instanceof MemberSelectTree select ? select.getIdentifier().toString() : null;
  }

  /**
   * Whether an expression changes with the batch loop's counters: {@code n + i}, not {@code n - 1}.
   */
  private boolean mentionsStepped(ExpressionTree e) {
    return loop != null
        && TreeSearch.contains(
            e,
            t ->
                t instanceof UnaryTree u
                    ? isStep(u)
                    : t instanceof IdentifierTree id
                        && steppedInLoop().contains(id.getName().toString()),
            t -> false);
  }

  /**
   * {@code it.hasNext()}, where the batch loop is a {@code while} or {@code for} whose condition
   * asks the same iterator: false on the last batch only.
   */
  private boolean asksTheLoopsIterator(MethodInvocationTree call) {
    ExpressionTree loopCondition =
        loop instanceof WhileLoopTree w
            ? w.getCondition()
            : loop instanceof ForLoopTree f ? f.getCondition() : null;
    if (loopCondition == null
        || !call.getArguments().isEmpty()
        || !(call.getMethodSelect() instanceof MemberSelectTree select)
        || !select.getIdentifier().contentEquals("hasNext")
        || !(select.getExpression() instanceof IdentifierTree iterator)) {
      return false;
    }
    return TreeSearch.contains(
        loopCondition,
        t ->
            t instanceof MethodInvocationTree c
                && c.getArguments().isEmpty()
                && c.getMethodSelect() instanceof MemberSelectTree s
                && s.getIdentifier().contentEquals("hasNext")
                && s.getExpression() instanceof IdentifierTree i
                && i.getName().equals(iterator.getName()),
        t -> false);
  }

  /**
   * {@code if (first) { ...; first = false; }} (or {@code if (!done) { ...; done = true; }}): a
   * flag the branch clears as its last statement and the batch loop never sets again, so the branch
   * runs once at most until code outside the loop sets it.
   */
  private boolean clearsItsFlag(IfTree branch) {
    ExpressionTree c = MethodInterpreter.skipParens(branch.getCondition());
    boolean negated = c.getKind() == Tree.Kind.LOGICAL_COMPLEMENT;
    ExpressionTree flag =
        negated ? MethodInterpreter.skipParens(((UnaryTree) c).getExpression()) : c;
    if (loop == null
        || !(flag instanceof IdentifierTree id)
        || !(branch.getThenStatement() instanceof BlockTree b)
        || b.getStatements().isEmpty()) {
      return false;
    }
    String name = id.getName().toString();
    StatementTree last = b.getStatements().get(b.getStatements().size() - 1);
    if (!(last instanceof ExpressionStatementTree s)
        || !(s.getExpression() instanceof AssignmentTree clear)
        || !(clear.getVariable() instanceof IdentifierTree target)
        || !target.getName().contentEquals(name)
        || !(clear.getExpression() instanceof LiteralTree literal)
        || !Boolean.valueOf(negated).equals(literal.getValue())) {
      return false;
    }
    return !TreeSearch.contains(
        loop,
        t ->
            (t instanceof VariableTree v && v.getName().contentEquals(name))
                || (t != clear
                    && t instanceof AssignmentTree a
                    && a.getVariable() instanceof IdentifierTree assigned
                    && assigned.getName().contentEquals(name)),
        t -> false); // declared in the loop, or set again there
  }

  /**
   * {@code step % n}, {@code step & mask} or {@code Math.floorMod(step, n)}, or a local given one,
   * where {@code step} changes from batch to batch: it is stepped in the expression itself ({@code
   * ++step % 100}), a counter stepped in the batch loop outside any inner loop, or the result of a
   * call ({@code step.incrementAndGet()}); in a {@code @Step} method, any value (the step is
   * usually its parameter).
   */
  private boolean isSteppedRemainder(TreePath at, ExpressionTree e) {
    ExpressionTree r = MethodInterpreter.skipParens(e);
    if (r instanceof IdentifierTree local) {
      ExpressionTree given = localInitializer(at, local.getName().toString());
      return given != null
          && isSteppedRemainder(at, given); // int phase = ++step % 5; if (phase == 0)
    }
    ExpressionTree dividend;
    if (r.getKind() == Tree.Kind.REMAINDER) {
      dividend = ((BinaryTree) r).getLeftOperand();
    } else if (r.getKind() == Tree.Kind.AND
        && ((BinaryTree) r).getRightOperand() instanceof LiteralTree) {
      dividend = ((BinaryTree) r).getLeftOperand(); // (++step & 3) == 0: every 4th
    } else if (r instanceof MethodInvocationTree call
        && call.getArguments().size() == 2
        && call.getMethodSelect() instanceof MemberSelectTree select
        && select.getIdentifier().contentEquals("floorMod")) {
      dividend = call.getArguments().get(0);
    } else {
      return false;
    }
    if (loop == null) {
      return true;
    }
    Set<String> stepped = steppedInLoop();
    return TreeSearch.contains(
        dividend,
        t ->
            switch (t.getKind()) {
              case PREFIX_INCREMENT,
                  POSTFIX_INCREMENT,
                  PREFIX_DECREMENT,
                  POSTFIX_DECREMENT,
                  ASSIGNMENT,
                  METHOD_INVOCATION ->
                  true;
              case IDENTIFIER -> stepped.contains(((IdentifierTree) t).getName().toString());
              case MEMBER_SELECT ->
                  stepped.contains(((MemberSelectTree) t).getIdentifier().toString());
              default -> t instanceof CompoundAssignmentTree;
            },
        t -> false);
  }

  /**
   * The names of the variables stepped or assigned once per batch: in the batch loop, outside its
   * inner loops.
   */
  private Set<String> steppedInLoop() {
    if (steppedInLoop != null) {
      return steppedInLoop;
    }
    Set<String> names = new HashSet<>();
    new TreeScanner<Void, Void>() {
      private int depth;

      @Override
      public Void scan(Tree tree, Void unused) {
        if (tree == null || tree instanceof com.sun.source.tree.ClassTree) {
          return null;
        }
        boolean nested = tree != loop && isLoop(tree);
        depth += nested ? 1 : 0;
        if (depth == 0) {
          note(tree);
        }
        super.scan(tree, null);
        depth -= nested ? 1 : 0;
        return null;
      }

      private void note(Tree t) {
        ExpressionTree target =
            t instanceof UnaryTree u && isStep(u)
                ? u.getExpression()
                : t instanceof AssignmentTree a
                    ? a.getVariable()
                    : t instanceof CompoundAssignmentTree c ? c.getVariable() : null;
        String name = target == null ? null : counterName(target);
        if (name != null) {
          names.add(name);
        }
      }
    }.scan(
        loop instanceof ForLoopTree f
            ? f
            : loop instanceof EnhancedForLoopTree ef ? ef.getStatement() : loop,
        null);
    steppedInLoop = names;
    return names;
  }

  private static boolean isLoop(Tree t) {
    return switch (t.getKind()) {
      case FOR_LOOP, ENHANCED_FOR_LOOP, WHILE_LOOP, DO_WHILE_LOOP, LAMBDA_EXPRESSION -> true;
      default -> false;
    };
  }

  private static boolean isStep(UnaryTree u) {
    return switch (u.getKind()) {
      case PREFIX_INCREMENT, POSTFIX_INCREMENT, PREFIX_DECREMENT, POSTFIX_DECREMENT -> true;
      default -> false;
    };
  }

  /**
   * The value a local named {@code name} is given, where it is declared in a block around {@code
   * at}, before it, and never assigned again: {@code boolean logStep = ++step % 100 == 0;}, {@code
   * int phase = ++step % 5;}.
   */
  private static ExpressionTree localInitializer(TreePath at, String name) {
    Tree child = at.getLeaf();
    for (TreePath p = at.getParentPath(); p != null; child = p.getLeaf(), p = p.getParentPath()) {
      if (endsTheSearch(p.getLeaf())) {
        return null;
      }
      if (!(p.getLeaf() instanceof BlockTree block)) {
        continue;
      }
      for (StatementTree s : block.getStatements()) {
        if (s == child) {
          break;
        }
        if (s instanceof VariableTree v && v.getName().contentEquals(name)) {
          return v.getInitializer() != null && !assignedIn(block, name) ? v.getInitializer() : null;
        }
      }
    }
    return null;
  }

  private static boolean assignedIn(Tree scope, String name) {
    return TreeSearch.contains(
        scope,
        t ->
            (t instanceof AssignmentTree a
                    && a.getVariable() instanceof IdentifierTree id
                    && id.getName().contentEquals(name))
                || (t instanceof CompoundAssignmentTree c
                    && c.getVariable() instanceof IdentifierTree cid
                    && cid.getName().contentEquals(name)),
        t -> false);
  }
}
