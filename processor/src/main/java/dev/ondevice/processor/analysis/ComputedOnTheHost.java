package dev.ondevice.processor.analysis;

import com.sun.source.tree.AssignmentTree;
import com.sun.source.tree.ConditionalExpressionTree;
import com.sun.source.tree.ExpressionTree;
import com.sun.source.tree.IdentifierTree;
import com.sun.source.tree.LambdaExpressionTree;
import com.sun.source.tree.MemberSelectTree;
import com.sun.source.tree.MethodInvocationTree;
import com.sun.source.tree.MethodTree;
import com.sun.source.tree.ReturnTree;
import com.sun.source.tree.Tree;
import com.sun.source.tree.VariableTree;
import com.sun.source.util.TreePath;
import com.sun.source.util.TreePathScanner;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Optional;
import java.util.Set;
import javax.lang.model.element.Element;
import javax.lang.model.element.ElementKind;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.Modifier;
import javax.lang.model.type.TypeMirror;

/**
 * Tensors computed on the CPU from factories alone, through local variables and the methods of the
 * compilation ({@code relativePositionalEncoding(qlen, klen)} building sines of {@code
 * Tensor.arange(...)}), so that moving them to a device copies what could have been made there. A
 * tensor is computed on the host when it is a factory call without a device (not one copying Java
 * data), an op of the tensor API on such tensors only, a local variable initialised so, never
 * assigned again, never written in place and read only to be moved, or a call of a method of the
 * compilation that no subclass can replace whose every return is computed on the host, given that
 * its tensor arguments are. Depth and recursion are bounded.
 */
final class ComputedOnTheHost {
  /** How deep calls are followed from the move. */
  private static final int MAX_DEPTH = 3;

  /**
   * What a method returns: the factory its result is computed from, where it needs its tensor
   * parameters computed on the host too; empty where its result is not computed on the host.
   */
  private record Summary(TreePath factory, boolean needsArguments) {}

  /**
   * An expression computed on the host: from {@code factory} (null where only from parameters), and
   * needing the enclosing method's tensor parameters to be.
   */
  private record Made(TreePath factory, boolean needsParameters) {
    Made and(Made other) {
      return other == null
          ? null
          : new Made(
              factory != null ? factory : other.factory, needsParameters || other.needsParameters);
    }
  }

  private final AnalysisContext ctx;
  private final IdentityHashMap<ExecutableElement, Optional<Summary>> summaries =
      new IdentityHashMap<>();
  private final Set<ExecutableElement> inProgress =
      Collections.newSetFromMap(new IdentityHashMap<>());

  /** Methods in progress whose look met the depth limit: their summaries are not kept. */
  private final Set<ExecutableElement> cutShort =
      Collections.newSetFromMap(new IdentityHashMap<>());

  ComputedOnTheHost(AnalysisContext ctx) {
    this.ctx = ctx;
  }

  /**
   * The factory the receiver of the move at {@code move} is computed from on the host, through a
   * variable or a method call ({@code posEmb} of {@code posEmb = posEmb.to(device)}); null where it
   * is not.
   */
  TreePath factoryBehind(TreePath receiver, TreePath move) {
    Tree leaf = MethodInterpreter.skipParens(receiver.getLeaf());
    if (leaf instanceof IdentifierTree) {
      return movedLocal(receiver, move);
    }
    Made made = made(receiver, 0);
    return made == null || made.needsParameters ? null : made.factory;
  }

  private TreePath movedLocal(TreePath receiver, TreePath move) {
    Element local = ctx.trees().getElement(receiver);
    if (local == null || local.getKind() != ElementKind.LOCAL_VARIABLE) {
      return null;
    }
    TreePath declaration = ctx.pathOf(local);
    TreePath method = LocalInitializers.enclosingMethod(declaration);
    if (declaration == null
        || method == null
        || method.getLeaf() != leafOf(LocalInitializers.enclosingMethod(move))
        || !(declaration.getLeaf() instanceof VariableTree variable)
        || variable.getInitializer() == null
        || !onlyMovedAway(method, local, receiver.getLeaf(), move)) {
      return null;
    }
    Made made = made(new TreePath(declaration, variable.getInitializer()), 0);
    return made == null || made.needsParameters ? null : made.factory;
  }

  /**
   * Whether {@code local} is read only as the receiver {@code read} of the move, and assigned only
   * by that move's own statement ({@code x = x.to(device)}); no in-place op writes it.
   */
  private boolean onlyMovedAway(TreePath method, Element local, Tree read, TreePath move) {
    Tree reassignedByTheMove =
        move.getParentPath().getLeaf() instanceof AssignmentTree a
                && ctx.trees().getElement(new TreePath(move.getParentPath(), a.getVariable()))
                    == local
            ? a
            : null;
    boolean[] other = {false};
    new TreePathScanner<Void, Void>() {
      @Override
      public Void visitAssignment(AssignmentTree node, Void unused) {
        if (node != reassignedByTheMove
            && ctx.trees().getElement(new TreePath(getCurrentPath(), node.getVariable()))
                == local) {
          other[0] = true;
        }
        if (node == reassignedByTheMove) {
          return scan(node.getExpression(), null); // the variable assigned is not a read
        }
        return super.visitAssignment(node, null);
      }

      @Override
      public Void visitIdentifier(IdentifierTree node, Void unused) {
        if (node != read
            && ctx.trees().getElement(getCurrentPath()) == local
            && readBeforeReassigned(getCurrentPath())) {
          other[0] = true;
        }
        return null;
      }

      /** A read after the move's statement reassigned the variable reads the moved tensor. */
      private boolean readBeforeReassigned(TreePath use) {
        if (reassignedByTheMove == null) {
          return true;
        }
        long at = ctx.trees().getSourcePositions().getStartPosition(ctx.unit(), use.getLeaf());
        long moved =
            ctx.trees().getSourcePositions().getEndPosition(ctx.unit(), reassignedByTheMove);
        return at < moved || inLoop(use);
      }

      private boolean inLoop(TreePath use) {
        for (TreePath p = use;
            p != null && p.getLeaf() != method.getLeaf();
            p = p.getParentPath()) {
          Tree.Kind k = p.getLeaf().getKind();
          if (k == Tree.Kind.FOR_LOOP
              || k == Tree.Kind.ENHANCED_FOR_LOOP
              || k == Tree.Kind.WHILE_LOOP
              || k == Tree.Kind.DO_WHILE_LOOP) {
            return true;
          }
        }
        return false;
      }
    }.scan(method, null);
    return !other[0];
  }

  /** Whether {@code e} is computed on the host; {@code depth} counts the calls followed. */
  private Made made(TreePath e, int depth) {
    Tree t = MethodInterpreter.skipParens(e.getLeaf());
    TreePath path = t == e.getLeaf() ? e : new TreePath(e, t);
    if (t instanceof ConditionalExpressionTree c) {
      Made a = made(new TreePath(path, c.getTrueExpression()), depth);
      return a == null ? null : a.and(made(new TreePath(path, c.getFalseExpression()), depth));
    }
    if (t instanceof IdentifierTree) {
      Element v = ctx.trees().getElement(path);
      if (v != null && v.getKind() == ElementKind.PARAMETER) {
        return new Made(null, true);
      }
      return v != null && v.getKind() == ElementKind.LOCAL_VARIABLE ? local(path, v, depth) : null;
    }
    if (!(t instanceof MethodInvocationTree call)
        || !(ctx.trees().getElement(path) instanceof ExecutableElement m)) {
      return null;
    }
    MethodSemantics s = ctx.semantics(m);
    switch (s.kind) {
      case FACTORY -> {
        return s.deviceParameter < 0
                && !s.fromHostData
                && tensorArguments(path, call, depth, true) != null
            ? new Made(path, false)
            : null;
      }
      case SAME_DEVICE -> {
        Made args = s.inPlace ? null : tensorArguments(path, call, depth, false);
        if (args == null || m.getModifiers().contains(Modifier.STATIC)) {
          return args;
        }
        return call.getMethodSelect() instanceof MemberSelectTree select
            ? combine(
                made(new TreePath(new TreePath(path, select), select.getExpression()), depth), args)
            : null;
      }
      default -> {
        if (!isMethodOfTheCompilation(path)) {
          return null;
        }
        if (depth >= MAX_DEPTH) {
          cutShort.addAll(inProgress); // what they find is less than a shallower look would
          return null;
        }
        Summary summary = summary(m, depth + 1);
        if (summary == null) {
          return null;
        }
        Made made = new Made(summary.factory, false);
        return summary.needsArguments
            ? combine(made, tensorArguments(path, call, depth, false))
            : made;
      }
    }
  }

  private static Made combine(Made a, Made b) {
    return a == null ? null : a.and(b);
  }

  /**
   * The tensor arguments of a call, all computed on the host (a factory's must be none); a neutral
   * result ({@code Made(null, false)}) where there are none; null otherwise.
   */
  private Made tensorArguments(
      TreePath path, MethodInvocationTree call, int depth, boolean noneAllowed) {
    Made all = new Made(null, false);
    for (ExpressionTree a : call.getArguments()) {
      TreePath ap = new TreePath(path, a);
      TypeMirror type = ctx.trees().getTypeMirror(ap);
      if (type == null) {
        return null;
      }
      boolean tensor = ctx.types().isTensor(type);
      if ((tensor || ctx.containers().holdsTensors(type)) && noneAllowed) {
        return null;
      }
      if (tensor) {
        all = combine(all, made(ap, depth));
      } else if (ctx.containers().holdsTensors(type)) {
        all = combine(all, listOf(ap, depth));
      }
      if (all == null) {
        return null;
      }
    }
    return all;
  }

  /** {@code List.of(a, b)} of tensors computed on the host (the argument of {@code Tensor.cat}). */
  private Made listOf(TreePath list, int depth) {
    if (!(MethodInterpreter.skipParens(list.getLeaf()) instanceof MethodInvocationTree of)
        || !(of.getMethodSelect() instanceof MemberSelectTree select)
        || !select.getIdentifier().contentEquals("of")) {
      return null;
    }
    Made all = new Made(null, false);
    for (ExpressionTree a : of.getArguments()) {
      all =
          combine(
              all,
              ctx.types().isTensor(ctx.trees().getTypeMirror(new TreePath(list, a)))
                  ? made(new TreePath(list, a), depth)
                  : null);
    }
    return all;
  }

  /**
   * The summary of a method's returns, computed once; not kept when the depth limit cut the look
   * short, as a later call of the method from nearer the move would see more.
   */
  private Summary summary(ExecutableElement m, int depth) {
    Optional<Summary> known = summaries.get(m);
    if (known != null) {
      return known.orElse(null);
    }
    if (!inProgress.add(m)) {
      return null;
    }
    Summary s = null;
    try {
      TreePath path = ctx.pathOf(m);
      if (path != null && path.getLeaf() instanceof MethodTree method && method.getBody() != null) {
        s = returns(new TreePath(path, method.getBody()), depth);
      }
    } finally {
      inProgress.remove(m);
    }
    if (!cutShort.remove(m)) {
      summaries.put(m, Optional.ofNullable(s));
    }
    return s;
  }

  private Summary returns(TreePath body, int depth) {
    Made[] all = {new Made(null, false)};
    boolean[] any = {false};
    new TreePathScanner<Void, Void>() {
      @Override
      public Void visitReturn(ReturnTree node, Void unused) {
        any[0] = true;
        all[0] =
            node.getExpression() == null
                ? null
                : combine(
                    all[0], made(new TreePath(getCurrentPath(), node.getExpression()), depth));
        return null;
      }

      @Override
      public Void visitLambdaExpression(LambdaExpressionTree node, Void unused) {
        return null;
      }

      @Override
      public Void visitClass(com.sun.source.tree.ClassTree node, Void unused) {
        return null;
      }
    }.scan(body, null);
    return any[0] && all[0] != null && (all[0].factory != null || all[0].needsParameters)
        ? new Summary(all[0].factory, all[0].needsParameters)
        : null;
  }

  /** A local variable initialised on the host, never assigned again nor written in place. */
  private Made local(TreePath use, Element local, int depth) {
    TreePath initializer = LocalInitializers.soleInitializer(ctx, local);
    TreePath method = LocalInitializers.enclosingMethod(use);
    if (initializer == null
        || method == null
        || method.getLeaf() != LocalInitializers.enclosingMethod(initializer).getLeaf()
        || writtenInPlace(method, local)) {
      return null;
    }
    return made(initializer, depth);
  }

  /** Whether {@code local} is the receiver of an in-place op in {@code method}. */
  private boolean writtenInPlace(TreePath method, Element local) {
    boolean[] found = {false};
    new TreePathScanner<Void, Void>() {
      @Override
      public Void visitMethodInvocation(MethodInvocationTree node, Void unused) {
        if (node.getMethodSelect() instanceof MemberSelectTree select
            && ctx.trees().getElement(getCurrentPath()) instanceof ExecutableElement m
            && ctx.semantics(m).inPlace
            && ctx.trees()
                    .getElement(
                        new TreePath(
                            new TreePath(getCurrentPath(), select), select.getExpression()))
                == local) {
          found[0] = true;
        }
        return super.visitMethodInvocation(node, null);
      }
    }.scan(method, null);
    return found[0];
  }

  /** A call of a method with its body here that no subclass elsewhere can replace. */
  private boolean isMethodOfTheCompilation(TreePath path) {
    if (!(ctx.trees().getElement(path) instanceof ExecutableElement m)
        || ctx.pathOf(m) == null
        || m.getModifiers().contains(Modifier.ABSTRACT)) {
      return false;
    }
    Element owner = m.getEnclosingElement();
    return m.getModifiers().contains(Modifier.STATIC)
        || m.getModifiers().contains(Modifier.PRIVATE)
        || m.getModifiers().contains(Modifier.FINAL)
        || owner.getModifiers().contains(Modifier.FINAL)
        || owner.getKind() == ElementKind.RECORD
        || owner.getKind() == ElementKind.ENUM;
  }

  private static Tree leafOf(TreePath p) {
    return p == null ? null : p.getLeaf();
  }
}
