package dev.ondevice.processor.analysis;

import com.sun.source.tree.ExpressionTree;
import com.sun.source.tree.MethodInvocationTree;
import com.sun.source.util.TreePath;
import java.util.ArrayList;
import java.util.List;
import javax.lang.model.element.Element;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.TypeElement;
import javax.lang.model.element.VariableElement;
import javax.lang.model.type.TypeMirror;
import javax.lang.model.util.ElementFilter;

/**
 * The rewrite of create-then-move into creation on the device: {@code Tensor.randn(n,
 * n).to(device)} becomes {@code Tensor.randn(n, n, device)} when the factory has an overload that
 * takes the same arguments and a trailing {@code Device}.
 */
final class CreateThenMoveFix {
  private CreateThenMoveFix() {}

  /** The replacement text, or null when no overload takes a device. */
  static String suggestion(
      AnalysisContext ctx, TreePath factoryPath, MethodInvocationTree factory, String device) {
    Element e = ctx.trees().getElement(factoryPath);
    if (!(e instanceof ExecutableElement) || !(e.getEnclosingElement() instanceof TypeElement)) {
      return null;
    }
    List<TypeMirror> argTypes = new ArrayList<>();
    for (ExpressionTree a : factory.getArguments()) {
      argTypes.add(ctx.trees().getTypeMirror(new TreePath(factoryPath, a)));
    }
    TypeElement owner = (TypeElement) e.getEnclosingElement();
    for (ExecutableElement m : ElementFilter.methodsIn(owner.getEnclosedElements())) {
      if (m.getSimpleName().contentEquals(e.getSimpleName()) && accepts(ctx, m, argTypes)) {
        List<String> args = new ArrayList<>();
        for (ExpressionTree a : factory.getArguments()) {
          args.add(ctx.text(a));
        }
        args.add(device);
        return ctx.text(factory.getMethodSelect()) + "(" + String.join(", ", args) + ")";
      }
    }
    return null;
  }

  private static boolean accepts(
      AnalysisContext ctx, ExecutableElement m, List<TypeMirror> argTypes) {
    List<? extends VariableElement> params = m.getParameters();
    if (m.isVarArgs()
        || params.size() != argTypes.size() + 1
        || !ctx.types().isDevice(params.get(params.size() - 1).asType())) {
      return false;
    }
    for (int i = 0; i < argTypes.size(); i++) {
      if (argTypes.get(i) == null
          || !ctx.types().types().isAssignable(argTypes.get(i), params.get(i).asType())) {
        return false;
      }
    }
    return true;
  }
}
