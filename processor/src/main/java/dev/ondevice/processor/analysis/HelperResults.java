package dev.ondevice.processor.analysis;

import com.sun.source.tree.ClassTree;
import com.sun.source.tree.ExpressionTree;
import com.sun.source.tree.IdentifierTree;
import com.sun.source.tree.LambdaExpressionTree;
import com.sun.source.tree.MemberSelectTree;
import com.sun.source.tree.MethodInvocationTree;
import com.sun.source.tree.MethodTree;
import com.sun.source.tree.NewClassTree;
import com.sun.source.tree.ReturnTree;
import com.sun.source.tree.Tree;
import com.sun.source.tree.VariableTree;
import com.sun.source.util.TreePath;
import com.sun.source.util.TreePathScanner;
import java.util.ArrayList;
import java.util.List;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.Modifier;
import javax.lang.model.type.TypeMirror;

/**
 * What the helpers of the class being analysed return, read from their source: a model they build
 * and do not move ({@code static Sequential buildModel() { return new Sequential(new Linear(4, 8),
 * new ReLU()); }}), on the CPU until the caller moves it, as a model made with {@code new} is; or a
 * tensor a factory makes on the CPU for want of a device ({@code static Tensor causalMask(long n) {
 * return Tensor.ones(Shape.of(n, n)).triu(1); }}). Only methods of the analysed class (its
 * outermost class, whose trees are attributed) that cannot be overridden are read, so that the
 * answer does not depend on the order of the source files.
 */
final class HelperResults {
  private HelperResults() {}

  /**
   * Whether every call of {@code m} (called at {@code call}) returns a model it made and did not
   * move.
   */
  static boolean newUnmovedModel(ExecutableElement m, TreePath call, AnalysisContext ctx) {
    Boolean known = ctx.facts().returnsNewModel.get(m);
    if (known == null) {
      TreePath body = body(m, call, ctx);
      List<TreePath> returned = body == null ? List.of() : returned(body);
      known =
          !returned.isEmpty()
              && !TreeSearch.contains(
                  body.getLeaf(),
                  t ->
                      t instanceof MethodInvocationTree c
                          && c.getMethodSelect() instanceof MemberSelectTree select
                          && select.getIdentifier().contentEquals("toDevice"),
                  t -> false) // it may move what it returns
              && returned.stream().allMatch(r -> newUnmoved(r, body, ctx));
      ctx.facts().returnsNewModel.put(m, known);
    }
    return known;
  }

  /**
   * Whether every call of {@code m} returns a tensor that a factory makes on the CPU for want of a
   * device, or ops without tensor arguments on one ({@code Tensor.ones(Shape.of(n, n)).triu(1)}):
   * not host data ({@code Tensor.of(ids)}), not a 0-dim scalar.
   */
  static boolean cpuFactoryTensor(ExecutableElement m, TreePath call, AnalysisContext ctx) {
    Boolean known = ctx.facts().returnsCpuFactoryTensor.get(m);
    if (known == null) {
      TreePath body = body(m, call, ctx);
      List<TreePath> returned = body == null ? List.of() : returned(body);
      known = !returned.isEmpty() && returned.stream().allMatch(r -> madeOnTheCpu(r, ctx));
      ctx.facts().returnsCpuFactoryTensor.put(m, known);
    }
    return known;
  }

  private static boolean madeOnTheCpu(TreePath expression, AnalysisContext ctx) {
    ExpressionTree e = MethodInterpreter.skipParens((ExpressionTree) expression.getLeaf());
    TreePath at = new TreePath(expression, e);
    while (e instanceof MethodInvocationTree call
        && ctx.trees().getElement(at) instanceof ExecutableElement m) {
      MethodSemantics s = ctx.semantics(m);
      if (!noTensorOrDevice(at, call.getArguments(), ctx) || s.inPlace) {
        return false;
      }
      if (s.kind == MethodSemantics.Kind.FACTORY) {
        return !s.fromHostData && !s.zeroDim(call.getArguments().size());
      }
      if (s.kind != MethodSemantics.Kind.SAME_DEVICE
          || !(call.getMethodSelect() instanceof MemberSelectTree select)) {
        return false;
      }
      e = MethodInterpreter.skipParens(select.getExpression()); // .triu(1) on it
      at = new TreePath(new TreePath(at, select), e);
    }
    return false;
  }

  private static boolean noTensorOrDevice(
      TreePath call, List<? extends ExpressionTree> arguments, AnalysisContext ctx) {
    for (ExpressionTree a : arguments) {
      TypeMirror t = ctx.trees().getTypeMirror(new TreePath(call, a));
      if (t == null
          || ctx.types().isTensor(t)
          || ctx.types().isDevice(t)
          || ctx.types().isTensorIterable(t)) {
        return false;
      }
    }
    return true;
  }

  /**
   * The body of {@code m}, where its source is in the analysed class (the one around {@code call})
   * and it cannot be overridden (static, private or final); null otherwise.
   */
  private static TreePath body(ExecutableElement m, TreePath call, AnalysisContext ctx) {
    boolean fixed =
        m.getModifiers().contains(Modifier.STATIC)
            || m.getModifiers().contains(Modifier.PRIVATE)
            || m.getModifiers().contains(Modifier.FINAL)
            || m.getEnclosingElement().getModifiers().contains(Modifier.FINAL);
    TreePath method = fixed ? ctx.pathOf(m) : null;
    if (method == null
        || !(method.getLeaf() instanceof MethodTree tree)
        || tree.getBody() == null
        || outermost(method) != outermost(call)
        || outermost(call) == null) {
      return null;
    }
    return new TreePath(method, tree.getBody());
  }

  /** The expressions a body returns, outside the lambdas and classes it declares. */
  private static List<TreePath> returned(TreePath body) {
    List<TreePath> returned = new ArrayList<>();
    new TreePathScanner<Void, Void>() {
      @Override
      public Void visitReturn(ReturnTree node, Void unused) {
        if (node.getExpression() != null) {
          returned.add(new TreePath(getCurrentPath(), node.getExpression()));
        }
        return null;
      }

      @Override
      public Void visitLambdaExpression(LambdaExpressionTree node, Void unused) {
        return null;
      }

      @Override
      public Void visitClass(ClassTree node, Void unused) {
        return null;
      }
    }.scan(body, null);
    return returned;
  }

  /** {@code new Net()}, or a local given one and used after only as the receiver of a call. */
  private static boolean newUnmoved(TreePath expression, TreePath body, AnalysisContext ctx) {
    ExpressionTree e = MethodInterpreter.skipParens((ExpressionTree) expression.getLeaf());
    if (e instanceof NewClassTree created) {
      return made(new TreePath(expression, created), ctx);
    }
    if (!(e instanceof IdentifierTree id)) {
      return false;
    }
    TreePath[] declaration = {null};
    boolean[] otherUse = {false};
    new TreePathScanner<Void, Void>() {
      @Override
      public Void visitVariable(VariableTree node, Void unused) {
        if (node.getName().equals(id.getName()) && node.getInitializer() != null) {
          declaration[0] = new TreePath(getCurrentPath(), node.getInitializer());
        }
        return super.visitVariable(node, null);
      }

      @Override
      public Void visitIdentifier(IdentifierTree node, Void unused) {
        Tree parent = getCurrentPath().getParentPath().getLeaf();
        boolean receiver =
            parent instanceof MemberSelectTree select
                && select.getExpression() == node
                && getCurrentPath().getParentPath().getParentPath().getLeaf()
                    instanceof MethodInvocationTree;
        otherUse[0] |= node.getName().equals(id.getName()) && node != e && !receiver;
        return null;
      }
    }.scan(body, null);
    return declaration[0] != null
        && !otherUse[0]
        && MethodInterpreter.skipParens((ExpressionTree) declaration[0].getLeaf())
            instanceof NewClassTree created
        && made(new TreePath(declaration[0], created), ctx);
  }

  /**
   * A model with state made here and not moved: its constructor does not move it, it is given no
   * {@code Device}, and the models with state it is given are made right there ({@code new
   * Sequential(new Linear(4, 8), new ReLU())}).
   */
  private static boolean made(TreePath created, AnalysisContext ctx) {
    TypeMirror type = ctx.trees().getTypeMirror(created);
    if (type == null
        || !ctx.types().isModel(type)
        || !ctx.types().hasState(type)
        || !(ctx.trees().getElement(created) instanceof ExecutableElement constructor)
        || ctx.constructorMovesModel(constructor)) {
      return false;
    }
    for (ExpressionTree argument : ((NewClassTree) created.getLeaf()).getArguments()) {
      TreePath ap = new TreePath(created, argument);
      TypeMirror at = ctx.trees().getTypeMirror(ap);
      if (at == null
          || ctx.types().isDevice(at)
          || (ctx.types().isModel(at)
              && ctx.types().hasState(at)
              && !(MethodInterpreter.skipParens(argument) instanceof NewClassTree
                  && made(new TreePath(ap, MethodInterpreter.skipParens(argument)), ctx)))) {
        return false;
      }
    }
    return true;
  }

  /** The tree of the outermost class around a path, or null. */
  private static Tree outermost(TreePath path) {
    Tree last = null;
    for (TreePath p = path; p != null; p = p.getParentPath()) {
      if (p.getLeaf() instanceof ClassTree) {
        last = p.getLeaf();
      }
    }
    return last;
  }
}
