package dev.ondevice.processor.analysis;

import com.sun.source.tree.ArrayAccessTree;
import com.sun.source.tree.AssignmentTree;
import com.sun.source.tree.BinaryTree;
import com.sun.source.tree.BlockTree;
import com.sun.source.tree.EnhancedForLoopTree;
import com.sun.source.tree.ExpressionStatementTree;
import com.sun.source.tree.ExpressionTree;
import com.sun.source.tree.IdentifierTree;
import com.sun.source.tree.MemberSelectTree;
import com.sun.source.tree.MethodInvocationTree;
import com.sun.source.tree.MethodTree;
import com.sun.source.tree.NewArrayTree;
import com.sun.source.tree.ParenthesizedTree;
import com.sun.source.tree.StatementTree;
import com.sun.source.tree.Tree;
import com.sun.source.tree.TypeCastTree;
import com.sun.source.tree.VariableTree;
import com.sun.source.util.TreePath;
import com.sun.source.util.TreePathScanner;
import com.sun.source.util.TreeScanner;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.lang.model.element.Element;
import javax.lang.model.element.ElementKind;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.Modifier;
import javax.lang.model.element.Name;
import javax.lang.model.element.TypeElement;
import javax.lang.model.element.VariableElement;
import javax.lang.model.util.Elements;

/**
 * Which tensor parameters of a model's method it uses only in ways that do not depend on their
 * device, read from the method's syntax alone (so that it reads the same before and after javac
 * has attributed the method's class): a host read or a shape query ({@code lengths.toLongArray()}),
 * a move to a device ({@code x.to(device())}, also assigned back to the parameter before any other
 * use, after which it is on that device), a copy into a parameter or buffer of values computed from
 * it alone ({@code emb.weight().assign(vectors.div(norms))}), or a parameter of another method of
 * the model that is itself used so ({@code forward(x, lengths)}); followed through locals, arrays
 * and loops over them. The argument of such a parameter need not be on the model's device.
 */
final class NeutralParameters {
  /** Methods on a tensor whose result does not depend on the tensor's device meeting another's. */
  private static final Set<String> NEUTRAL_CALLS = Set.of("to", "cpu", "cuda", "toLongArray", "toFloatArray",
      "toDoubleArray", "toBooleanArray", "item", "itemAsLong", "itemAsBoolean", "shape", "size", "dim", "device",
      "dtype", "numel", "isPinned", "pinMemory", "isReady");
  /** Methods that copy their tensor argument in place, from any device. */
  private static final Set<String> COPIES = Set.of("assign", "copyFrom");

  /** Whether parameter {@code index} of a method of the same model is used on any device. */
  interface OwnMethods {
    boolean neutral(ExecutableElement method, int index);
  }

  private final Map<Name, List<TreePath>> uses = new HashMap<>();
  /** Every value a local is given: its initializer, what is assigned to it, the iterable of a loop over it. */
  private final Map<Name, List<ExpressionTree>> givenValues = new HashMap<>();
  private final Set<Name> locals = new HashSet<>();
  private final Set<Name> fields = new HashSet<>();
  private final Set<Name> parameters = new HashSet<>();
  private final BlockTree body;
  private final TypeElement type;
  private final Elements elements;
  private final OwnMethods own;
  private final Map<Name, Boolean> known = new HashMap<>();
  private final Map<Name, Boolean> freeLocals = new HashMap<>();

  private NeutralParameters(TreePath methodPath, ExecutableElement element, TypeElement type, Elements elements,
      OwnMethods own) {
    this.body = ((MethodTree) methodPath.getLeaf()).getBody();
    this.type = type;
    this.elements = elements;
    this.own = own;
    for (VariableElement p : element.getParameters()) {
      parameters.add(p.getSimpleName());
    }
    for (Element member : elements.getAllMembers(type)) {
      if (member.getKind() == ElementKind.FIELD) {
        fields.add(member.getSimpleName());
      }
    }
    new TreePathScanner<Void, Void>() {
      @Override
      public Void visitIdentifier(IdentifierTree node, Void unused) {
        uses.computeIfAbsent(node.getName(), k -> new ArrayList<>()).add(getCurrentPath());
        return null;
      }

      @Override
      public Void visitVariable(VariableTree node, Void unused) {
        locals.add(node.getName());
        if (node.getInitializer() != null) {
          givenValues.computeIfAbsent(node.getName(), k -> new ArrayList<>()).add(node.getInitializer());
        }
        return super.visitVariable(node, null);
      }

      @Override
      public Void visitAssignment(AssignmentTree node, Void unused) {
        if (node.getVariable() instanceof IdentifierTree id) {
          givenValues.computeIfAbsent(id.getName(), k -> new ArrayList<>()).add(node.getExpression());
        }
        return super.visitAssignment(node, null);
      }

      @Override
      public Void visitEnhancedForLoop(EnhancedForLoopTree node, Void unused) {
        givenValues.computeIfAbsent(node.getVariable().getName(), k -> new ArrayList<>()).add(node.getExpression());
        return super.visitEnhancedForLoop(node, null);
      }
    }.scan(new TreePath(methodPath, body), null);
  }

  /**
   * For each parameter of the method at {@code methodPath} ({@code element}, of model class {@code
   * type}), whether it is a tensor used on any device; {@code own} answers for the model's other
   * methods.
   */
  static boolean[] of(TreePath methodPath, ExecutableElement element, TypeElement type, Elements elements,
      RuntimeTypes rt, OwnMethods own) {
    NeutralParameters n = new NeutralParameters(methodPath, element, type, elements, own);
    List<? extends VariableElement> params = element.getParameters();
    boolean[] neutral = new boolean[params.size()];
    for (int i = 0; i < neutral.length; i++) {
      neutral[i] = rt.isTensor(params.get(i).asType()) && n.usedOnAnyDevice(params.get(i).getSimpleName());
    }
    return neutral;
  }

  private boolean usedOnAnyDevice(Name name) {
    Boolean cached = known.get(name);
    if (cached != null) {
      return cached;
    }
    known.put(name, false); // a local computed from itself: not followed
    int movedBack = parameters.contains(name) && !locals.contains(name) ? movedBackAt(name) : -1;
    boolean all = true;
    for (TreePath use : uses.getOrDefault(name, List.of())) {
      if (movedBack >= 0 && topLevelIndex(use) > movedBack) {
        continue; // on the device it was moved to
      }
      if (!endsOnAnyDevice(use)) {
        all = false;
        break;
      }
    }
    known.put(name, all);
    return all;
  }

  /**
   * The index of the first statement of the body that moves parameter {@code name} to a device and
   * assigns it back ({@code x = x.to(device());}), or -1.
   */
  private int movedBackAt(Name name) {
    List<? extends StatementTree> statements = body.getStatements();
    for (int i = 0; i < statements.size(); i++) {
      if (statements.get(i) instanceof ExpressionStatementTree s && s.getExpression() instanceof AssignmentTree a
          && a.getVariable() instanceof IdentifierTree target && target.getName().equals(name)
          && ModelMethodSource.skipParensAndCasts(a.getExpression()) instanceof MethodInvocationTree move
          && move.getMethodSelect() instanceof MemberSelectTree select
          && ModelMethodSource.skipParensAndCasts(select.getExpression()) instanceof IdentifierTree source
          && source.getName().equals(name) && isMove(move, select)) {
        return i;
      }
    }
    return -1;
  }

  private static boolean isMove(MethodInvocationTree call, MemberSelectTree select) {
    String method = select.getIdentifier().toString();
    return ((method.equals("cpu") || method.equals("cuda")) && call.getArguments().isEmpty())
        || (method.equals("to") && isMoveToDevice(call));
  }

  /** The index among the body's statements of the one holding {@code use}. */
  private int topLevelIndex(TreePath use) {
    Tree child = use.getLeaf();
    for (TreePath p = use.getParentPath(); p != null; child = p.getLeaf(), p = p.getParentPath()) {
      if (p.getLeaf() == body) {
        return body.getStatements().indexOf(child);
      }
    }
    return -1;
  }

  /** Whether the value at {@code path}, and what is computed from it, ends in a use on any device. */
  private boolean endsOnAnyDevice(TreePath path) {
    Tree child = path.getLeaf();
    for (TreePath p = path.getParentPath(); p != null; child = p.getLeaf(), p = p.getParentPath()) {
      Tree parent = p.getLeaf();
      if (parent instanceof ParenthesizedTree || parent instanceof TypeCastTree) {
        continue;
      }
      if (parent instanceof MemberSelectTree select && select.getExpression() == child) {
        TreePath up = p.getParentPath();
        if (!(up.getLeaf() instanceof MethodInvocationTree call) || call.getMethodSelect() != select) {
          return false; // a field of it
        }
        String name = select.getIdentifier().toString();
        if (name.equals("device") && isArgument(up)) {
          child = call; // Tensor.zeros(n, x.device()): a tensor where it is, followed further
          p = up;
          continue;
        }
        if (NEUTRAL_CALLS.contains(name) && (!name.equals("to") || isMoveToDevice(call))) {
          return true;
        }
        if (!call.getArguments().stream().allMatch(this::free)) {
          return false; // x.add(weight): it meets something else, perhaps the model's state
        }
        child = call; // x.div(norms): computed from it alone, followed further
        p = up;
        continue;
      }
      if (parent instanceof MethodInvocationTree call && call.getArguments().contains(child)) {
        if (call.getMethodSelect() instanceof MemberSelectTree select
            && COPIES.contains(select.getIdentifier().toString())) {
          return true; // w.assign(x): a copy, from any device
        }
        if (isOwnCall(call)) {
          return ownMethodsUseOnAnyDevice(call, call.getArguments().indexOf(child));
        }
        // Tensor.stack(List.of(x)), vectors.div(norms): computed from it and from values free of the
        // model's state, where the call has a receiver (a class, such as Tensor or List, or such a
        // value) and its other arguments are free of it too.
        Tree argument = child;
        if (!(call.getMethodSelect() instanceof MemberSelectTree select)
            || !(isClassName(select.getExpression()) || free(select.getExpression()))
            || !call.getArguments().stream().allMatch(a -> a == argument || free(a))) {
          return false;
        }
        continue;
      }
      if (parent instanceof NewArrayTree array && array.getInitializers() != null
          && array.getInitializers().contains(child)) {
        Tree element = child;
        if (!array.getInitializers().stream().allMatch(e -> e == element || free(e))) {
          return false;
        }
        continue; // {a, b}: an array of it, followed further
      }
      if (parent instanceof ArrayAccessTree access && access.getExpression() == child) {
        continue; // parts[0]: an element of it
      }
      if (parent instanceof VariableTree local && local.getInitializer() == child) {
        return usedOnAnyDevice(local.getName());
      }
      if (parent instanceof EnhancedForLoopTree loop && loop.getExpression() == child) {
        return usedOnAnyDevice(loop.getVariable().getName());
      }
      if (parent instanceof AssignmentTree assignment) {
        if (assignment.getVariable() == child) {
          return true; // written, not read: what it is given is followed where it is given
        }
        return assignment.getVariable() instanceof IdentifierTree target && isLocalOrParameter(target.getName())
            && usedOnAnyDevice(target.getName());
      }
      if (parent instanceof BinaryTree compare && (compare.getKind() == Tree.Kind.EQUAL_TO
          || compare.getKind() == Tree.Kind.NOT_EQUAL_TO) && (compare.getLeftOperand().getKind() == Tree.Kind.NULL_LITERAL
          || compare.getRightOperand().getKind() == Tree.Kind.NULL_LITERAL)) {
        return true; // lengths != null
      }
      return false;
    }
    return false;
  }

  /** Whether the call at {@code call} is an argument of another call. */
  private static boolean isArgument(TreePath call) {
    Tree child = call.getLeaf();
    for (TreePath p = call.getParentPath(); p != null; child = p.getLeaf(), p = p.getParentPath()) {
      if (!(p.getLeaf() instanceof ParenthesizedTree)) {
        return p.getLeaf() instanceof MethodInvocationTree outer && outer.getArguments().contains(child);
      }
    }
    return false;
  }

  /** {@code forward(x, lengths)} or {@code this.forward(x, lengths)}: a call of the model's own method. */
  private static boolean isOwnCall(MethodInvocationTree call) {
    return call.getMethodSelect() instanceof IdentifierTree
        || (call.getMethodSelect() instanceof MemberSelectTree select
            && select.getExpression() instanceof IdentifierTree self && self.getName().contentEquals("this"));
  }

  /** Whether every instance method of the model that the call may invoke uses argument {@code index} on any device. */
  private boolean ownMethodsUseOnAnyDevice(MethodInvocationTree call, int index) {
    Name name = call.getMethodSelect() instanceof IdentifierTree id ? id.getName()
        : ((MemberSelectTree) call.getMethodSelect()).getIdentifier();
    int arity = call.getArguments().size();
    boolean any = false;
    for (Element member : elements.getAllMembers(type)) {
      if (member instanceof ExecutableElement m && m.getKind() == ElementKind.METHOD && m.getSimpleName().equals(name)
          && m.getParameters().size() == arity) {
        if (m.isVarArgs() || m.getModifiers().contains(Modifier.STATIC) || !own.neutral(m, index)) {
          return false;
        }
        any = true;
      }
    }
    return any;
  }

  private boolean isLocalOrParameter(Name name) {
    return locals.contains(name) || parameters.contains(name);
  }

  /**
   * Whether an expression is free of the model's state: no field, {@code this} or call without a
   * receiver ({@code forward(x)}) in it, nor a local given such a value ({@code Tensor s = scale});
   * literals, parameters, other locals and static calls of classes ({@code Tensor.full(...)},
   * {@code Shape.of(...)}) are.
   */
  private boolean free(Tree e) {
    boolean[] bound = {false};
    new TreeScanner<Void, Void>() {
      @Override
      public Void visitIdentifier(IdentifierTree node, Void unused) {
        Name n = node.getName();
        if (n.contentEquals("this") || n.contentEquals("super")
            || (fields.contains(n) && !isLocalOrParameter(n))
            || (locals.contains(n) && !parameters.contains(n) && !freeLocal(n))) {
          bound[0] = true;
        }
        return null;
      }

      @Override
      public Void visitMethodInvocation(MethodInvocationTree node, Void unused) {
        if (node.getMethodSelect() instanceof IdentifierTree) {
          bound[0] = true; // forward(x), a method of the model
        }
        return super.visitMethodInvocation(node, null);
      }

      @Override
      public Void visitMemberSelect(MemberSelectTree node, Void unused) {
        return node.getExpression() instanceof IdentifierTree id && isClassName(id) ? null
            : super.visitMemberSelect(node, null);
      }
    }.scan(e, null);
    return !bound[0];
  }

  /** Whether every value a local is given is free of the model's state. */
  private boolean freeLocal(Name local) {
    Boolean cached = freeLocals.get(local);
    if (cached != null) {
      return cached;
    }
    freeLocals.put(local, true); // t = t.mul(2): judged by its other values
    boolean free = givenValues.getOrDefault(local, List.of()).stream().allMatch(this::free);
    freeLocals.put(local, free);
    return free;
  }

  /** An identifier that names a class by the Java convention ({@code Tensor}, {@code Shape}, {@code DType}). */
  private boolean isClassName(Tree t) {
    return t instanceof IdentifierTree id && !isLocalOrParameter(id.getName()) && !fields.contains(id.getName())
        && Character.isUpperCase(id.getName().charAt(0));
  }

  /**
   * {@code x.to(device())}, {@code x.to(Device.cuda(0))}, {@code x.to(y.device())}: a move to a device
   * the source names as one; any other {@code to} may be a conversion ({@code x.to(FLOAT32)}).
   */
  private static boolean isMoveToDevice(MethodInvocationTree call) {
    if (call.getArguments().isEmpty()
        || !(ModelMethodSource.skipParensAndCasts(call.getArguments().get(0)) instanceof MethodInvocationTree target)) {
      return false;
    }
    if (target.getMethodSelect() instanceof IdentifierTree name) {
      return name.getName().contentEquals("device");
    }
    return target.getMethodSelect() instanceof MemberSelectTree select
        && (select.getIdentifier().contentEquals("device")
            || (select.getExpression() instanceof IdentifierTree owner && owner.getName().contentEquals("Device")));
  }
}
