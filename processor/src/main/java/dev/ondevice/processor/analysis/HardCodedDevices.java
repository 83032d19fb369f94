package dev.ondevice.processor.analysis;

import com.sun.source.tree.ExpressionTree;
import com.sun.source.tree.IdentifierTree;
import com.sun.source.tree.LambdaExpressionTree;
import com.sun.source.tree.MemberSelectTree;
import com.sun.source.tree.MethodInvocationTree;
import com.sun.source.tree.MethodTree;
import com.sun.source.tree.Tree;
import com.sun.source.util.TreePath;
import com.sun.source.util.TreePathScanner;
import javax.lang.model.element.Element;
import javax.lang.model.element.ElementKind;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.VariableElement;

/**
 * Where a body that moves a tensor to a device written into the code ({@code
 * x.to(Device.parse("cuda"))}) moves its other tensors to a device it is given: the device variable
 * it follows elsewhere, so that the two agree on every machine.
 */
final class HardCodedDevices {
  private HardCodedDevices() {}

  /**
   * The source text of a {@code Device} variable (a parameter, a local or a field not fixed to one
   * device) that the method or lambda around {@code move} passes to another move or factory; null
   * where it names none.
   */
  static String deviceVariableBeside(TreePath move, AnalysisContext ctx) {
    TreePath body = move;
    while (body != null
        && !(body.getLeaf() instanceof MethodTree)
        && !(body.getLeaf() instanceof LambdaExpressionTree)) {
      body = body.getParentPath();
    }
    if (body == null) {
      return null;
    }
    String[] found = {null};
    new TreePathScanner<Void, Void>() {
      @Override
      public Void visitMethodInvocation(MethodInvocationTree node, Void unused) {
        if (found[0] == null
            && node != move.getLeaf()
            && ctx.trees().getElement(getCurrentPath()) instanceof ExecutableElement m) {
          int i = ctx.semantics(m).deviceParameter;
          if (i >= 0 && i < node.getArguments().size()) {
            ExpressionTree arg = MethodInterpreter.skipParens(node.getArguments().get(i));
            if (isDeviceVariable(new TreePath(getCurrentPath(), arg), ctx)) {
              found[0] = ctx.text(arg);
            }
          }
        }
        return super.visitMethodInvocation(node, null);
      }

      @Override
      public Void visitClass(com.sun.source.tree.ClassTree node, Void unused) {
        return null;
      }
    }.scan(body, null);
    return found[0];
  }

  private static boolean isDeviceVariable(TreePath arg, AnalysisContext ctx) {
    Tree t = arg.getLeaf();
    if (!(t instanceof IdentifierTree) && !(t instanceof MemberSelectTree)) {
      return false;
    }
    Element e = ctx.trees().getElement(arg);
    if (!(e instanceof VariableElement v) || !ctx.types().isDevice(v.asType())) {
      return false;
    }
    return e.getKind() == ElementKind.PARAMETER
        || e.getKind() == ElementKind.LOCAL_VARIABLE
        || (e.getKind() == ElementKind.FIELD && ctx.finalDevice(v) == null);
  }
}
