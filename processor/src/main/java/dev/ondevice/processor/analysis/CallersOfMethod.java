package dev.ondevice.processor.analysis;

import com.sun.source.tree.BlockTree;
import com.sun.source.tree.ClassTree;
import com.sun.source.tree.IdentifierTree;
import com.sun.source.tree.LambdaExpressionTree;
import com.sun.source.tree.MemberSelectTree;
import com.sun.source.tree.MethodInvocationTree;
import com.sun.source.tree.MethodTree;
import com.sun.source.tree.ParenthesizedTree;
import com.sun.source.tree.Tree;
import com.sun.source.tree.VariableTree;
import com.sun.source.util.TreePath;
import com.sun.source.util.TreePathScanner;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import javax.lang.model.element.ExecutableElement;

/**
 * How a model's method is called within its own class, read from the syntax of the calls ({@code
 * table(n)}, {@code this.table(n)}): whether every caller takes the tensor it returns where a CPU
 * tensor is fine. Asked only where a finding is about to be reported.
 */
final class CallersOfMethod {
  /** Calls that move or copy the tensor they are given, from any device. */
  private static final Set<String> MOVES = Set.of("to", "cuda", "cpu");
  private static final Set<String> COPIES = Set.of("copyFrom", "assign");

  private CallersOfMethod() {}

  /**
   * Whether the tensor {@code method} returns may stay on the CPU for its callers: it is a helper of
   * its class, called there, and only while the model is built (in constructors and initializers,
   * where its state is on the CPU until the model moves) or where the result is moved or copied
   * right away ({@code causalMask(n).to(x.device())}, {@code w.copyFrom(init(8, 8))}).
   *
   * @param inMethod a path inside the method, under its class
   */
  static boolean takeItOnTheCpu(TreePath inMethod, ExecutableElement method) {
    TreePath classPath = enclosingClass(inMethod);
    if (classPath == null) {
      return false;
    }
    List<TreePath> calls = new ArrayList<>();
    int arity = method.getParameters().size();
    new TreePathScanner<Void, Void>() {
      @Override
      public Void visitMethodInvocation(MethodInvocationTree node, Void unused) {
        if (node.getArguments().size() == arity && callsByName(node, method)) {
          calls.add(getCurrentPath());
        }
        return super.visitMethodInvocation(node, null);
      }
    }.scan(classPath, null);
    if (calls.isEmpty()) {
      return false;
    }
    Tree classTree = classPath.getLeaf();
    return calls.stream().allMatch(c -> whileBuilding(c, classTree) || movedOrCopied(c));
  }

  private static TreePath enclosingClass(TreePath path) {
    TreePath p = path;
    while (p != null && !(p.getLeaf() instanceof ClassTree)) {
      p = p.getParentPath();
    }
    return p;
  }

  private static boolean callsByName(MethodInvocationTree call, ExecutableElement method) {
    if (call.getMethodSelect() instanceof IdentifierTree id) {
      return id.getName().equals(method.getSimpleName());
    }
    return call.getMethodSelect() instanceof MemberSelectTree select
        && select.getIdentifier().equals(method.getSimpleName())
        && select.getExpression() instanceof IdentifierTree self && self.getName().contentEquals("this");
  }

  /** Whether the call is in a constructor, a field's initializer or an initializer block of the class, not in a lambda. */
  private static boolean whileBuilding(TreePath call, Tree classTree) {
    Tree child = call.getLeaf();
    for (TreePath p = call.getParentPath(); p != null; child = p.getLeaf(), p = p.getParentPath()) {
      Tree t = p.getLeaf();
      if (t instanceof LambdaExpressionTree || (t instanceof ClassTree && t != classTree)) {
        return false;
      }
      if (t == classTree) {
        return (child instanceof MethodTree m && m.getName().contentEquals("<init>"))
            || child instanceof VariableTree || child instanceof BlockTree;
      }
    }
    return false;
  }

  /** {@code causalMask(n).to(x.device())}, {@code w.copyFrom(init(8, 8))}. */
  private static boolean movedOrCopied(TreePath call) {
    Tree child = call.getLeaf();
    TreePath p = call.getParentPath();
    while (p != null && p.getLeaf() instanceof ParenthesizedTree) {
      child = p.getLeaf();
      p = p.getParentPath();
    }
    if (p == null) {
      return false;
    }
    if (p.getLeaf() instanceof MemberSelectTree select && select.getExpression() == child) {
      return MOVES.contains(select.getIdentifier().toString())
          && p.getParentPath().getLeaf() instanceof MethodInvocationTree;
    }
    return p.getLeaf() instanceof MethodInvocationTree outer && outer.getArguments().contains(child)
        && outer.getMethodSelect() instanceof MemberSelectTree select
        && COPIES.contains(select.getIdentifier().toString());
  }
}
