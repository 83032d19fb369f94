package dev.ondevice.processor.analysis;

import com.sun.source.tree.ClassTree;
import com.sun.source.tree.ExpressionTree;
import com.sun.source.tree.IdentifierTree;
import com.sun.source.tree.MemberSelectTree;
import com.sun.source.tree.MethodInvocationTree;
import com.sun.source.tree.MethodTree;
import com.sun.source.tree.NewClassTree;
import com.sun.source.tree.VariableTree;
import com.sun.source.util.TreePath;
import com.sun.source.util.TreePathScanner;
import java.util.List;
import javax.lang.model.element.Element;
import javax.lang.model.element.ElementKind;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.Name;

/**
 * {@link CheckId#OPTIMIZER_STATE_LEFT_BEHIND}: in one method, an optimizer built over a model's
 * parameters is given saved state ({@code optimizer.loadStateDict(saved)}, {@code
 * Checkpoint.restore(file, model, optimizer, ...)}), which lands where the parameters are now, and
 * the model moves afterwards ({@code model.toDevice(device)}) with no {@code
 * optimizer.followParameters()} after the move: the state stays behind, and the first {@code
 * step()} fails (PyTorch's {@code optimizer.load_state_dict} before {@code model.cuda()}). A check
 * of its own: it reads the method's calls in the order of the source and reports, and changes
 * nothing the interpreter knows.
 */
final class OptimizerStateOrder {
  private OptimizerStateOrder() {}

  /**
   * Whether {@code call} gives {@code model} to a method of this file that moves that parameter
   * ({@code fabric.setup(model, optimizer)} whose body calls {@code module.toDevice(device)}).
   */
  private static boolean movesItsArgument(TreePath call, Element model, AnalysisContext ctx) {
    MethodInvocationTree t = (MethodInvocationTree) call.getLeaf();
    TreePath body =
        ctx.trees().getElement(call) instanceof ExecutableElement e ? ctx.pathOf(e) : null;
    if (body == null
        || !(ctx.trees().getElement(call) instanceof ExecutableElement m)
        || !(body.getLeaf() instanceof MethodTree tree)
        || tree.getBody() == null
        || m.isVarArgs()) {
      return false;
    }
    for (int i = 0; i < t.getArguments().size() && i < tree.getParameters().size(); i++) {
      ExpressionTree a = MethodInterpreter.skipParens(t.getArguments().get(i));
      if (a instanceof IdentifierTree && ctx.trees().getElement(new TreePath(call, a)) == model) {
        Name parameter = tree.getParameters().get(i).getName();
        if (TreeSearch.contains(
            tree.getBody(),
            x ->
                x instanceof MethodInvocationTree inner
                    && inner.getMethodSelect() instanceof MemberSelectTree select
                    && select.getIdentifier().contentEquals("toDevice")
                    && MethodInterpreter.skipParens(select.getExpression())
                        instanceof IdentifierTree receiver
                    && receiver.getName().equals(parameter),
            x -> x instanceof ClassTree)) {
          return true;
        }
      }
    }
    return false;
  }

  /**
   * Reports each load of state that a later move of the model leaves behind, in the body at {@code
   * method} whose calls, in the order of the source, are {@code calls}.
   */
  static void check(TreePath method, List<TreePath> calls, AnalysisContext ctx) {
    stateMadeAtConstruction(method, calls, ctx);
    for (int i = 0; i < calls.size(); i++) {
      Load load = loadedOptimizer(calls.get(i), ctx);
      Element optimizer = load == null ? null : load.optimizer();
      Element model = optimizer == null ? null : modelOf(optimizer, method, ctx);
      if (model == null) {
        continue;
      }
      TreePath move = null;
      for (int j = i + 1; j < calls.size() && move == null; j++) {
        TreePath c = calls.get(j);
        move =
            (TreeSearch.named(c, "toDevice") && TreeSearch.receiver(c, ctx) == model)
                    || movesItsArgument(c, model, ctx)
                ? c
                : null;
      }
      if (move == null || followsAfter(calls, move, optimizer, ctx)) {
        continue;
      }
      String o = optimizer.getSimpleName().toString();
      String m = model.getSimpleName().toString();
      ctx.report(
          CheckId.OPTIMIZER_STATE_LEFT_BEHIND,
          load.at(),
          calls.get(i),
          "the state loaded into "
              + o
              + (load.at() == calls.get(i)
                  ? ""
                  : " here (by "
                      + ctx.shortText(calls.get(i).getLeaf())
                      + ", line "
                      + ctx.lineOf(calls.get(i))
                      + ")")
              + " is put where "
              + m
              + "'s parameters are now, and "
              + ctx.shortText(move.getLeaf())
              + (load.at() == calls.get(i) ? " below" : " (line " + ctx.lineOf(move) + ")")
              + " moves the parameters without"
              + " it: "
              + o
              + ".step() then fails; move "
              + m
              + " before loading the state, or call "
              + o
              + ".followParameters() after moving it",
          false,
          StatementFixes.after(
              ctx, move, o + ".followParameters();", "move the optimizer's state with the model"));
    }
  }

  /**
   * An optimizer of the user's whose constructor makes its state from the parameters ({@code
   * Tensor.zerosLike(p)} in {@code new Nero(net.parameters(), 0.01)}), built before the model
   * moves: that state is made where the parameters were, and stays there.
   */
  private static void stateMadeAtConstruction(
      TreePath method, List<TreePath> calls, AnalysisContext ctx) {
    new TreePathScanner<Void, Void>() {
      @Override
      public Void visitVariable(VariableTree node, Void unused) {
        Element optimizer = ctx.trees().getElement(getCurrentPath());
        if (node.getInitializer() instanceof NewClassTree created
            && optimizer != null
            && isLocal(optimizer)
            && ctx.types().isOptimizer(optimizer.asType())
            && ctx.trees().getElement(new TreePath(getCurrentPath(), created))
                instanceof ExecutableElement c
            && ctx.constructorMakesTensors(c)) {
          Element model = modelOf(optimizer, method, ctx);
          long declared = TreeSearch.start(getCurrentPath(), ctx);
          TreePath move =
              model == null
                  ? null
                  : calls.stream()
                      .filter(
                          call ->
                              TreeSearch.start(call, ctx) > declared
                                  && TreeSearch.named(call, "toDevice")
                                  && TreeSearch.receiver(call, ctx) == model)
                      .findFirst()
                      .orElse(null);
          if (move != null) {
            String o = optimizer.getSimpleName().toString();
            String m = model.getSimpleName().toString();
            ctx.report(
                CheckId.OPTIMIZER_STATE_LEFT_BEHIND,
                getCurrentPath(),
                "the constructor of "
                    + c.getEnclosingElement().getSimpleName()
                    + " makes "
                    + o
                    + "'s state where "
                    + m
                    + "'s parameters are"
                    + " now, and "
                    + ctx.shortText(move.getLeaf())
                    + " below moves the parameters without it: "
                    + o
                    + ".step() then meets the state on the old device; build "
                    + o
                    + " after moving "
                    + m,
                false);
          }
        }
        return super.visitVariable(node, null);
      }

      @Override
      public Void visitClass(com.sun.source.tree.ClassTree node, Void unused) {
        return null;
      }
    }.scan(
        new TreePath(method, ((com.sun.source.tree.MethodTree) method.getLeaf()).getBody()), null);
  }

  /**
   * Whether a constructor whose body is in this compilation makes tensors ({@code
   * Tensor.zerosLike(p)}).
   */
  static boolean makesTensors(ExecutableElement constructor, AnalysisContext ctx) {
    TreePath body = ctx.pathOf(constructor);
    if (body == null) {
      return false;
    }
    boolean[] found = {false};
    new TreePathScanner<Void, Void>() {
      @Override
      public Void visitMethodInvocation(MethodInvocationTree node, Void unused) {
        found[0] |=
            ctx.trees().getElement(getCurrentPath()) instanceof ExecutableElement m
                && ctx.semantics(m).kind == MethodSemantics.Kind.FACTORY;
        return found[0] ? null : super.visitMethodInvocation(node, null);
      }
    }.scan(body, null);
    return found[0];
  }

  /**
   * An optimizer local whose state a call loads, and where: the call itself, or the load inside a
   * helper of this file that the call gives the optimizer ({@code loadEpoch(dir, epoch, model,
   * optm)} calling {@code optm.loadStateDict(...)}).
   */
  private record Load(Element optimizer, TreePath at) {}

  /** What {@code call} loads, directly or through a helper's body in this file; or null. */
  private static Load loadedOptimizer(TreePath call, AnalysisContext ctx) {
    Element direct = loadedBy(call, ctx);
    if (direct != null) {
      return isLocal(direct) && ctx.types().isOptimizer(direct.asType())
          ? new Load(direct, call)
          : null;
    }
    MethodInvocationTree t = (MethodInvocationTree) call.getLeaf();
    TreePath declaration =
        ctx.trees().getElement(call) instanceof ExecutableElement m ? ctx.pathOf(m) : null;
    if (declaration == null
        || declaration.getCompilationUnit() != ctx.unit()
        || !(declaration.getLeaf() instanceof com.sun.source.tree.MethodTree tree)
        || tree.getBody() == null
        || tree.getParameters().size() != t.getArguments().size()) {
      return null;
    }
    for (int a = 0; a < t.getArguments().size(); a++) {
      Element given =
          MethodInterpreter.skipParens(t.getArguments().get(a)) instanceof IdentifierTree
              ? ctx.trees().getElement(new TreePath(call, t.getArguments().get(a)))
              : null;
      if (given == null || !isLocal(given) || !ctx.types().isOptimizer(given.asType())) {
        continue;
      }
      Element parameter =
          ctx.trees().getElement(new TreePath(declaration, tree.getParameters().get(a)));
      for (TreePath inner :
          TreeSearch.callsWhereWritten(new TreePath(declaration, tree.getBody()))) {
        if (loadedBy(inner, ctx) == parameter) {
          return new Load(given, inner);
        }
      }
    }
    return null;
  }

  /**
   * The variable whose state {@code call} loads: the receiver of {@code loadStateDict}, an argument
   * of {@code restore}; or null.
   */
  private static Element loadedBy(TreePath call, AnalysisContext ctx) {
    if (TreeSearch.named(call, "loadStateDict")) {
      Element e = TreeSearch.receiver(call, ctx);
      return e != null && ctx.types().isOptimizer(e.asType()) ? e : null;
    }
    if (TreeSearch.named(call, "restore")) {
      for (ExpressionTree a : ((MethodInvocationTree) call.getLeaf()).getArguments()) {
        Element e =
            MethodInterpreter.skipParens(a) instanceof IdentifierTree
                ? ctx.trees().getElement(new TreePath(call, a))
                : null;
        if (e != null && ctx.types().isOptimizer(e.asType())) {
          return e;
        }
      }
    }
    return null;
  }

  /**
   * The model local that the optimizer's initializer names ({@code new Sgd(net.parameters(), 0.1)},
   * {@code build(net)}), or null.
   */
  private static Element modelOf(Element optimizer, TreePath method, AnalysisContext ctx) {
    Element[] model = {null};
    new TreePathScanner<Void, Void>() {
      @Override
      public Void visitVariable(VariableTree node, Void unused) {
        if (node.getInitializer() != null
            && ctx.trees().getElement(getCurrentPath()) == optimizer) {
          new TreePathScanner<Void, Void>() {
            @Override
            public Void visitIdentifier(IdentifierTree id, Void u) {
              Element e = ctx.trees().getElement(getCurrentPath());
              if (model[0] == null && e != null && isLocal(e) && ctx.types().isModel(e.asType())) {
                model[0] = e;
              }
              return null;
            }
          }.scan(new TreePath(getCurrentPath(), node.getInitializer()), null);
        }
        return super.visitVariable(node, null);
      }
    }.scan(method, null);
    return model[0];
  }

  /** Whether {@code optimizer.followParameters()} comes after {@code move}. */
  private static boolean followsAfter(
      List<TreePath> calls, TreePath move, Element optimizer, AnalysisContext ctx) {
    boolean after = false;
    for (TreePath c : calls) {
      after |= c == move;
      if (after
          && TreeSearch.named(c, "followParameters")
          && TreeSearch.receiver(c, ctx) == optimizer) {
        return true;
      }
    }
    return false;
  }

  private static boolean isLocal(Element e) {
    return e.getKind() == ElementKind.LOCAL_VARIABLE || e.getKind() == ElementKind.PARAMETER;
  }
}
