package dev.ondevice.processor.analysis;

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

  /** Whether every {@code return} of {@code method}, a method of model class {@code type}, hands back a CPU tensor. */
  static boolean returnsCpu(MethodTree method, TypeElement type, Elements elements, RuntimeTypes rt) {
    List<ExpressionTree> returned = new ArrayList<>();
    Set<String> locals = new HashSet<>();
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
      public Void visitVariable(VariableTree node, Void unused) {
        locals.add(node.getName().toString());
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
    if (returned.isEmpty()) {
      return false;
    }
    for (ExpressionTree r : returned) {
      ExpressionTree e = skipParensAndCasts(r);
      if (!(isMoveToCpu(e) || isCpuField(e, type, locals, elements, rt))) {
        return false;
      }
    }
    return true;
  }

  /** {@code x.cpu()} or {@code x.to(Device.cpu())} (a blocking copy: non-blocking ones stay pending). */
  private static boolean isMoveToCpu(ExpressionTree e) {
    if (!(e instanceof MethodInvocationTree call) || !(call.getMethodSelect() instanceof MemberSelectTree select)) {
      return false;
    }
    String name = select.getIdentifier().toString();
    if (name.equals("cpu")) {
      return call.getArguments().isEmpty();
    }
    return name.equals("to") && call.getArguments().size() == 1
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
   * For each parameter of the method at {@code methodPath} ({@code element}), whether it is a tensor
   * whose every use, and every use of what is computed from it, ends in a way that does not depend
   * on its device: a host read, a move or a shape query ({@code lengths.toLongArray()}, {@code
   * x.to(device())}), or a copy into a parameter or buffer ({@code emb.weight().assign(
   * vectors.div(norms))}), directly or through locals that are themselves used only so.
   */
  static boolean[] deviceNeutralParameters(TreePath methodPath, ExecutableElement element, RuntimeTypes rt) {
    Map<Name, List<TreePath>> uses = new HashMap<>();
    Map<Name, VariableTree> locals = new HashMap<>();
    new TreePathScanner<Void, Void>() {
      @Override
      public Void visitIdentifier(IdentifierTree node, Void unused) {
        uses.computeIfAbsent(node.getName(), k -> new ArrayList<>()).add(getCurrentPath());
        return null;
      }

      @Override
      public Void visitVariable(VariableTree node, Void unused) {
        locals.put(node.getName(), node);
        return super.visitVariable(node, null);
      }
    }.scan(new TreePath(methodPath, ((MethodTree) methodPath.getLeaf()).getBody()), null);
    Map<Name, Boolean> neutralNames = new HashMap<>();
    List<? extends VariableElement> params = element.getParameters();
    boolean[] neutral = new boolean[params.size()];
    for (int i = 0; i < neutral.length; i++) {
      neutral[i] = rt.isTensor(params.get(i).asType())
          && usedOnAnyDevice(params.get(i).getSimpleName(), uses, locals, neutralNames);
    }
    return neutral;
  }

  private static boolean usedOnAnyDevice(Name name, Map<Name, List<TreePath>> uses, Map<Name, VariableTree> locals,
      Map<Name, Boolean> known) {
    Boolean cached = known.get(name);
    if (cached != null) {
      return cached;
    }
    known.put(name, false); // a local computed from itself: not followed
    boolean all = true;
    for (TreePath use : uses.getOrDefault(name, List.of())) {
      if (!endsOnAnyDevice(use, uses, locals, known)) {
        all = false;
        break;
      }
    }
    known.put(name, all);
    return all;
  }

  /** Whether the value at {@code path}, and what is computed from it, ends in a use on any device. */
  private static boolean endsOnAnyDevice(TreePath path, Map<Name, List<TreePath>> uses, Map<Name, VariableTree> locals,
      Map<Name, Boolean> known) {
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
        if (NEUTRAL_CALLS.contains(select.getIdentifier().toString())) {
          return true;
        }
        child = call; // x.div(norms): computed from it, followed further
        p = up;
        continue;
      }
      if (parent instanceof MethodInvocationTree call && call.getArguments().contains(child)) {
        if (call.getMethodSelect() instanceof MemberSelectTree select && COPIES.contains(select.getIdentifier().toString())) {
          return true;
        }
        continue; // f(x): its result may be computed from it, followed further
      }
      if (parent instanceof VariableTree local && local.getInitializer() == child && locals.get(local.getName()) == local) {
        return usedOnAnyDevice(local.getName(), uses, locals, known);
      }
      return false;
    }
    return false;
  }

  private static ExpressionTree skipParensAndCasts(ExpressionTree t) {
    ExpressionTree e = t;
    while (e instanceof ParenthesizedTree || e instanceof TypeCastTree) {
      e = e instanceof ParenthesizedTree p ? p.getExpression() : ((TypeCastTree) e).getExpression();
    }
    return e;
  }
}
