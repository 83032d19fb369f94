package dev.ondevice.processor.analysis;

import com.sun.source.tree.ExpressionTree;
import com.sun.source.tree.MemberReferenceTree;
import com.sun.source.tree.MemberSelectTree;
import com.sun.source.tree.MethodInvocationTree;
import com.sun.source.util.TreePath;
import javax.lang.model.element.Element;
import javax.lang.model.element.Modifier;
import javax.lang.model.element.TypeElement;

/**
 * What {@link DiscardedMoveCheck} and {@link DiscardedTensorOpCheck} share: how to keep a result.
 */
final class DiscardedResults {
  private DiscardedResults() {}

  /**
   * The tensor variable at the root of a discarded chain ({@code x} in {@code x.sub(m).div(s)})
   * when assigning the result to it is a fix: the variable is read afterwards. Null otherwise.
   */
  static String assignmentTarget(
      AnalysisContext ctx, DeviceTexts texts, TreePath path, MethodInvocationTree call) {
    TreePath at = path;
    ExpressionTree t = call;
    while (t instanceof MethodInvocationTree
        && ((MethodInvocationTree) t).getMethodSelect() instanceof MemberSelectTree) {
      MemberSelectTree select = (MemberSelectTree) ((MethodInvocationTree) t).getMethodSelect();
      at = new TreePath(new TreePath(at, select), select.getExpression());
      t = MethodInterpreter.skipParens(select.getExpression());
    }
    if (t == call
        || !texts.isVariable(at, t)
        || !ctx.types().isTensor(ctx.trees().getTypeMirror(at))) {
      return null;
    }
    Element variable = ctx.trees().getElement(at);
    if (variable.getModifiers().contains(Modifier.FINAL)
        || VariableUses.capturedInLambdaOrClass(ctx, path, variable)) {
      return null;
    }
    return VariableUses.readAfter(ctx, path, variable) ? ctx.text(t) : null;
  }

  /** The fix that assigns a discarded result to its variable, or null where there is none. */
  static Fix assign(MethodInvocationTree call, String target) {
    return target == null
        ? null
        : Fix.prefix("assign the result to " + target, call, target + " = ");
  }

  /** What to do with a discarded result, for a message. */
  static String assignAdvice(AnalysisContext ctx, MethodInvocationTree call, String target) {
    return target == null
        ? "assign its result to a variable and use it"
        : "write " + target + " = " + ctx.shortText(call);
  }

  /** The name of the functional interface a method reference is passed as ({@code Consumer}). */
  static String functionalName(AnalysisContext ctx, TreePath path) {
    Element functional = ctx.types().types().asElement(ctx.trees().getTypeMirror(path));
    return functional == null ? "a function" : functional.getSimpleName().toString();
  }

  /**
   * How to keep the results of a method reference: {@code Tensor::cuda} passed for each tensor can
   * be mapped instead; {@code x::relu} (no argument) cannot.
   */
  static String keepAdvice(AnalysisContext ctx, TreePath path, MemberReferenceTree reference) {
    boolean perElement =
        ctx.trees().getElement(new TreePath(path, reference.getQualifierExpression()))
            instanceof TypeElement;
    return perElement
        ? ", for example with stream().map(" + ctx.shortText(reference) + ").toList()"
        : "";
  }
}
