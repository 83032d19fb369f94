package dev.ondevice.processor.analysis;

import com.sun.source.tree.AssignmentTree;
import com.sun.source.tree.BlockTree;
import com.sun.source.tree.ClassTree;
import com.sun.source.tree.CompilationUnitTree;
import com.sun.source.tree.ExpressionStatementTree;
import com.sun.source.tree.ExpressionTree;
import com.sun.source.tree.IdentifierTree;
import com.sun.source.tree.IfTree;
import com.sun.source.tree.LambdaExpressionTree;
import com.sun.source.tree.LiteralTree;
import com.sun.source.tree.MemberReferenceTree;
import com.sun.source.tree.MemberSelectTree;
import com.sun.source.tree.MethodInvocationTree;
import com.sun.source.tree.MethodTree;
import com.sun.source.tree.ParenthesizedTree;
import com.sun.source.tree.StatementTree;
import com.sun.source.tree.Tree;
import com.sun.source.tree.UnaryTree;
import com.sun.source.tree.VariableTree;
import com.sun.source.util.TreePath;
import com.sun.source.util.TreePathScanner;
import com.sun.source.util.Trees;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.Modifier;
import javax.lang.model.element.Name;

/**
 * How a private method of a model is called within its class, where all its calls are: whether
 * every caller takes the tensor it returns where a CPU tensor is fine, and whether every caller
 * passes the model's device for one of its {@code Device} parameters. Asked only where a finding is
 * about to be reported, while the class's trees are attributed.
 */
final class CallersOfMethod {
  /** Calls that copy their tensor argument in place, from any device. */
  private static final Set<String> COPIES = Set.of("copyFrom", "assign");

  private CallersOfMethod() {}

  /**
   * Whether the tensor {@code method} returns may stay on the CPU for its callers: it is a private
   * helper of its class, called there, and only while the model is built (in constructors and
   * initializers, where its state is on the CPU until the model moves) or where the result is moved
   * to a device, copied or read on the host before it meets anything else ({@code
   * causalMask(n).to(x.device())}, {@code causalMask(n).t().to(x.device())}, {@code
   * w.copyFrom(init(8, 8))}, {@code rows(n).toLongArray()}), also through a local it is given
   * ({@code Tensor m = mask(n); m = m.to(x.device());}). A package-private method's calls are
   * looked for in its file (PyTorch's {@code _generate_square_subsequent_mask}, a method private by
   * convention). A public or protected method is not: callers elsewhere may use its result
   * anywhere.
   *
   * @param inMethod a path inside the method, under its class
   */
  static boolean takeItOnTheCpu(TreePath inMethod, ExecutableElement method, Trees trees) {
    if (method.getModifiers().contains(Modifier.PUBLIC)
        || method.getModifiers().contains(Modifier.PROTECTED)) {
      return false;
    }
    // A private method's calls are in its class; a package-private one's are taken to be in its
    // file.
    TreePath classPath =
        method.getModifiers().contains(Modifier.PRIVATE)
            ? enclosingClass(inMethod)
            : new TreePath(new TreePath(inMethod.getCompilationUnit()), topLevelClass(inMethod));
    List<TreePath> calls = classPath == null ? null : calls(classPath, method, trees);
    Tree classTree = classPath == null ? null : classPath.getLeaf();
    return calls != null
        && !calls.isEmpty()
        && calls.stream()
            .allMatch(
                c -> whileBuilding(c, classTree) || new Uses(c, trees).endOffTheModel(c, true));
  }

  /**
   * Whether every call of {@code method}, a private method of its class, passes as argument {@code
   * index} a device that {@code modelsDevice} says is the model's ({@code setCache(n, x.device())}
   * from {@code forward(x)}): inside the method, that parameter is then the model's device.
   *
   * @param inMethod a path inside the method, under its class
   */
  static boolean giveTheModelsDevice(
      TreePath inMethod,
      ExecutableElement method,
      int index,
      Trees trees,
      Predicate<TreePath> modelsDevice) {
    if (!method.getModifiers().contains(Modifier.PRIVATE)) {
      return false;
    }
    TreePath classPath = enclosingClass(inMethod);
    List<TreePath> calls = classPath == null ? null : calls(classPath, method, trees);
    return calls != null
        && !calls.isEmpty()
        && calls.stream()
            .allMatch(
                c ->
                    c.getLeaf() instanceof MethodInvocationTree call
                        && index < call.getArguments().size()
                        && modelsDevice.test(new TreePath(c, call.getArguments().get(index))));
  }

  /** The top-level class around {@code path}. */
  private static Tree topLevelClass(TreePath path) {
    Tree top = null;
    for (TreePath p = path; p != null; p = p.getParentPath()) {
      if (p.getLeaf() instanceof com.sun.source.tree.ClassTree) {
        top = p.getLeaf();
      }
    }
    return top;
  }

  /**
   * The calls of {@code method} in the class at {@code classPath}; null where it is also used
   * through a method reference.
   */
  private static List<TreePath> calls(TreePath classPath, ExecutableElement method, Trees trees) {
    List<TreePath> calls = new ArrayList<>();
    boolean[] referenced = {false};
    new TreePathScanner<Void, Void>() {
      @Override
      public Void visitMethodInvocation(MethodInvocationTree node, Void unused) {
        if (trees.getElement(getCurrentPath()) == method) {
          calls.add(getCurrentPath());
        }
        return super.visitMethodInvocation(node, null);
      }

      @Override
      public Void visitMemberReference(MemberReferenceTree node, Void unused) {
        referenced[0] |=
            trees.getElement(getCurrentPath()) == method; // this::table may run anywhere
        return super.visitMemberReference(node, null);
      }
    }.scan(classPath, null);
    return referenced[0] ? null : calls;
  }

  private static TreePath enclosingClass(TreePath path) {
    TreePath p = path;
    while (p != null && !(p.getLeaf() instanceof ClassTree)) {
      p = p.getParentPath();
    }
    return p;
  }

  /**
   * Whether the call is in a constructor, a field's initializer or an initializer block of the
   * class, not in a lambda.
   */
  private static boolean whileBuilding(TreePath call, Tree classTree) {
    Tree child = call.getLeaf();
    for (TreePath p = call.getParentPath(); p != null; child = p.getLeaf(), p = p.getParentPath()) {
      Tree t = p.getLeaf();
      if (t instanceof LambdaExpressionTree || (t instanceof ClassTree && t != classTree)) {
        return false;
      }
      if (t == classTree) {
        return (child instanceof MethodTree m && m.getName().contentEquals("<init>"))
            || child instanceof VariableTree
            || child instanceof BlockTree;
      }
    }
    return false;
  }

  /**
   * Where the value of an expression goes, in the method around it: whether it is moved to a
   * device, copied or read on the host (its shape, its elements, its device) before it meets
   * anything else, directly or after ops that take only constants ({@code t()}, {@code view(-1,
   * 4)}, {@code to(DType.FLOAT32)}), or through a local it is given.
   */
  private static final class Uses {
    private final Trees trees;
    private final CompilationUnitTree unit;

    Uses(TreePath at, Trees trees) {
      this.trees = trees;
      this.unit = at.getCompilationUnit();
    }

    /**
     * Whether the value at {@code path} ends off the model's tensors; {@code followLocal}: also
     * through a local given it.
     */
    boolean endOffTheModel(TreePath path, boolean followLocal) {
      Tree child = path.getLeaf();
      for (TreePath p = path.getParentPath();
          p != null;
          child = p.getLeaf(), p = p.getParentPath()) {
        Tree t = p.getLeaf();
        if (t instanceof ParenthesizedTree) {
          continue;
        }
        if (t instanceof MemberSelectTree select && select.getExpression() == child) {
          if (!(p.getParentPath().getLeaf() instanceof MethodInvocationTree call)
              || call.getMethodSelect() != select) {
            return false;
          }
          String name = select.getIdentifier().toString();
          if (NeutralParameters.isMove(call, select)
              || NeutralParameters.HOST_VALUES.contains(name)
              || name.equals("device")
              || (name.equals("to") && givenADevice(p.getParentPath(), call))) {
            return true;
          }
          if (!call.getArguments().stream().allMatch(Uses::constant)) {
            return false;
          }
          p = p.getParentPath(); // mask.t(): followed further
          child = select;
          continue;
        }
        if (t instanceof MethodInvocationTree outer && outer.getArguments().contains(child)) {
          return outer.getMethodSelect() instanceof MemberSelectTree select
              && COPIES.contains(select.getIdentifier().toString());
        }
        if (followLocal && t instanceof VariableTree local && local.getInitializer() == child) {
          return localEndsOffTheModel(p, local.getName());
        }
        return false;
      }
      return false;
    }

    /** {@code m.to(dev)} with {@code dev} a {@code Device} variable or expression: a move. */
    private boolean givenADevice(TreePath callPath, MethodInvocationTree call) {
      if (call.getArguments().isEmpty()) {
        return false;
      }
      javax.lang.model.type.TypeMirror t =
          trees.getTypeMirror(new TreePath(callPath, call.getArguments().get(0)));
      return t != null && t.toString().equals("dev.ondevice.Device");
    }

    /** A literal, a constant of a class ({@code DType.FLOAT32}), or minus a literal: no tensor. */
    private static boolean constant(ExpressionTree e) {
      ExpressionTree x = MethodInterpreter.skipParens(e);
      return x instanceof LiteralTree
          || (x instanceof UnaryTree u && u.getExpression() instanceof LiteralTree)
          || (x instanceof MemberSelectTree select
              && select.getExpression() instanceof IdentifierTree owner
              && Character.isUpperCase(owner.getName().charAt(0)));
    }

    /**
     * Whether every use of the local declared at {@code declaration} ends off the model's tensors,
     * a use after a statement of its block that moves it back ({@code m = m.to(x.device());}, also
     * under an {@code if} without {@code else}) being on that device.
     */
    private boolean localEndsOffTheModel(TreePath declaration, Name name) {
      if (!(declaration.getParentPath().getLeaf() instanceof BlockTree block)) {
        return false;
      }
      long movedBackAt = Long.MAX_VALUE;
      boolean after = false;
      for (StatementTree s : block.getStatements()) {
        if (s == declaration.getLeaf()) {
          after = true;
        } else if (after && movesBack(new TreePath(declaration.getParentPath(), s), name)) {
          movedBackAt = trees.getSourcePositions().getEndPosition(unit, s);
          break;
        }
      }
      long end = movedBackAt;
      boolean[] offTheModel = {true};
      new TreePathScanner<Void, Void>() {
        @Override
        public Void visitIdentifier(IdentifierTree node, Void unused) {
          TreePath use = getCurrentPath();
          if (node.getName().equals(name)
              && trees.getSourcePositions().getStartPosition(unit, node) < end
              && !written(use)
              && !endOffTheModel(use, false)) {
            offTheModel[0] = false;
          }
          return null;
        }
      }.scan(new TreePath(declaration.getParentPath(), block), null);
      return offTheModel[0];
    }

    /**
     * {@code m = m.to(d);}, or that statement as the only or last one of an {@code if} without
     * {@code else}.
     */
    private boolean movesBack(TreePath statement, Name name) {
      Tree s = statement.getLeaf();
      if (s instanceof IfTree guard && guard.getElseStatement() == null) {
        StatementTree then = guard.getThenStatement();
        if (then instanceof BlockTree b && !b.getStatements().isEmpty()) {
          then = b.getStatements().get(b.getStatements().size() - 1);
        }
        return movesBack(new TreePath(statement, then), name);
      }
      return s instanceof ExpressionStatementTree e
          && e.getExpression() instanceof AssignmentTree a
          && a.getVariable() instanceof IdentifierTree target
          && target.getName().equals(name)
          && TreeSearch.contains(
              a.getExpression(),
              t -> t instanceof IdentifierTree id && id.getName().equals(name),
              t -> false)
          && endsInMove(a.getExpression());
    }

    /** An expression whose outermost call is a move: {@code m.t().to(d)}. */
    private static boolean endsInMove(ExpressionTree e) {
      return MethodInterpreter.skipParens(e) instanceof MethodInvocationTree call
          && call.getMethodSelect() instanceof MemberSelectTree select
          && NeutralParameters.isMove(call, select);
    }

    /** The variable of an assignment: written, not read. */
    private static boolean written(TreePath use) {
      return use.getParentPath().getLeaf() instanceof AssignmentTree a
          && a.getVariable() == use.getLeaf();
    }
  }
}
