package dev.ondevice.processor.analysis;

import com.sun.source.tree.MemberReferenceTree;
import com.sun.source.tree.MethodInvocationTree;
import com.sun.source.util.TreePath;

/**
 * {@link CheckId#DISCARDED_MOVE}: a tensor move whose result is discarded, or stored and never
 * read.
 */
final class DiscardedMoveCheck extends DeviceCheck {
  DiscardedMoveCheck(AnalysisContext ctx, Interpretation at, DeviceTexts texts) {
    super(ctx, at, texts);
  }

  @Override
  void discardedResult(TreePath path, MethodInvocationTree call, MethodSemantics s) {
    if (s.kind != MethodSemantics.Kind.MOVE) {
      return;
    }
    String target = DiscardedResults.assignmentTarget(ctx, texts, path, call);
    report(
        CheckId.DISCARDED_MOVE,
        path,
        ctx.shortText(call)
            + " returns a new tensor and its result is discarded:"
            + " tensors do not move in place (models do); "
            + DiscardedResults.assignAdvice(ctx, call, target),
        false,
        DiscardedResults.assign(call, target));
  }

  @Override
  void discardedReference(TreePath path, MemberReferenceTree reference, MethodSemantics s) {
    if (s.kind != MethodSemantics.Kind.MOVE) {
      return;
    }
    report(
        CheckId.DISCARDED_MOVE,
        path,
        ctx.shortText(reference)
            + " returns a new tensor, and the "
            + DiscardedResults.functionalName(ctx, path)
            + " it is passed as discards it: tensors do not move in place"
            + " (models do); keep the moved tensors"
            + DiscardedResults.keepAdvice(ctx, path, reference),
        false);
  }

  /**
   * {@code Tensor moved = x.to(device);} whose variable is never read, while {@code x} is read
   * afterwards: the move's result is as good as discarded, and the later uses of {@code x} still
   * see it where it was ({@code model.forward(x)} on the GPU machine fails).
   */
  @Override
  void storedMoveNeverRead(
      TreePath move, MethodInvocationTree call, CharSequence stored, CharSequence original) {
    report(
        CheckId.DISCARDED_MOVE,
        move,
        stored
            + " holds "
            + ctx.shortText(call)
            + " but is never read, while "
            + original
            + " is used afterwards where it still is: tensors do not move in place; use "
            + stored
            + " instead of "
            + original
            + " after the move, or write "
            + original
            + " = "
            + ctx.shortText(call),
        false);
  }
}
