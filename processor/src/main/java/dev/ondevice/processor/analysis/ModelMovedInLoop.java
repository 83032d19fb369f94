package dev.ondevice.processor.analysis;

import com.sun.source.tree.DoWhileLoopTree;
import com.sun.source.tree.EnhancedForLoopTree;
import com.sun.source.tree.ForLoopTree;
import com.sun.source.tree.MethodInvocationTree;
import com.sun.source.tree.Tree;
import com.sun.source.tree.WhileLoopTree;
import com.sun.source.util.TreePath;
import java.util.List;
import javax.lang.model.element.Element;

/**
 * {@link CheckId#MIXED_DEVICES} for a model moved to the CPU inside a loop that runs it on its
 * device: {@code delta.toDevice(Device.cpu())} before saving a checkpoint every n steps (PyTorch's
 * {@code delta.cpu().state_dict()}, where {@code Module.cpu()} moves the module in place). The
 * model was moved to a device before the loop, is used in the loop before the move, and is not
 * moved back after it, so the next pass runs it on the CPU with the loop's device tensors. It reads
 * the method's calls in the order of the source, reports, and changes nothing the interpreter
 * knows.
 */
final class ModelMovedInLoop {
  private ModelMovedInLoop() {}

  /**
   * Reports each move to the CPU, in the body at {@code method} whose calls in the order of the
   * source are {@code calls}, that the loop around it runs past.
   */
  static void check(TreePath method, List<TreePath> calls, AnalysisContext ctx) {
    for (TreePath move : calls) {
      if (!TreeSearch.named(move, "toDevice") || !TreeSearch.toTheCpu(move, ctx)) {
        continue;
      }
      Element model = TreeSearch.receiver(move, ctx);
      TreePath loop = enclosingLoop(move, method);
      if (model == null || loop == null || !ctx.types().isModel(model.asType())) {
        continue;
      }
      long loopStart = TreeSearch.start(loop, ctx);
      long loopEnd =
          ctx.trees()
              .getSourcePositions()
              .getEndPosition(loop.getCompilationUnit(), loop.getLeaf());
      long at = TreeSearch.start(move, ctx);
      TreePath before = null;
      TreePath use = null;
      boolean back = false;
      for (TreePath c : calls) {
        long p = TreeSearch.start(c, ctx);
        if (TreeSearch.receiver(c, ctx) != model) {
          continue;
        }
        boolean moves = TreeSearch.named(c, "toDevice");
        if (moves && !TreeSearch.toTheCpu(c, ctx) && p < loopStart) {
          before = c;
        } else if (moves && !TreeSearch.toTheCpu(c, ctx) && p > at && p < loopEnd) {
          back = true;
        } else if (!moves && use == null && p > loopStart && p < at && !readsState(c)) {
          use = c;
        }
      }
      if (before != null && use != null && !back) {
        report(move, use, before, model, ctx);
      }
    }
  }

  private static void report(
      TreePath move, TreePath use, TreePath before, Element model, AnalysisContext ctx) {
    String m = model.getSimpleName().toString();
    String device = ctx.shortText(((MethodInvocationTree) before.getLeaf()).getArguments().get(0));
    ctx.report(
        CheckId.MIXED_DEVICES,
        move,
        ctx.shortText(move.getLeaf())
            + " moves "
            + m
            + " to the CPU inside the"
            + " loop, and the loop's next pass runs it as if it were still on "
            + device
            + " ("
            + ctx.shortText(use.getLeaf())
            + ", line "
            + ctx.lineOf(use)
            + "): a model moves in place. To save its state, save "
            + m
            + ".stateDict() as"
            + " it is (saving copies device tensors to the host), or move it back afterwards: "
            + m
            + ".toDevice("
            + device
            + ")",
        false);
  }

  /**
   * Calls that only read the model's state ({@code stateDict()}, {@code parameters()}): not a run
   * of it.
   */
  private static boolean readsState(TreePath call) {
    return TreeSearch.named(call, "stateDict")
        || TreeSearch.named(call, "parameters")
        || TreeSearch.named(call, "namedParameters")
        || TreeSearch.named(call, "device");
  }

  /** The innermost loop around {@code path} inside {@code method}, or null. */
  private static TreePath enclosingLoop(TreePath path, TreePath method) {
    for (TreePath p = path.getParentPath();
        p != null && p.getLeaf() != method.getLeaf();
        p = p.getParentPath()) {
      Tree t = p.getLeaf();
      if (t instanceof ForLoopTree
          || t instanceof EnhancedForLoopTree
          || t instanceof WhileLoopTree
          || t instanceof DoWhileLoopTree) {
        return p;
      }
      if (t instanceof com.sun.source.tree.ClassTree
          || t instanceof com.sun.source.tree.LambdaExpressionTree) {
        return null;
      }
    }
    return null;
  }
}
