package dev.ondevice.processor.analysis;

import com.sun.source.tree.MemberReferenceTree;
import com.sun.source.tree.MemberSelectTree;
import com.sun.source.tree.MethodInvocationTree;
import com.sun.source.util.TreePath;
import java.util.List;
import javax.lang.model.element.Element;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.TypeElement;
import javax.lang.model.element.VariableElement;
import javax.lang.model.util.ElementFilter;

/**
 * {@link CheckId#DISCARDED_TENSOR_OP}: a tensor op, other than a move, whose result is discarded.
 */
final class DiscardedTensorOpCheck extends DeviceCheck {
  DiscardedTensorOpCheck(AnalysisContext ctx, Interpretation at, DeviceTexts texts) {
    super(ctx, at, texts);
  }

  @Override
  void discardedResult(TreePath path, MethodInvocationTree call, MethodSemantics s) {
    if (s.kind == MethodSemantics.Kind.MOVE) {
      return;
    }
    String text = ctx.shortText(call);
    String target = DiscardedResults.assignmentTarget(ctx, texts, path, call);
    String assign = DiscardedResults.assignAdvice(ctx, call, target);
    // Not only "x = x.op()": a detach() is usually meant where the detached value is used, and
    // assigning it back would cut the gradient of every later use of x.
    String use =
        target == null
            ? assign
            : "use "
                + text
                + " where its result is needed, or "
                + assign
                + " if "
                + target
                + " itself must change";
    String inPlace =
        s.kind == MethodSemantics.Kind.FACTORY
            ? ""
            : ", or use the in-place form of the op if there is one";
    report(
        CheckId.DISCARDED_TENSOR_OP,
        path,
        text
            + " returns a new tensor and its result is discarded, so this"
            + " statement does nothing; "
            + use
            + inPlace,
        false,
        DiscardedResults.assign(call, target),
        inPlaceFix(path, call));
  }

  @Override
  void discardedReference(TreePath path, MemberReferenceTree reference, MethodSemantics s) {
    if (s.kind == MethodSemantics.Kind.MOVE) {
      return;
    }
    report(
        CheckId.DISCARDED_TENSOR_OP,
        path,
        ctx.shortText(reference)
            + " returns a new tensor, and the "
            + DiscardedResults.functionalName(ctx, path)
            + " it is passed as discards it, so it does nothing; keep the"
            + " results"
            + DiscardedResults.keepAdvice(ctx, path, reference)
            + ", or use the in-place form of the op if"
            + " there is one",
        false);
  }

  /**
   * {@code x.add(y)} to {@code x.addi(y)} when the receiver is a variable (an in-place op on a
   * temporary would be discarded as well) and its class has that in-place method.
   */
  private Fix inPlaceFix(TreePath path, MethodInvocationTree call) {
    if (!(call.getMethodSelect() instanceof MemberSelectTree select)) {
      return null;
    }
    TreePath receiver = new TreePath(new TreePath(path, select), select.getExpression());
    Element m = ctx.trees().getElement(path);
    if (!texts.isVariable(receiver, MethodInterpreter.skipParens(select.getExpression()))
        || !(m instanceof ExecutableElement method)
        || !(m.getEnclosingElement() instanceof TypeElement)) {
      return null;
    }
    String inPlace = m.getSimpleName() + "i";
    List<? extends VariableElement> params = method.getParameters();
    for (ExecutableElement candidate :
        ElementFilter.methodsIn(m.getEnclosingElement().getEnclosedElements())) {
      if (candidate.getSimpleName().contentEquals(inPlace)
          && sameParameters(candidate.getParameters(), params)) {
        return Fix.replace(
            "do it in place with " + inPlace,
            call,
            ctx.text(select.getExpression())
                + "."
                + inPlace
                + "("
                + String.join(
                    ", ", call.getArguments().stream().map(ctx::text).toArray(String[]::new))
                + ")");
      }
    }
    return null;
  }

  private boolean sameParameters(
      List<? extends VariableElement> a, List<? extends VariableElement> b) {
    if (a.size() != b.size()) {
      return false;
    }
    for (int i = 0; i < a.size(); i++) {
      if (!ctx.types().types().isSameType(a.get(i).asType(), b.get(i).asType())) {
        return false;
      }
    }
    return true;
  }
}
