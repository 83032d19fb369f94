package dev.ondevice.processor.analysis;

import com.sun.source.tree.AssignmentTree;
import com.sun.source.tree.ExpressionStatementTree;
import com.sun.source.tree.ExpressionTree;
import com.sun.source.tree.MemberSelectTree;
import com.sun.source.tree.MethodInvocationTree;
import com.sun.source.tree.MethodTree;
import com.sun.source.tree.NewClassTree;
import com.sun.source.tree.StatementTree;
import com.sun.source.util.TreePath;
import com.sun.source.util.TreePathScanner;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import javax.lang.model.element.Element;
import javax.lang.model.element.ElementKind;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.Modifier;
import javax.lang.model.element.TypeElement;
import javax.lang.model.element.VariableElement;

/**
 * Where a model held by a field of a class that is not a model is, read from the moves in the
 * source of its compilation unit: a trainer's {@code model.toDevice(device)} in its constructor
 * (the field, or the constructor's parameter stored in it), {@code agent.q.toDevice(device)} in the
 * caller, or {@code net.toDevice(device); new Trainer(net)} where the constructor stores {@code
 * net} in the field. Every move going to one device gives that device; moves to devices named in
 * other methods give a device known to be one (not the CPU) but not which; no move, or a move to
 * the CPU beside others, gives nothing known. The model is taken to be moved before its methods are
 * used, as the trainers of the field do.
 */
final class HeldModels {
  private final IdentityHashMap<VariableElement, Place> known = new IdentityHashMap<>();

  /**
   * The place of the model field {@code f} of a class that is not a model; unknown where no move is
   * seen.
   */
  Place of(VariableElement f, AnalysisContext ctx) {
    Place cached = known.get(f);
    if (cached != null) {
      return cached;
    }
    known.put(f, Place.UNKNOWN);
    Place p = Place.UNKNOWN;
    if (f.getEnclosingElement() instanceof TypeElement owner) {
      TreePath ownerPath = ctx.pathOf(owner);
      if (ownerPath != null && ownerPath.getCompilationUnit() == ctx.unit()) {
        p = fromMoves(f, owner, ctx);
      }
    }
    known.put(f, p);
    return p;
  }

  private static Place fromMoves(VariableElement f, TypeElement owner, AnalysisContext ctx) {
    IdentityHashMap<Element, VariableElement> storedIn = storedInFields(owner, ctx);
    List<Place> destinations = new ArrayList<>();
    IdentityHashMap<Element, List<TreePath>> localMoves = new IdentityHashMap<>();
    List<IdentityHashMap<Element, VariableElement>> constructorCalls = new ArrayList<>();
    new TreePathScanner<Void, Void>() {
      @Override
      public Void visitMethodInvocation(MethodInvocationTree node, Void unused) {
        Element m = ctx.trees().getElement(getCurrentPath());
        MethodSemantics s = m instanceof ExecutableElement method ? ctx.semantics(method) : null;
        if (s != null
            && s.inPlace
            && s.deviceParameter == 0
            && node.getArguments().size() == 1
            && node.getMethodSelect() instanceof MemberSelectTree select) {
          Element receiver =
              ctx.trees()
                  .getElement(
                      new TreePath(new TreePath(getCurrentPath(), select), select.getExpression()));
          TreePath to = new TreePath(getCurrentPath(), node.getArguments().get(0));
          if (receiver != null && ctx.types().isModel(receiver.asType())) {
            if (receiver == f || storedIn.get(receiver) == f) {
              destinations.add(destination(to, owner, storedIn, new IdentityHashMap<>(), ctx));
            } else if (receiver.getKind() == ElementKind.LOCAL_VARIABLE
                || receiver.getKind() == ElementKind.PARAMETER) {
              localMoves.computeIfAbsent(receiver, k -> new ArrayList<>()).add(to);
            }
          }
        }
        return super.visitMethodInvocation(node, null);
      }

      @Override
      public Void visitNewClass(NewClassTree node, Void unused) {
        if (ctx.trees().getElement(getCurrentPath()) instanceof ExecutableElement constructor
            && constructor.getEnclosingElement() == owner) {
          IdentityHashMap<Element, VariableElement> argumentsStored = new IdentityHashMap<>();
          for (int i = 0;
              i < node.getArguments().size() && i < constructor.getParameters().size();
              i++) {
            Element arg =
                ctx.trees().getElement(new TreePath(getCurrentPath(), node.getArguments().get(i)));
            VariableElement field = storedIn.get(constructor.getParameters().get(i));
            if (arg != null && field != null) {
              argumentsStored.put(arg, field);
            }
          }
          constructorCalls.add(argumentsStored);
        }
        return super.visitNewClass(node, null);
      }
    }.scan(ctx.unit(), null);
    for (IdentityHashMap<Element, VariableElement> call : constructorCalls) {
      call.forEach(
          (arg, field) -> {
            if (field == f) {
              localMoves
                  .getOrDefault(arg, List.of())
                  .forEach(to -> destinations.add(destination(to, owner, storedIn, call, ctx)));
            }
          });
    }
    return joined(f, destinations);
  }

  /**
   * Every move to one place gives it; moves to devices (never the CPU) named differently give one
   * device, unnamed.
   */
  private static Place joined(VariableElement f, List<Place> destinations) {
    if (destinations.isEmpty()) {
      return Place.UNKNOWN;
    }
    Place first = destinations.get(0);
    if (destinations.stream().allMatch(first::equals)) {
      return first;
    }
    boolean devices = destinations.stream().allMatch(p -> p.isKnown() && !Place.CPU.equals(p));
    return devices
        ? Place.symbol(f, "the device of " + f.getSimpleName()).throughCalls()
        : Place.UNKNOWN;
  }

  /**
   * The place a move's device argument names: a {@code Device} field of the model's holder (or the
   * constructor's parameter stored in one, or the caller's variable given to the constructor that
   * stores it: {@code new Trainer(net, device)}) is that field's device, as its other methods read
   * it; a variable of another method is a device named there.
   */
  private static Place destination(
      TreePath argument,
      TypeElement owner,
      IdentityHashMap<Element, VariableElement> storedIn,
      IdentityHashMap<Element, VariableElement> givenToConstructor,
      AnalysisContext ctx) {
    Element e = ctx.trees().getElement(argument);
    if (e == null || !ctx.types().isDevice(e.asType())) {
      return Place.UNKNOWN;
    }
    VariableElement field =
        e.getKind() == ElementKind.FIELD
            ? (VariableElement) e
            : storedIn.containsKey(e) ? storedIn.get(e) : givenToConstructor.get(e);
    if (field != null && field.getEnclosingElement() == owner) {
      Place initial = ctx.finalDevice(field);
      return initial != null ? initial : Place.symbol(field, field.getSimpleName().toString());
    }
    if (field != null && field.getModifiers().contains(Modifier.STATIC)) {
      // Constants.device, a configuration's device: the same device wherever it is read.
      Place initial = ctx.finalDevice(field);
      return initial != null ? initial : Place.symbol(field, ctx.text(argument.getLeaf()));
    }
    if (e instanceof VariableElement variable
        && (e.getKind() == ElementKind.PARAMETER || e.getKind() == ElementKind.LOCAL_VARIABLE)) {
      return Place.symbol(variable, variable.getSimpleName().toString()).throughCalls();
    }
    return Place.UNKNOWN;
  }

  /**
   * The constructors' parameters each stores in a field of its class ({@code this.model = model;}).
   */
  private static IdentityHashMap<Element, VariableElement> storedInFields(
      TypeElement owner, AnalysisContext ctx) {
    IdentityHashMap<Element, VariableElement> stored = new IdentityHashMap<>();
    for (Element member : owner.getEnclosedElements()) {
      TreePath path = member.getKind() == ElementKind.CONSTRUCTOR ? ctx.pathOf(member) : null;
      if (path == null || !(path.getLeaf() instanceof MethodTree tree) || tree.getBody() == null) {
        continue;
      }
      TreePath body = new TreePath(path, tree.getBody());
      for (StatementTree st : tree.getBody().getStatements()) {
        if (st instanceof ExpressionStatementTree es
            && es.getExpression() instanceof AssignmentTree a) {
          TreePath assignment = new TreePath(new TreePath(body, st), a);
          Element target = ctx.trees().getElement(new TreePath(assignment, a.getVariable()));
          ExpressionTree value = MethodInterpreter.skipParens(a.getExpression());
          Element source = ctx.trees().getElement(new TreePath(assignment, value));
          if (target instanceof VariableElement field
              && target.getKind() == ElementKind.FIELD
              && source != null
              && source.getKind() == ElementKind.PARAMETER) {
            stored.put(source, field);
          }
        }
      }
    }
    return stored;
  }
}
