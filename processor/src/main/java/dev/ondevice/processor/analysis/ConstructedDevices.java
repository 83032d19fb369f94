package dev.ondevice.processor.analysis;

import com.sun.source.tree.AssignmentTree;
import com.sun.source.tree.BinaryTree;
import com.sun.source.tree.ClassTree;
import com.sun.source.tree.ConditionalExpressionTree;
import com.sun.source.tree.ExpressionStatementTree;
import com.sun.source.tree.ExpressionTree;
import com.sun.source.tree.IdentifierTree;
import com.sun.source.tree.LambdaExpressionTree;
import com.sun.source.tree.MemberReferenceTree;
import com.sun.source.tree.MemberSelectTree;
import com.sun.source.tree.MethodInvocationTree;
import com.sun.source.tree.MethodTree;
import com.sun.source.tree.NewClassTree;
import com.sun.source.tree.ReturnTree;
import com.sun.source.tree.StatementTree;
import com.sun.source.tree.Tree;
import com.sun.source.util.TreePath;
import com.sun.source.util.TreePathScanner;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.lang.model.element.Element;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.Modifier;
import javax.lang.model.element.TypeElement;
import javax.lang.model.element.VariableElement;
import javax.lang.model.type.DeclaredType;
import javax.lang.model.type.TypeMirror;

/**
 * The device a final {@code Device} field without an initializer holds in every object of its class
 * that its source file makes: each constructor's assignment to the field, evaluated with the
 * arguments of every {@code new} of the class, through {@code this(..)}. PyTorch's {@code def
 * __init__(self, n, device="cpu")} written as {@code WaveletConv(int n) { this(n, Device.cpu());
 * }}, or {@code this.device = device == null ? Device.cpu() : device} with {@code new
 * KaplanMeierEstimator()}: the CPU, in every instance made. Only for a class nested in its file,
 * not public nor protected, not extended there and not made through {@code ::new}, whose objects
 * are all made where this can see them.
 */
final class ConstructedDevices {
  /** The device every object holds in the field, and the {@code new}s that make them. */
  record Constructed(Place place, List<TreePath> sites) {}

  /** What an argument or a field is: a device, {@code null}, or not known. */
  private record Given(Place place, boolean isNull) {
    static final Given NULL = new Given(Place.UNKNOWN, true);
    static final Given UNKNOWN = new Given(Place.UNKNOWN, false);

    static Given of(Place p) {
      return p.kind() == Place.Kind.CPU || p.kind() == Place.Kind.FIXED
          ? new Given(p, false)
          : UNKNOWN;
    }

    boolean known() {
      return place.isKnown();
    }

    Given join(Given other) {
      return equals(other) ? this : UNKNOWN;
    }
  }

  /** How many constructors deep {@code this(..)} is followed. */
  private static final int MAX_DELEGATIONS = 4;

  private final AnalysisContext ctx;

  private ConstructedDevices(AnalysisContext ctx) {
    this.ctx = ctx;
  }

  /**
   * The CPU or a fixed device that {@code field} holds in every object its file makes, with those
   * {@code new}s; null where that is not one known device (or the file makes none).
   */
  static Constructed of(VariableElement field, AnalysisContext ctx) {
    if (!(field.getEnclosingElement() instanceof TypeElement owner)
        || !(owner.getEnclosingElement() instanceof TypeElement)
        || owner.getModifiers().contains(Modifier.PUBLIC)
        || owner.getModifiers().contains(Modifier.PROTECTED)
        || field.getModifiers().contains(Modifier.STATIC)) {
      return null;
    }
    TreePath ownerPath = ctx.pathOf(owner);
    if (ownerPath == null) {
      return null;
    }
    List<TreePath> sites = constructions(owner, new TreePath(ownerPath.getCompilationUnit()), ctx);
    if (sites == null || sites.isEmpty()) {
      return null;
    }
    ConstructedDevices devices = new ConstructedDevices(ctx);
    Given joined = null;
    for (TreePath site : sites) {
      NewClassTree made = (NewClassTree) site.getLeaf();
      if (!(ctx.trees().getElement(site) instanceof ExecutableElement constructor)) {
        return null;
      }
      List<Given> args = new ArrayList<>();
      for (ExpressionTree a : made.getArguments()) {
        args.add(devices.argument(new TreePath(site, a)));
      }
      Given g = devices.assigned(field, constructor, args, 0);
      joined = joined == null ? g : joined.join(g);
      if (!joined.known()) {
        return null;
      }
    }
    return new Constructed(joined.place(), List.copyOf(sites));
  }

  /**
   * For each return of {@code method}: its move to a field that every object of its class holds as
   * the CPU by default ({@code return out.to(device);}), or null for any other return.
   */
  static List<TreePath> returnedMoves(TreePath method, AnalysisContext ctx) {
    List<TreePath> moves = new ArrayList<>();
    new TreePathScanner<Void, Void>() {
      @Override
      public Void visitReturn(ReturnTree node, Void unused) {
        TreePath move = null;
        if (node.getExpression() != null
            && MethodInterpreter.skipParens(node.getExpression())
                instanceof MethodInvocationTree call
            && call.getMethodSelect() instanceof MemberSelectTree select
            && select.getIdentifier().contentEquals("to")
            && call.getArguments().size() == 1) {
          TreePath callPath = new TreePath(getCurrentPath(), call);
          if (ctx.cpuByConstruction(new TreePath(callPath, call.getArguments().get(0))) != null) {
            move = callPath;
          }
        }
        moves.add(move);
        return super.visitReturn(node, null);
      }

      @Override
      public Void visitClass(ClassTree node, Void unused) {
        return null;
      }

      @Override
      public Void visitLambdaExpression(LambdaExpressionTree node, Void unused) {
        return null;
      }
    }.scan(method, null);
    return moves;
  }

  /**
   * Every {@code new} of {@code owner} in its file; null where an object of it may be made
   * elsewhere: a subclass in the file, or {@code Owner::new}.
   */
  private static List<TreePath> constructions(
      TypeElement owner, TreePath unit, AnalysisContext ctx) {
    List<TreePath> sites = new ArrayList<>();
    boolean[] elsewhere = {false};
    new TreePathScanner<Void, Void>() {
      @Override
      public Void visitNewClass(NewClassTree node, Void unused) {
        Element c = ctx.trees().getElement(getCurrentPath());
        boolean ofOwner =
            ctx.trees().getTypeMirror(new TreePath(getCurrentPath(), node.getIdentifier()))
                    instanceof DeclaredType d
                && d.asElement() == owner;
        if (ofOwner && node.getClassBody() != null) {
          elsewhere[0] = true; // new Estimator(device) { ... }: a subclass made here
        } else if (c != null && c.getEnclosingElement() == owner) {
          sites.add(getCurrentPath());
        }
        return super.visitNewClass(node, null);
      }

      @Override
      public Void visitClass(ClassTree node, Void unused) {
        Tree extended = node.getExtendsClause();
        if (extended != null
            && ctx.trees().getTypeMirror(new TreePath(getCurrentPath(), extended))
                instanceof DeclaredType d
            && d.asElement() == owner) {
          elsewhere[0] = true;
        }
        return super.visitClass(node, null);
      }

      @Override
      public Void visitMemberReference(MemberReferenceTree node, Void unused) {
        if (node.getMode() == MemberReferenceTree.ReferenceMode.NEW
            && ctx.trees().getElement(getCurrentPath()) instanceof ExecutableElement c
            && c.getEnclosingElement() == owner) {
          elsewhere[0] = true;
        }
        return super.visitMemberReference(node, null);
      }
    }.scan(unit, null);
    return elsewhere[0] ? null : sites;
  }

  /**
   * What {@code constructor} given {@code args} assigns to {@code field}: the last assignment at
   * the top of its body, or what the constructor it delegates to with {@code this(..)} assigns.
   */
  private Given assigned(
      VariableElement field, ExecutableElement constructor, List<Given> args, int depth) {
    TreePath path = ctx.pathOf(constructor);
    if (depth > MAX_DELEGATIONS
        || path == null
        || !(path.getLeaf() instanceof MethodTree tree)
        || tree.getBody() == null
        || constructor.isVarArgs()
        || constructor.getParameters().size() != args.size()) {
      return Given.UNKNOWN;
    }
    Map<Element, Given> env = new HashMap<>();
    for (int i = 0; i < args.size(); i++) {
      env.put(constructor.getParameters().get(i), args.get(i));
    }
    TreePath body = new TreePath(path, tree.getBody());
    Given found = Given.UNKNOWN;
    for (StatementTree st : tree.getBody().getStatements()) {
      if (!(st instanceof ExpressionStatementTree es)) {
        if (TreeSearch.contains(st, t -> assigns(t, field), t -> false)) {
          return Given.UNKNOWN; // assigned on some paths only
        }
        continue;
      }
      TreePath statement = new TreePath(new TreePath(body, st), es.getExpression());
      if (es.getExpression() instanceof MethodInvocationTree call
          && call.getMethodSelect() instanceof IdentifierTree id
          && id.getName().contentEquals("this")
          && ctx.trees().getElement(statement) instanceof ExecutableElement delegate) {
        List<Given> given = new ArrayList<>();
        for (ExpressionTree a : call.getArguments()) {
          given.add(evaluate(new TreePath(statement, a), env));
        }
        found = assigned(field, delegate, given, depth + 1);
      } else if (es.getExpression() instanceof AssignmentTree a
          && ctx.trees().getElement(new TreePath(statement, a.getVariable())) == field) {
        found = evaluate(new TreePath(statement, a.getExpression()), env);
      }
    }
    return found;
  }

  /**
   * Whether {@code t} assigns {@code field}, by its name ({@code device = ..}, {@code this.device =
   * ..}).
   */
  private static boolean assigns(Tree t, VariableElement field) {
    if (!(t instanceof AssignmentTree a)) {
      return false;
    }
    ExpressionTree target = a.getVariable();
    return (target instanceof IdentifierTree id && id.getName().equals(field.getSimpleName()))
        || (target instanceof MemberSelectTree s
            && s.getIdentifier().equals(field.getSimpleName()));
  }

  /**
   * An expression of a constructor given {@code env}: a parameter, {@code null}, a choice on
   * whether a parameter is null ({@code device == null ? Device.cpu() : device}), or a device
   * written in the code.
   */
  private Given evaluate(TreePath path, Map<Element, Given> env) {
    ExpressionTree e = MethodInterpreter.skipParens((ExpressionTree) path.getLeaf());
    TreePath p = e == path.getLeaf() ? path : new TreePath(path, e);
    if (e.getKind() == Tree.Kind.NULL_LITERAL) {
      return Given.NULL;
    }
    if (e instanceof IdentifierTree) {
      Given g = env.get(ctx.trees().getElement(p));
      if (g != null) {
        return g;
      }
    }
    if (e instanceof ConditionalExpressionTree c) {
      Boolean isNull = nullTest(new TreePath(p, c.getCondition()), env);
      Given whenTrue = evaluate(new TreePath(p, c.getTrueExpression()), env);
      Given whenFalse = evaluate(new TreePath(p, c.getFalseExpression()), env);
      return isNull == null ? whenTrue.join(whenFalse) : isNull ? whenTrue : whenFalse;
    }
    return argument(p);
  }

  /**
   * Whether a condition {@code x == null} (or {@code x != null}) holds for what {@code x} is in
   * {@code env}; null where that is not known.
   */
  private Boolean nullTest(TreePath condition, Map<Element, Given> env) {
    ExpressionTree c = MethodInterpreter.skipParens((ExpressionTree) condition.getLeaf());
    if (!(c instanceof BinaryTree b)
        || (b.getKind() != Tree.Kind.EQUAL_TO && b.getKind() != Tree.Kind.NOT_EQUAL_TO)) {
      return null;
    }
    boolean leftNull = b.getLeftOperand().getKind() == Tree.Kind.NULL_LITERAL;
    boolean rightNull = b.getRightOperand().getKind() == Tree.Kind.NULL_LITERAL;
    if (leftNull == rightNull) {
      return null;
    }
    ExpressionTree tested = leftNull ? b.getRightOperand() : b.getLeftOperand();
    Given g = evaluate(new TreePath(condition, tested), env);
    Boolean isNull = g.isNull() ? Boolean.TRUE : g.known() ? Boolean.FALSE : null;
    if (isNull == null) {
      return null;
    }
    return b.getKind() == Tree.Kind.EQUAL_TO ? isNull : Boolean.valueOf(!isNull);
  }

  /** A {@code new}'s argument, or a device written in a constructor: {@code Device.cpu()}. */
  private Given argument(TreePath path) {
    ExpressionTree e = MethodInterpreter.skipParens((ExpressionTree) path.getLeaf());
    if (e.getKind() == Tree.Kind.NULL_LITERAL) {
      return Given.NULL;
    }
    TypeMirror t = ctx.trees().getTypeMirror(path);
    return t != null && ctx.types().isDevice(t) ? Given.of(ctx.devicePlace(path)) : Given.UNKNOWN;
  }
}
