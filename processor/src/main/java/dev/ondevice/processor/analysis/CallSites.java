package dev.ondevice.processor.analysis;

import com.sun.source.tree.ClassTree;
import com.sun.source.tree.ExpressionTree;
import com.sun.source.tree.MethodInvocationTree;
import com.sun.source.tree.MethodTree;
import com.sun.source.tree.ThrowTree;
import com.sun.source.tree.Tree;
import com.sun.source.util.TreePath;
import com.sun.source.util.TreePathScanner;
import com.sun.source.util.Trees;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.lang.model.element.Element;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.Modifier;
import javax.lang.model.element.TypeElement;
import javax.lang.model.util.Elements;

/**
 * The calls between the bodies of one top-level class, and the arguments its methods are given. The
 * bodies are interpreted callers first ({@link #callersFirst}), and each call of a method of the
 * class records the values of its arguments, so that a method whose every caller has been
 * interpreted knows where its tensor parameters are: {@code accuracy(preds, y)} called only with
 * tensors on the device has them there, and {@code log(b.targets())} only with the batch's, on the
 * CPU. Methods others may call (public or protected ones) and methods in a cycle of calls have no
 * such knowledge.
 */
final class CallSites {
  private final IdentityHashMap<ExecutableElement, Set<Tree>> callers = new IdentityHashMap<>();
  private final Set<Tree> interpreted = Collections.newSetFromMap(new IdentityHashMap<>());
  private final IdentityHashMap<ExecutableElement, Value[]> arguments = new IdentityHashMap<>();

  /** Per method: for each parameter, whether every call recorded gives it its receiver's place. */
  private final IdentityHashMap<ExecutableElement, boolean[]> receiversPlace =
      new IdentityHashMap<>();

  /** Per method: for each parameter, whether every call recorded passes {@code null}. */
  private final IdentityHashMap<ExecutableElement, boolean[]> nullEverywhere =
      new IdentityHashMap<>();

  /**
   * Per method of the class: for each parameter, whether its body may change the container it is
   * given.
   */
  private final IdentityHashMap<ExecutableElement, boolean[]> changesItsParameters =
      new IdentityHashMap<>();

  /**
   * Abstract methods called in the class whose one implementation is in it, with that
   * implementation.
   */
  private final IdentityHashMap<ExecutableElement, ExecutableElement> soleImplementations =
      new IdentityHashMap<>();

  /**
   * Orders {@code bodies} (method bodies, initializers, given in the order of the source) so that a
   * method comes after the bodies that call it, where no cycle of calls prevents it, and records
   * who calls whom.
   */
  List<TreePath> callersFirst(List<TreePath> bodies, Trees trees, Elements elements) {
    Map<ExecutableElement, TreePath> methods = new LinkedHashMap<>();
    for (TreePath b : bodies) {
      if (b.getLeaf() instanceof MethodTree && trees.getElement(b) instanceof ExecutableElement m) {
        methods.put(m, b);
      }
    }
    IdentityHashMap<Tree, List<TreePath>> callees = new IdentityHashMap<>();
    for (TreePath b : bodies) {
      List<TreePath> called = new ArrayList<>();
      calls(
          b,
          trees,
          invoked -> {
            ExecutableElement m =
                methods.containsKey(invoked) && !onlyThrows(methods.get(invoked))
                    ? invoked
                    : soleImplementations.computeIfAbsent(
                        invoked, k -> soleImplementation(k, methods.keySet(), elements));
            TreePath callee = m == null ? null : methods.get(m);
            if (callee != null) {
              called.add(callee);
              callers
                  .computeIfAbsent(m, k -> Collections.newSetFromMap(new IdentityHashMap<>()))
                  .add(b.getLeaf());
            }
          });
      callees.put(b.getLeaf(), called);
    }
    List<TreePath> postOrder = new ArrayList<>();
    Set<Tree> seen = Collections.newSetFromMap(new IdentityHashMap<>());
    for (TreePath b : bodies) {
      visit(b, callees, seen, postOrder);
    }
    Collections.reverse(postOrder);
    return postOrder;
  }

  private static void visit(
      TreePath b,
      IdentityHashMap<Tree, List<TreePath>> callees,
      Set<Tree> seen,
      List<TreePath> out) {
    if (!seen.add(b.getLeaf())) {
      return;
    }
    for (TreePath c : callees.get(b.getLeaf())) {
      visit(c, callees, seen, out);
    }
    out.add(b);
  }

  /**
   * The one method among {@code methods} that implements {@code m}, abstract or a stub that only
   * throws ({@code produceTrainOutput} of the one subclass in the file, the {@code computeMetrics}
   * a subclass must provide), or null where there are none or several: a call of {@code m} runs it,
   * as far as this class can tell.
   */
  private static ExecutableElement soleImplementation(
      ExecutableElement m, Set<ExecutableElement> methods, Elements elements) {
    if (m.getModifiers().contains(Modifier.STATIC) || m.getModifiers().contains(Modifier.PRIVATE)) {
      return null;
    }
    ExecutableElement found = null;
    for (ExecutableElement candidate : methods) {
      if (candidate != m
          && candidate.getSimpleName().equals(m.getSimpleName())
          && candidate.getEnclosingElement() instanceof TypeElement type
          && elements.overrides(candidate, m, type)) {
        if (found != null) {
          return null;
        }
        found = candidate;
      }
    }
    return found;
  }

  /**
   * Whether a method's body is one {@code throw}: a stub its subclasses must override ({@code
   * NotImplementedError}).
   */
  private static boolean onlyThrows(TreePath method) {
    return method.getLeaf() instanceof MethodTree tree
        && tree.getBody() != null
        && tree.getBody().getStatements().size() == 1
        && tree.getBody().getStatements().get(0) instanceof ThrowTree;
  }

  /**
   * The method a call of {@code m} runs: its one implementation in the class for an abstract one,
   * else {@code m}.
   */
  ExecutableElement resolved(ExecutableElement m) {
    ExecutableElement implementation = soleImplementations.get(m);
    return implementation == null ? m : implementation;
  }

  /**
   * The methods called in a body, lambdas included, not in the classes it declares (bodies of their
   * own).
   */
  private static void calls(
      TreePath body, Trees trees, java.util.function.Consumer<ExecutableElement> action) {
    new TreePathScanner<Void, Void>() {
      @Override
      public Void visitMethodInvocation(MethodInvocationTree node, Void unused) {
        if (trees.getElement(getCurrentPath()) instanceof ExecutableElement m) {
          action.accept(m);
        }
        return super.visitMethodInvocation(node, null);
      }

      @Override
      public Void visitClass(ClassTree node, Void unused) {
        return null;
      }
    }.scan(body, null);
  }

  /** Marks a body as interpreted: the calls it makes are all recorded. */
  void interpreted(Tree body) {
    interpreted.add(body);
  }

  /**
   * Records the values a call of {@code m} gives its parameters, and whether each is where the
   * call's receiver is ({@code model.step(loader, device)} after {@code model.toDevice(device)}).
   */
  void record(
      ExecutableElement m,
      Value receiver,
      List<Value> args,
      List<? extends ExpressionTree> argumentTrees) {
    if (!callers.containsKey(m) || m.isVarArgs()) {
      return;
    }
    Value[] known = arguments.computeIfAbsent(m, k -> new Value[args.size()]);
    boolean[] same = receiversPlace.computeIfAbsent(m, k -> filled(args.size()));
    boolean[] nulls = nullEverywhere.computeIfAbsent(m, k -> filled(args.size()));
    for (int i = 0; i < known.length && i < args.size(); i++) {
      nulls[i] &=
          i < argumentTrees.size()
              && MethodInterpreter.skipParens(argumentTrees.get(i)).getKind()
                  == Tree.Kind.NULL_LITERAL;
      known[i] = known[i] == null ? args.get(i) : known[i].join(args.get(i));
      same[i] &=
          receiver != null
              && receiver.place().kind() == Place.Kind.SYMBOL
              && receiver.place().equals(args.get(i).place());
    }
  }

  private static boolean[] filled(int n) {
    boolean[] all = new boolean[n];
    java.util.Arrays.fill(all, true);
    return all;
  }

  /**
   * Whether every call of {@code m} in the class gives parameter {@code i} the device its receiver
   * is on ({@code model.step(loader, device)} after {@code model.toDevice(device)}); false where
   * {@code m} may be called from elsewhere, or from a body not interpreted yet.
   */
  boolean givesTheReceiversPlace(ExecutableElement m, int i) {
    boolean[] same = receiversPlace.get(m);
    return argument(m, i) != null && same != null && i < same.length && same[i];
  }

  /**
   * Whether every call of {@code m} in the class passes {@code null} as parameter {@code i} ({@code
   * Rnn.dynamicRnn(cell, inputs, null)}); false where {@code m} may be called from elsewhere, or
   * from a body not interpreted yet.
   */
  boolean givesNullEverywhere(ExecutableElement m, int i) {
    boolean[] nulls = nullEverywhere.get(m);
    return argument(m, i) != null && nulls != null && i < nulls.length && nulls[i];
  }

  /**
   * The value every call of {@code m} in the class gives parameter {@code i}, or null where that is
   * not known: {@code m} may be called from elsewhere, or from a body not interpreted yet.
   */
  Value argument(ExecutableElement m, int i) {
    Set<Tree> from = callers.get(m);
    if (from == null
        || m.getModifiers().contains(Modifier.PUBLIC)
        || m.getModifiers().contains(Modifier.PROTECTED)
        || !interpreted.containsAll(from)) {
      return null;
    }
    Value[] known = arguments.get(m);
    return known == null || i >= known.length ? null : known[i];
  }

  /**
   * Whether {@code m} may change the container it is given as parameter {@code i}: any method whose
   * body is not in this class, or one that stores into it ({@code out[i] = x}), calls a method on
   * it other than a read, or hands it on. Answered once per method.
   */
  boolean mayChangeItsParameter(ExecutableElement m, int i, Trees trees) {
    MethodTree tree = callers.containsKey(m) ? trees.getTree(m) : null;
    if (tree == null || tree.getBody() == null || i >= tree.getParameters().size()) {
      return true;
    }
    return changesItsParameters
        .computeIfAbsent(
            m,
            k -> {
              boolean[] changes = new boolean[tree.getParameters().size()];
              for (int p = 0; p < changes.length; p++) {
                javax.lang.model.element.Name name = tree.getParameters().get(p).getName();
                changes[p] =
                    TreeSearch.contains(tree.getBody(), x -> writesInto(x, name), x -> false);
              }
              return changes;
            })[i];
  }

  /** Whether {@code x} stores into, changes or hands on the container named {@code name}. */
  private static boolean writesInto(Tree x, javax.lang.model.element.Name name) {
    if (x instanceof com.sun.source.tree.AssignmentTree a
        && a.getVariable() instanceof com.sun.source.tree.ArrayAccessTree access) {
      return names(access.getExpression(), name);
    }
    if (!(x instanceof MethodInvocationTree call)) {
      return false;
    }
    return call.getArguments().stream().anyMatch(arg -> names(arg, name))
        || (call.getMethodSelect() instanceof com.sun.source.tree.MemberSelectTree select
            && names(select.getExpression(), name)
            && !TensorContainers.reads(select.getIdentifier()));
  }

  private static boolean names(
      com.sun.source.tree.ExpressionTree e, javax.lang.model.element.Name name) {
    return MethodInterpreter.skipParens(e) instanceof com.sun.source.tree.IdentifierTree id
        && id.getName().equals(name);
  }

  /** Whether an element is a method whose calls this records; for the interpreter's cheap test. */
  boolean records(Element e) {
    return e instanceof ExecutableElement m && callers.containsKey(m);
  }
}
