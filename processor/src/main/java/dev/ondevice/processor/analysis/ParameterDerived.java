package dev.ondevice.processor.analysis;

import com.sun.source.tree.ExpressionTree;
import com.sun.source.tree.IdentifierTree;
import com.sun.source.tree.MemberSelectTree;
import com.sun.source.tree.MethodInvocationTree;
import com.sun.source.tree.Tree;
import com.sun.source.util.TreePath;
import com.sun.source.util.TreePathScanner;
import javax.lang.model.element.Element;
import javax.lang.model.element.ElementKind;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.type.TypeMirror;

/**
 * Tensors computed from a model's parameters: a {@code Parameter}, its {@code grad()}, a local the
 * method calls {@code backward()} on (a loss, whose gradient flows to the parameters), and ops of
 * the tensor API on them, directly or through local variables assigned once. An op's operands share
 * one device (else it throws), so such a tensor is where the parameters are: on the model's device,
 * a GPU on the machine that trains. An optimizer's {@code step()} walking {@code for (Parameter p :
 * params)} and reading {@code p.grad().abs().sum().item()} reads the device, though the list's
 * device is not known there.
 */
final class ParameterDerived {
  /** How many ops and variables are followed. */
  private static final int MAX_DEPTH = 12;

  private ParameterDerived() {}

  /** Whether the tensor expression at {@code path} is computed from a parameter. */
  static boolean derives(AnalysisContext ctx, TreePath path) {
    return derives(ctx, path, 0);
  }

  private static boolean derives(AnalysisContext ctx, TreePath path, int depth) {
    if (path == null || depth > MAX_DEPTH) {
      return false;
    }
    Tree t = MethodInterpreter.skipParens(path.getLeaf());
    TreePath at = t == path.getLeaf() ? path : new TreePath(path, t);
    TypeMirror type = ctx.trees().getTypeMirror(at);
    if (type != null && ctx.types().isParameter(type)) {
      return true;
    }
    if (t instanceof IdentifierTree) {
      Element e = ctx.trees().getElement(at);
      return e != null
          && e.getKind() == ElementKind.LOCAL_VARIABLE
          && (assignedOnceFromAParameter(ctx, e, depth) || backwardFrom(ctx, at, e));
    }
    if (!(t instanceof MethodInvocationTree call)
        || !(ctx.trees().getElement(at) instanceof ExecutableElement m)
        || ctx.semantics(m).kind != MethodSemantics.Kind.SAME_DEVICE) {
      return false;
    }
    if (call.getMethodSelect() instanceof MemberSelectTree select
        && derives(
            ctx, new TreePath(new TreePath(at, select), select.getExpression()), depth + 1)) {
      return true;
    }
    for (ExpressionTree a : call.getArguments()) {
      TypeMirror argType = ctx.trees().getTypeMirror(new TreePath(at, a));
      if (argType != null
          && ctx.types().isTensor(argType)
          && derives(ctx, new TreePath(at, a), depth + 1)) {
        return true;
      }
    }
    return false;
  }

  /** A local whose initializer derives from a parameter and which is never assigned again. */
  private static boolean assignedOnceFromAParameter(AnalysisContext ctx, Element local, int depth) {
    TreePath initializer = LocalInitializers.soleInitializer(ctx, local);
    return initializer != null && derives(ctx, initializer, depth + 1);
  }

  /**
   * Whether the method calls {@code local.backward()}: a loss whose gradient flows to the model's
   * parameters is computed from them, so it is where they are.
   */
  private static boolean backwardFrom(AnalysisContext ctx, TreePath use, Element local) {
    TreePath method = LocalInitializers.enclosingMethod(use);
    if (method == null) {
      return false;
    }
    boolean[] found = {false};
    new TreePathScanner<Void, Void>() {
      @Override
      public Void visitMethodInvocation(MethodInvocationTree node, Void unused) {
        if (node.getArguments().isEmpty()
            && node.getMethodSelect() instanceof MemberSelectTree select
            && select.getIdentifier().contentEquals("backward")
            && ctx.trees()
                    .getElement(
                        new TreePath(
                            new TreePath(getCurrentPath(), select), select.getExpression()))
                == local) {
          found[0] = true;
        }
        return super.visitMethodInvocation(node, null);
      }
    }.scan(method, null);
    return found[0];
  }
}
