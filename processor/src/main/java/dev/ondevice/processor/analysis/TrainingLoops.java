package dev.ondevice.processor.analysis;

import com.sun.source.tree.ClassTree;
import com.sun.source.tree.DoWhileLoopTree;
import com.sun.source.tree.EnhancedForLoopTree;
import com.sun.source.tree.ForLoopTree;
import com.sun.source.tree.LambdaExpressionTree;
import com.sun.source.tree.MemberSelectTree;
import com.sun.source.tree.MethodInvocationTree;
import com.sun.source.tree.Tree;
import com.sun.source.tree.WhileLoopTree;
import com.sun.source.util.TreePath;
import com.sun.source.util.TreePathScanner;
import com.sun.source.util.Trees;
import java.util.function.Predicate;
import javax.lang.model.element.Element;
import javax.lang.model.element.ExecutableElement;

/**
 * Loops that train without a data loader: a loop whose body calls {@code backward()} on every
 * iteration, outside a loop of its own ({@code for (int i = 0; i < iterations; i++) { ...;
 * loss.backward(); optimizer.step(); }}, a GAN's or a reinforcement learner's loop), itself or
 * through a method of the compilation that does ({@code backwardStep(loss)}, a microbatch
 * schedule's helper), runs one training step per iteration, and is a batch loop as one over a
 * {@code DataLoader} is.
 */
final class TrainingLoops {
  private TrainingLoops() {}

  /**
   * Whether the loop at {@code loop} calls {@code backward()} on every iteration, itself or through
   * a method that {@code trains} (one that calls it once per call, {@link #trainsEachCall}).
   */
  static boolean stepsEveryIteration(
      TreePath loop, Trees trees, Predicate<ExecutableElement> trains) {
    Tree body =
        switch (loop.getLeaf().getKind()) {
          case WHILE_LOOP -> ((WhileLoopTree) loop.getLeaf()).getStatement();
          case DO_WHILE_LOOP -> ((DoWhileLoopTree) loop.getLeaf()).getStatement();
          case FOR_LOOP -> ((ForLoopTree) loop.getLeaf()).getStatement();
          case ENHANCED_FOR_LOOP -> ((EnhancedForLoopTree) loop.getLeaf()).getStatement();
          default -> null;
        };
    return body != null && callsBackward(new TreePath(loop, body), trees, trains);
  }

  /**
   * Whether the method at {@code method} (a body of the compilation) calls {@code backward()} once
   * per call, itself or through methods that {@code trains}: not in a loop of its own, which would
   * make it an epoch rather than a step.
   */
  static boolean trainsEachCall(TreePath method, Trees trees, Predicate<ExecutableElement> trains) {
    return callsBackward(method, trees, trains);
  }

  /**
   * Whether {@code body} calls {@code backward()} itself, not in a nested loop, lambda or class: a
   * training step ({@code if ((i + 1) % nCritic == 0) { ...; loss.backward(); ... }} trains the
   * generator on those iterations).
   */
  static boolean callsBackward(Tree body) {
    return TreeSearch.contains(
        body, TrainingLoops::isBackward, TrainingLoops::runsElsewhereOrRepeats);
  }

  private static boolean callsBackward(
      TreePath body, Trees trees, Predicate<ExecutableElement> trains) {
    boolean[] found = {false};
    new TreePathScanner<Void, Void>() {
      @Override
      public Void scan(Tree tree, Void unused) {
        if (found[0] || tree == null || runsElsewhereOrRepeats(tree)) {
          return null;
        }
        return super.scan(tree, null);
      }

      @Override
      public Void visitMethodInvocation(MethodInvocationTree node, Void unused) {
        if (isBackward(node)) {
          found[0] = true;
          return null;
        }
        super.visitMethodInvocation(node, null);
        Element callee = trees.getElement(getCurrentPath());
        found[0] |= callee instanceof ExecutableElement m && trains.test(m);
        return null;
      }
    }.scan(body, null);
    return found[0];
  }

  private static boolean isBackward(Tree t) {
    return t instanceof MethodInvocationTree call
        && call.getArguments().isEmpty()
        && call.getMethodSelect() instanceof MemberSelectTree s
        && s.getIdentifier().contentEquals("backward");
  }

  private static boolean runsElsewhereOrRepeats(Tree t) {
    return t instanceof ForLoopTree
        || t instanceof EnhancedForLoopTree
        || t instanceof WhileLoopTree
        || t instanceof DoWhileLoopTree
        || t instanceof LambdaExpressionTree
        || t instanceof ClassTree;
  }
}
