package dev.ondevice.processor.analysis;

import com.sun.source.tree.ClassTree;
import com.sun.source.tree.IdentifierTree;
import com.sun.source.tree.LambdaExpressionTree;
import com.sun.source.tree.MemberSelectTree;
import com.sun.source.tree.MethodInvocationTree;
import com.sun.source.tree.Tree;
import com.sun.source.util.TreePath;
import com.sun.source.util.TreePathScanner;
import com.sun.source.util.TreeScanner;
import dev.ondevice.annotations.ReturnsDevice;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import javax.lang.model.element.Element;
import javax.lang.model.element.ExecutableElement;

/**
 * Searches of a tree: whether it holds a node of some kind, and the calls a body makes where it
 * runs.
 */
final class TreeSearch {
  private TreeSearch() {}

  /**
   * Whether {@code root} or a node under it is {@code wanted}, not looking under nodes that are
   * {@code skipped}.
   */
  static boolean contains(Tree root, Predicate<Tree> wanted, Predicate<Tree> skipped) {
    boolean[] found = {false};
    new TreeScanner<Void, Void>() {
      @Override
      public Void scan(Tree tree, Void unused) {
        if (found[0] || tree == null) {
          return null;
        }
        if (wanted.test(tree)) {
          found[0] = true;
          return null;
        }
        return skipped.test(tree) ? null : super.scan(tree, null);
      }
    }.scan(root, null);
    return found[0];
  }

  /**
   * The calls under {@code body} in the order they run (a call after its receiver and arguments),
   * not those in lambdas or in classes declared there, which run elsewhere.
   */
  static List<TreePath> callsWhereWritten(TreePath body) {
    List<TreePath> out = new ArrayList<>();
    new TreePathScanner<Void, Void>() {
      @Override
      public Void visitMethodInvocation(MethodInvocationTree node, Void unused) {
        super.visitMethodInvocation(node, null);
        out.add(getCurrentPath());
        return null;
      }

      @Override
      public Void visitLambdaExpression(LambdaExpressionTree node, Void unused) {
        return null;
      }

      @Override
      public Void visitClass(ClassTree node, Void unused) {
        return null;
      }
    }.scan(body, null);
    return out;
  }

  /** Whether {@code path} lies inside {@code tree}: it or one of its parents is that tree. */
  static boolean within(TreePath path, Tree tree) {
    for (TreePath p = path; p != null; p = p.getParentPath()) {
      if (p.getLeaf() == tree) {
        return true;
      }
    }
    return false;
  }

  /** Whether {@code call}, a method invocation, calls a method of that name. */
  static boolean named(TreePath call, String name) {
    Tree select = ((MethodInvocationTree) call.getLeaf()).getMethodSelect();
    return select instanceof MemberSelectTree s
        ? s.getIdentifier().contentEquals(name)
        : select instanceof IdentifierTree id && id.getName().contentEquals(name);
  }

  /** The variable a call is made on ({@code optimizer} of {@code optimizer.step()}), or null. */
  static Element receiver(TreePath call, AnalysisContext ctx) {
    MethodInvocationTree t = (MethodInvocationTree) call.getLeaf();
    if (!(t.getMethodSelect() instanceof MemberSelectTree s)
        || !(MethodInterpreter.skipParens(s.getExpression()) instanceof IdentifierTree)) {
      return null;
    }
    return ctx.trees().getElement(new TreePath(new TreePath(call, s), s.getExpression()));
  }

  /** Where a tree starts in its source file. */
  static long start(TreePath path, AnalysisContext ctx) {
    return ctx.trees()
        .getSourcePositions()
        .getStartPosition(path.getCompilationUnit(), path.getLeaf());
  }

  /** Whether {@code call}'s one argument is the CPU ({@code model.toDevice(Device.cpu())}). */
  static boolean toTheCpu(TreePath call, AnalysisContext ctx) {
    List<? extends Tree> args = ((MethodInvocationTree) call.getLeaf()).getArguments();
    return args.size() == 1
        && ctx.trees().getElement(new TreePath(call, args.get(0))) instanceof ExecutableElement d
        && ctx.semantics(d).deviceSource == ReturnsDevice.Source.CPU;
  }
}
