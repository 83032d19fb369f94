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

/**
 * Loops that train without a data loader: a loop whose body calls {@code backward()} on every
 * iteration, outside a loop of its own ({@code for (int i = 0; i < iterations; i++) { ...;
 * loss.backward(); optimizer.step(); }}, a GAN's or a reinforcement learner's loop), runs one
 * training step per iteration, and is a batch loop as one over a {@code DataLoader} is.
 */
final class TrainingLoops {
  private TrainingLoops() {}

  /** Whether {@code loop}'s body calls {@code backward()} itself, not in a nested loop, lambda or class. */
  static boolean stepsEveryIteration(Tree loop) {
    Tree body = switch (loop.getKind()) {
      case WHILE_LOOP -> ((WhileLoopTree) loop).getStatement();
      case DO_WHILE_LOOP -> ((DoWhileLoopTree) loop).getStatement();
      case FOR_LOOP -> ((ForLoopTree) loop).getStatement();
      case ENHANCED_FOR_LOOP -> ((EnhancedForLoopTree) loop).getStatement();
      default -> null;
    };
    return body != null && callsBackward(body);
  }

  /**
   * Whether {@code body} calls {@code backward()} itself, not in a nested loop, lambda or class: a
   * training step ({@code if ((i + 1) % nCritic == 0) { ...; loss.backward(); ... }} trains the
   * generator on those iterations).
   */
  static boolean callsBackward(Tree body) {
    return TreeSearch.contains(body,
        t -> t instanceof MethodInvocationTree call && call.getArguments().isEmpty()
            && call.getMethodSelect() instanceof MemberSelectTree s && s.getIdentifier().contentEquals("backward"),
        t -> t instanceof ForLoopTree || t instanceof EnhancedForLoopTree || t instanceof WhileLoopTree
            || t instanceof DoWhileLoopTree || t instanceof LambdaExpressionTree || t instanceof ClassTree);
  }
}
