package dev.ondevice.processor.analysis;

import com.sun.source.tree.ExpressionTree;
import com.sun.source.tree.IdentifierTree;
import com.sun.source.tree.MethodInvocationTree;
import com.sun.source.tree.MethodTree;
import com.sun.source.tree.NewClassTree;
import com.sun.source.tree.VariableTree;
import com.sun.source.util.TreePath;
import com.sun.source.util.TreePathScanner;
import java.util.List;
import java.util.Set;
import javax.lang.model.element.Element;
import javax.lang.model.element.ElementKind;
import javax.lang.model.element.ExecutableElement;

/**
 * {@link CheckId#MODEL_NOT_MOVED} for a model built as a copy of another before that one moves: an
 * average of the weights ({@code SwagModel swag = new SwagModel(rnn)}, PyTorch's {@code
 * AveragedModel(model)}) whose constructor reads the other's state, then {@code
 * rnn.toDevice(device)} and no move of the copy. The copy's weights stay on the CPU while the model
 * trains on the device, and the first update or evaluation of the copy mixes the two. It reads the
 * method's statements, reports, and changes nothing the interpreter knows.
 */
final class CopyLeftBehind {
  /** Calls that read a model's state. */
  private static final Set<String> STATE_READS =
      Set.of("stateDict", "parameters", "namedParameters", "buffers", "namedBuffers");

  private CopyLeftBehind() {}

  /**
   * Reports each copy, in the body at {@code method} whose calls in the order of the source are
   * {@code calls}, that a later move of its source leaves behind.
   */
  static void check(TreePath method, List<TreePath> calls, AnalysisContext ctx) {
    new TreePathScanner<Void, Void>() {
      @Override
      public Void visitVariable(VariableTree node, Void unused) {
        Element copy = ctx.trees().getElement(getCurrentPath());
        if (node.getInitializer() instanceof NewClassTree created
            && copy != null
            && copy.getKind() == ElementKind.LOCAL_VARIABLE
            && ctx.types().isModel(copy.asType())) {
          copied(new TreePath(getCurrentPath(), created), copy, calls, ctx);
        }
        return super.visitVariable(node, null);
      }

      @Override
      public Void visitClass(com.sun.source.tree.ClassTree node, Void unused) {
        return null;
      }
    }.scan(new TreePath(method, ((MethodTree) method.getLeaf()).getBody()), null);
  }

  private static void copied(
      TreePath created, Element copy, List<TreePath> calls, AnalysisContext ctx) {
    NewClassTree tree = (NewClassTree) created.getLeaf();
    if (!(ctx.trees().getElement(created) instanceof ExecutableElement constructor)) {
      return;
    }
    long at = TreeSearch.start(created, ctx);
    for (int a = 0; a < tree.getArguments().size(); a++) {
      ExpressionTree arg = MethodInterpreter.skipParens(tree.getArguments().get(a));
      Element source =
          arg instanceof IdentifierTree ? ctx.trees().getElement(new TreePath(created, arg)) : null;
      if (source == null
          || source.getKind() != ElementKind.LOCAL_VARIABLE
          || !ctx.types().isModel(source.asType())
          || !readsStateOf(constructor, a, ctx, 2)) {
        continue;
      }
      TreePath move = null;
      TreePath use = null;
      for (TreePath c : calls) {
        long p = TreeSearch.start(c, ctx);
        if (TreeSearch.named(c, "toDevice")
            && TreeSearch.receiver(c, ctx) == copy
            && !TreeSearch.toTheCpu(c, ctx)) {
          return; // the copy moves too
        }
        if (mayMove(c, copy, ctx)) {
          return; // handed to code that may move it
        }
        if (p > at && move == null && TreeSearch.named(c, "toDevice")) {
          move = TreeSearch.receiver(c, ctx) == source && !TreeSearch.toTheCpu(c, ctx) ? c : null;
        } else if (move != null && use == null && usesCopy(c, copy, ctx)) {
          use = c;
        }
      }
      if (move != null && use != null) {
        report(created, copy, source, move, use, ctx);
        return;
      }
    }
  }

  private static void report(
      TreePath created,
      Element copy,
      Element source,
      TreePath move,
      TreePath use,
      AnalysisContext ctx) {
    String c = copy.getSimpleName().toString();
    String s = source.getSimpleName().toString();
    String device = ctx.shortText(((MethodInvocationTree) move.getLeaf()).getArguments().get(0));
    ctx.report(
        CheckId.MODEL_NOT_MOVED,
        created,
        move,
        c
            + " is built here from "
            + s
            + "'s weights while "
            + s
            + " is on the CPU, and "
            + ctx.shortText(move.getLeaf())
            + " (line "
            + ctx.lineOf(move)
            + ") moves "
            + s
            + " but not "
            + c
            + ": "
            + c
            + "'s copy stays on the CPU, and "
            + ctx.shortText(use.getLeaf())
            + " (line "
            + ctx.lineOf(use)
            + ") mixes it with "
            + s
            + "'s on the device. Move "
            + c
            + " as well ("
            + c
            + ".toDevice("
            + device
            + ")), or build it after the move",
        false);
  }

  /**
   * Whether constructor or method {@code m}, whose body is in the compilation, reads the state of
   * its parameter {@code index} ({@code source.stateDict()}), itself or through a method of its
   * class it hands the parameter to, {@code depth} calls deep at most.
   */
  private static boolean readsStateOf(
      ExecutableElement m, int index, AnalysisContext ctx, int depth) {
    TreePath path = ctx.pathOf(m);
    if (path == null
        || !(path.getLeaf() instanceof MethodTree tree)
        || tree.getBody() == null
        || index >= tree.getParameters().size()) {
      return false;
    }
    Element parameter = ctx.trees().getElement(new TreePath(path, tree.getParameters().get(index)));
    for (TreePath c : TreeSearch.callsWhereWritten(new TreePath(path, tree.getBody()))) {
      if (STATE_READS.stream().anyMatch(n -> TreeSearch.named(c, n))
          && TreeSearch.receiver(c, ctx) == parameter) {
        return true;
      }
      List<? extends ExpressionTree> args = ((MethodInvocationTree) c.getLeaf()).getArguments();
      for (int a = 0; depth > 0 && a < args.size(); a++) {
        if (MethodInterpreter.skipParens(args.get(a)) instanceof IdentifierTree
            && ctx.trees().getElement(new TreePath(c, args.get(a))) == parameter
            && ctx.trees().getElement(c) instanceof ExecutableElement callee
            && callee.getEnclosingElement() == m.getEnclosingElement()
            && readsStateOf(callee, a, ctx, depth - 1)) {
          return true;
        }
      }
    }
    return false;
  }

  /**
   * Whether {@code call} may move {@code copy}: a method of the copy that may move its model, or a
   * method given it whose body is not here or moves a model.
   */
  private static boolean mayMove(TreePath call, Element copy, AnalysisContext ctx) {
    if (!(ctx.trees().getElement(call) instanceof ExecutableElement m)) {
      return false;
    }
    if (TreeSearch.receiver(call, ctx) == copy && !TreeSearch.named(call, "toDevice")) {
      return ctx.mayMoveItsModel(m);
    }
    if (!passes(call, copy, ctx)) {
      return false;
    }
    TreePath body = ctx.pathOf(m);
    return body == null
        || !(body.getLeaf() instanceof MethodTree tree)
        || tree.getBody() == null
        || TreeSearch.contains(
            tree.getBody(),
            t ->
                t instanceof MethodInvocationTree i
                    && TreeSearch.named(new TreePath(body, i), "toDevice"),
            t -> false);
  }

  /** Whether {@code call} runs or hands on {@code copy}: its receiver or an argument. */
  private static boolean usesCopy(TreePath call, Element copy, AnalysisContext ctx) {
    if (TreeSearch.receiver(call, ctx) == copy) {
      return !STATE_READS.stream().anyMatch(n -> TreeSearch.named(call, n));
    }
    return passes(call, copy, ctx);
  }

  /** Whether {@code call} is given the variable {@code e} itself as an argument. */
  private static boolean passes(TreePath call, Element e, AnalysisContext ctx) {
    return ((MethodInvocationTree) call.getLeaf())
        .getArguments().stream()
            .anyMatch(
                a ->
                    MethodInterpreter.skipParens(a) instanceof IdentifierTree
                        && ctx.trees().getElement(new TreePath(call, a)) == e);
  }
}
