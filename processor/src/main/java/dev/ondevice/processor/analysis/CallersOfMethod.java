package dev.ondevice.processor.analysis;

import com.sun.source.tree.BlockTree;
import com.sun.source.tree.ClassTree;
import com.sun.source.tree.LambdaExpressionTree;
import com.sun.source.tree.MemberReferenceTree;
import com.sun.source.tree.MemberSelectTree;
import com.sun.source.tree.MethodInvocationTree;
import com.sun.source.tree.MethodTree;
import com.sun.source.tree.ParenthesizedTree;
import com.sun.source.tree.Tree;
import com.sun.source.tree.VariableTree;
import com.sun.source.util.TreePath;
import com.sun.source.util.TreePathScanner;
import com.sun.source.util.Trees;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.Modifier;

/**
 * How a private method of a model is called within its class, where all its calls are: whether
 * every caller takes the tensor it returns where a CPU tensor is fine. Asked only where a finding
 * is about to be reported, while the class's trees are attributed.
 */
final class CallersOfMethod {
  /** Calls that copy their tensor argument in place, from any device. */
  private static final Set<String> COPIES = Set.of("copyFrom", "assign");

  private CallersOfMethod() {}

  /**
   * Whether the tensor {@code method} returns may stay on the CPU for its callers: it is a private
   * helper of its class, called there, and only while the model is built (in constructors and
   * initializers, where its state is on the CPU until the model moves) or where the result is
   * moved to a device or copied right away ({@code causalMask(n).to(x.device())}, {@code
   * w.copyFrom(init(8, 8))}). A method others may call is not: they may use its result anywhere.
   *
   * @param inMethod a path inside the method, under its class
   */
  static boolean takeItOnTheCpu(TreePath inMethod, ExecutableElement method, Trees trees) {
    if (!method.getModifiers().contains(Modifier.PRIVATE)) {
      return false;
    }
    TreePath classPath = enclosingClass(inMethod);
    if (classPath == null) {
      return false;
    }
    Tree classTree = classPath.getLeaf();
    List<TreePath> calls = new ArrayList<>();
    boolean[] referenced = {false};
    new TreePathScanner<Void, Void>() {
      @Override
      public Void visitMethodInvocation(MethodInvocationTree node, Void unused) {
        if (trees.getElement(getCurrentPath()) == method) {
          calls.add(getCurrentPath());
        }
        return super.visitMethodInvocation(node, null);
      }

      @Override
      public Void visitMemberReference(MemberReferenceTree node, Void unused) {
        referenced[0] |= trees.getElement(getCurrentPath()) == method; // this::table may run anywhere
        return super.visitMemberReference(node, null);
      }
    }.scan(classPath, null);
    return !calls.isEmpty() && !referenced[0]
        && calls.stream().allMatch(c -> whileBuilding(c, classTree) || movedOrCopied(c));
  }

  private static TreePath enclosingClass(TreePath path) {
    TreePath p = path;
    while (p != null && !(p.getLeaf() instanceof ClassTree)) {
      p = p.getParentPath();
    }
    return p;
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

  /** {@code causalMask(n).to(x.device())}, {@code w.copyFrom(init(8, 8))}: not a conversion ({@code to(DType.FLOAT32)}). */
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
      return p.getParentPath().getLeaf() instanceof MethodInvocationTree move && move.getMethodSelect() == select
          && NeutralParameters.isMove(move, select);
    }
    return p.getLeaf() instanceof MethodInvocationTree outer && outer.getArguments().contains(child)
        && outer.getMethodSelect() instanceof MemberSelectTree select
        && COPIES.contains(select.getIdentifier().toString());
  }
}
