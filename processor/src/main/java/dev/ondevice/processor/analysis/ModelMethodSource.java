package dev.ondevice.processor.analysis;

import com.sun.source.tree.BinaryTree;
import com.sun.source.tree.ClassTree;
import com.sun.source.tree.ExpressionTree;
import com.sun.source.tree.IdentifierTree;
import com.sun.source.tree.LambdaExpressionTree;
import com.sun.source.tree.MemberSelectTree;
import com.sun.source.tree.MethodInvocationTree;
import com.sun.source.tree.MethodTree;
import com.sun.source.tree.ParenthesizedTree;
import com.sun.source.tree.ReturnTree;
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
 * What the source of a model's method says about devices, read from its syntax alone (so that it
 * reads the same before and after javac has attributed the method's class): whether every tensor
 * it returns is one on the CPU ({@code return forward(x).argmax(1).cpu();}, an {@code
 * @OnDevice("cpu")} field), and which tensor parameters it uses only in ways that do not depend on
 * their device: read on the host ({@code lengths.toLongArray()}), moved ({@code x.to(device())}),
 * asked for their shape, or copied into a parameter or buffer ({@code emb.weight().assign(vectors)},
 * across devices).
 */
final class ModelMethodSource {
  /** Methods on a tensor whose result does not depend on the tensor's device meeting another's. */
  private static final Set<String> NEUTRAL_CALLS = Set.of("to", "cpu", "cuda", "toLongArray", "toFloatArray",
      "toDoubleArray", "toBooleanArray", "item", "itemAsLong", "itemAsBoolean", "shape", "size", "dim", "device",
      "dtype", "numel", "isPinned", "pinMemory", "isReady");
  /** Methods that copy their tensor argument in place, from any device. */
  private static final Set<String> COPIES = Set.of("assign", "copyFrom");

  private ModelMethodSource() {}

  /** Where the tensors a model's method returns are, as far as its source shows. */
  enum Returns {
    /** On the model's device, by default: nothing in the method moves a tensor to the CPU. */
    MODEL_DEVICE,
    /** On the CPU: every {@code return} ends in a move to the CPU, and no subclass can override it. */
    CPU,
    /** Not known: some of it may be on the CPU, or an override may return something else. */
    UNKNOWN
  }

  /** Where the tensors {@code method} ({@code element}), a method of model class {@code type}, returns are. */
  static Returns returns(MethodTree method, ExecutableElement element, TypeElement type, Elements elements,
      RuntimeTypes rt) {
    List<ExpressionTree> returned = new ArrayList<>();
    Set<String> locals = new HashSet<>();
    Map<String, List<ExpressionTree>> initializers = new HashMap<>();
    boolean[] movesToCpu = {false};
    for (VariableTree p : method.getParameters()) {
      locals.add(p.getName().toString());
    }
    new TreeScanner<Void, Void>() {
      @Override
      public Void visitReturn(ReturnTree node, Void unused) {
        returned.add(node.getExpression());
        return super.visitReturn(node, null);
      }

      @Override
      public Void visitMethodInvocation(MethodInvocationTree node, Void unused) {
        movesToCpu[0] |= isMoveToCpu(node, true);
        return super.visitMethodInvocation(node, null);
      }

      @Override
      public Void visitVariable(VariableTree node, Void unused) {
        locals.add(node.getName().toString());
        if (node.getInitializer() != null) {
          initializers.computeIfAbsent(node.getName().toString(), k -> new ArrayList<>()).add(node.getInitializer());
        }
        return super.visitVariable(node, null);
      }

      @Override
      public Void visitLambdaExpression(LambdaExpressionTree node, Void unused) {
        return null;
      }

      @Override
      public Void visitClass(ClassTree node, Void unused) {
        return null;
      }
    }.scan(method.getBody(), null);
    boolean allCpu = !returned.isEmpty();
    boolean someCpu = movesToCpu[0];
    for (ExpressionTree r : returned) {
      ExpressionTree e = skipParensAndCasts(r);
      boolean cpu = isMoveToCpu(e, false) || isCpuField(e, type, locals, elements, rt) || isHostData(e);
      allCpu &= cpu;
      someCpu |= cpu || mayBeCpu(e);
      if (e instanceof IdentifierTree id) {
        for (ExpressionTree init : initializers.getOrDefault(id.getName().toString(), List.of())) {
          ExpressionTree i = skipParensAndCasts(init);
          someCpu |= isMoveToCpu(i, true) || isHostData(i) || mayBeCpu(i)
              || isCpuField(i, type, Set.of(), elements, rt);
        }
      }
    }
    if (allCpu && !overridable(element, type)) {
      return Returns.CPU;
    }
    return someCpu || allCpu ? Returns.UNKNOWN : Returns.MODEL_DEVICE;
  }

  /** {@code Tensor.of(ids)}: a tensor of host data, made on the CPU. */
  private static boolean isHostData(ExpressionTree e) {
    return e instanceof MethodInvocationTree call && call.getArguments().size() == 1
        && call.getMethodSelect() instanceof MemberSelectTree select && select.getIdentifier().contentEquals("of")
        && select.getExpression() instanceof IdentifierTree owner && owner.getName().contentEquals("Tensor");
  }

  /**
   * Whether a returned expression may be on the CPU, by its look: a move to something other than
   * the model's {@code device()} ({@code x.to(HOST)}), a factory of {@code Tensor}, or a local's
   * value.
   */
  private static boolean mayBeCpu(ExpressionTree e) {
    if (!(e instanceof MethodInvocationTree call) || !(call.getMethodSelect() instanceof MemberSelectTree select)) {
      return false;
    }
    if (select.getExpression() instanceof IdentifierTree owner && owner.getName().contentEquals("Tensor")) {
      return true;
    }
    if (!select.getIdentifier().contentEquals("to") || call.getArguments().isEmpty()) {
      return false;
    }
    ExpressionTree target = skipParensAndCasts(call.getArguments().get(0));
    boolean modelDevice = target instanceof MethodInvocationTree d && d.getArguments().isEmpty()
        && d.getMethodSelect() instanceof IdentifierTree name && name.getName().contentEquals("device");
    boolean dtype = target instanceof MemberSelectTree arg && arg.getExpression() instanceof IdentifierTree owner
        && owner.getName().contentEquals("DType");
    return !modelDevice && !dtype;
  }

  /** Whether a subclass may override {@code m}, returning tensors elsewhere. */
  private static boolean overridable(ExecutableElement m, TypeElement type) {
    Set<Modifier> mods = m.getModifiers();
    return !mods.contains(Modifier.FINAL) && !mods.contains(Modifier.PRIVATE) && !mods.contains(Modifier.STATIC)
        && !type.getModifiers().contains(Modifier.FINAL);
  }

  /**
   * {@code x.cpu()} or {@code x.to(Device.cpu())}: a blocking copy ({@code nonBlockingToo}: or a
   * non-blocking one, {@code x.to(Device.cpu(), true)}, whose result is pending).
   */
  private static boolean isMoveToCpu(ExpressionTree e, boolean nonBlockingToo) {
    if (!(e instanceof MethodInvocationTree call) || !(call.getMethodSelect() instanceof MemberSelectTree select)) {
      return false;
    }
    String name = select.getIdentifier().toString();
    if (name.equals("cpu")) {
      return call.getArguments().isEmpty();
    }
    int args = call.getArguments().size();
    return name.equals("to") && (args == 1 || (nonBlockingToo && args == 2))
        && skipParensAndCasts(call.getArguments().get(0)) instanceof MethodInvocationTree device
        && device.getArguments().isEmpty() && device.getMethodSelect() instanceof MemberSelectTree cpu
        && cpu.getIdentifier().contentEquals("cpu") && cpu.getExpression() instanceof IdentifierTree owner
        && owner.getName().contentEquals("Device");
  }

  /** A field of the model's class pinned to the CPU, named alone or through {@code this}. */
  private static boolean isCpuField(ExpressionTree e, TypeElement type, Set<String> locals, Elements elements,
      RuntimeTypes rt) {
    Name name;
    if (e instanceof IdentifierTree id && !locals.contains(id.getName().toString())) {
      name = id.getName();
    } else if (e instanceof MemberSelectTree select && select.getExpression() instanceof IdentifierTree self
        && self.getName().contentEquals("this")) {
      name = select.getIdentifier();
    } else {
      return false;
    }
    for (Element member : elements.getAllMembers(type)) {
      if (member.getKind() == ElementKind.FIELD && member.getSimpleName().equals(name)) {
        return "cpu".equals(rt.declaredDevice(member));
      }
    }
    return false;
  }

  /**
   * For each parameter of the method at {@code methodPath} ({@code element}, of model class {@code
   * type}), whether it is a tensor whose every use ends in a way that does not depend on its device,
   * without meeting the model's state on the way: a host read or a shape query ({@code
   * lengths.toLongArray()}), a move to a device ({@code x.to(device())}), or a copy into a parameter
   * or buffer of values computed from it alone ({@code emb.weight().assign(vectors.div(norms))},
   * {@code norms} a local computed from {@code vectors}).
   */
  static boolean[] deviceNeutralParameters(TreePath methodPath, ExecutableElement element, TypeElement type,
      Elements elements, RuntimeTypes rt) {
    Map<Name, List<TreePath>> uses = new HashMap<>();
    Map<Name, List<VariableTree>> locals = new HashMap<>();
    new TreePathScanner<Void, Void>() {
      @Override
      public Void visitIdentifier(IdentifierTree node, Void unused) {
        uses.computeIfAbsent(node.getName(), k -> new ArrayList<>()).add(getCurrentPath());
        return null;
      }

      @Override
      public Void visitVariable(VariableTree node, Void unused) {
        locals.computeIfAbsent(node.getName(), k -> new ArrayList<>()).add(node);
        return super.visitVariable(node, null);
      }
    }.scan(new TreePath(methodPath, ((MethodTree) methodPath.getLeaf()).getBody()), null);
    Set<Name> fields = new HashSet<>();
    for (Element member : elements.getAllMembers(type)) {
      if (member.getKind() == ElementKind.FIELD) {
        fields.add(member.getSimpleName());
      }
    }
    List<? extends VariableElement> params = element.getParameters();
    Set<Name> parameterNames = new HashSet<>();
    for (VariableElement p : params) {
      parameterNames.add(p.getSimpleName());
    }
    Neutrality n = new Neutrality(uses, locals, fields, parameterNames);
    boolean[] neutral = new boolean[params.size()];
    for (int i = 0; i < neutral.length; i++) {
      neutral[i] = rt.isTensor(params.get(i).asType()) && n.usedOnAnyDevice(params.get(i).getSimpleName());
    }
    return neutral;
  }

  /** The uses of a method's parameters and locals, followed to where they end. */
  private static final class Neutrality {
    private final Map<Name, List<TreePath>> uses;
    private final Map<Name, List<VariableTree>> locals;
    private final Set<Name> fields;
    private final Set<Name> parameters;
    private final Map<Name, Boolean> known = new HashMap<>();

    Neutrality(Map<Name, List<TreePath>> uses, Map<Name, List<VariableTree>> locals, Set<Name> fields,
        Set<Name> parameters) {
      this.uses = uses;
      this.locals = locals;
      this.fields = fields;
      this.parameters = parameters;
    }

    boolean usedOnAnyDevice(Name name) {
      Boolean cached = known.get(name);
      if (cached != null) {
        return cached;
      }
      known.put(name, false); // a local computed from itself: not followed
      boolean all = true;
      for (TreePath use : uses.getOrDefault(name, List.of())) {
        if (!endsOnAnyDevice(use)) {
          all = false;
          break;
        }
      }
      known.put(name, all);
      return all;
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
        if (parent instanceof VariableTree local && local.getInitializer() == child
            && locals.getOrDefault(local.getName(), List.of()).contains(local)) {
          return usedOnAnyDevice(local.getName());
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

    /**
     * Whether an expression is free of the model's state: no field, {@code this} or call without a
     * receiver ({@code forward(x)}) in it; literals, parameters, locals and static calls of classes
     * ({@code Tensor.full(...)}, {@code Shape.of(...)}) are.
     */
    private boolean free(Tree e) {
      boolean[] bound = {false};
      new TreeScanner<Void, Void>() {
        @Override
        public Void visitIdentifier(IdentifierTree node, Void unused) {
          Name n = node.getName();
          if (n.contentEquals("this") || n.contentEquals("super")
              || (fields.contains(n) && !locals.containsKey(n) && !parameters.contains(n))) {
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

    /** An identifier that names a class by the Java convention ({@code Tensor}, {@code Shape}, {@code DType}). */
    private boolean isClassName(Tree t) {
      return t instanceof IdentifierTree id && !locals.containsKey(id.getName()) && !parameters.contains(id.getName())
          && !fields.contains(id.getName()) && Character.isUpperCase(id.getName().charAt(0));
    }
  }

  /**
   * {@code x.to(device())}, {@code x.to(Device.cuda(0))}, {@code x.to(y.device())}: a move to a device
   * the source names as one; any other {@code to} may be a conversion ({@code x.to(FLOAT32)}).
   */
  private static boolean isMoveToDevice(MethodInvocationTree call) {
    if (call.getArguments().isEmpty()
        || !(skipParensAndCasts(call.getArguments().get(0)) instanceof MethodInvocationTree target)) {
      return false;
    }
    if (target.getMethodSelect() instanceof IdentifierTree name) {
      return name.getName().contentEquals("device");
    }
    return target.getMethodSelect() instanceof MemberSelectTree select
        && (select.getIdentifier().contentEquals("device")
            || (select.getExpression() instanceof IdentifierTree owner && owner.getName().contentEquals("Device")));
  }

  private static ExpressionTree skipParensAndCasts(ExpressionTree t) {
    ExpressionTree e = t;
    while (e instanceof ParenthesizedTree || e instanceof TypeCastTree) {
      e = e instanceof ParenthesizedTree p ? p.getExpression() : ((TypeCastTree) e).getExpression();
    }
    return e;
  }
}
