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
import com.sun.source.util.TreeScanner;

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
    Boolean found = body == null ? Boolean.FALSE : new TreeScanner<Boolean, Void>() {
      @Override
      public Boolean visitMethodInvocation(MethodInvocationTree node, Void unused) {
        boolean backward = node.getArguments().isEmpty() && node.getMethodSelect() instanceof MemberSelectTree s
            && s.getIdentifier().contentEquals("backward");
        return backward || Boolean.TRUE.equals(super.visitMethodInvocation(node, null));
      }

      @Override
      public Boolean reduce(Boolean a, Boolean b) {
        return Boolean.TRUE.equals(a) || Boolean.TRUE.equals(b);
      }

      @Override
      public Boolean visitForLoop(ForLoopTree node, Void unused) {
        return false;
      }

      @Override
      public Boolean visitEnhancedForLoop(EnhancedForLoopTree node, Void unused) {
        return false;
      }

      @Override
      public Boolean visitWhileLoop(WhileLoopTree node, Void unused) {
        return false;
      }

      @Override
      public Boolean visitDoWhileLoop(DoWhileLoopTree node, Void unused) {
        return false;
      }

      @Override
      public Boolean visitLambdaExpression(LambdaExpressionTree node, Void unused) {
        return false;
      }

      @Override
      public Boolean visitClass(ClassTree node, Void unused) {
        return false;
      }
    }.scan(body, null);
    return Boolean.TRUE.equals(found);
  }
}
