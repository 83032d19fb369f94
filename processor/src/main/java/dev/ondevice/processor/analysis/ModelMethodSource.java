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
import com.sun.source.tree.TypeCastTree;
import com.sun.source.tree.VariableTree;
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
import javax.lang.model.util.Elements;

/**
 * Where the tensors a model's method returns are, read from its syntax alone (so that it reads the
 * same before and after javac has attributed the method's class): on the CPU where every tensor it
 * returns is ({@code return forward(x).argmax(1).cpu();}, an {@code @OnDevice("cpu")} field), on
 * the model's device by default. Its tensor parameters: {@link NeutralParameters}.
 */
final class ModelMethodSource {
  private ModelMethodSource() {}

  /** Where the tensors a model's method returns are, as far as its source shows. */
  enum Returns {
    /** On the model's device, by default: nothing in the method moves a tensor to the CPU. */
    MODEL_DEVICE,
    /**
     * On the CPU: every {@code return} ends in a move to the CPU, and no subclass can override it.
     */
    CPU,
    /** Not known: some of it may be on the CPU, or an override may return something else. */
    UNKNOWN
  }

  /**
   * Where the tensors {@code method} ({@code element}), a method of model class {@code type},
   * returns are.
   */
  static Returns returns(
      MethodTree method,
      ExecutableElement element,
      TypeElement type,
      Elements elements,
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
          initializers
              .computeIfAbsent(node.getName().toString(), k -> new ArrayList<>())
              .add(node.getInitializer());
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
      boolean cpu =
          isMoveToCpu(e, false) || isCpuField(e, type, locals, elements, rt) || isHostData(e);
      allCpu &= cpu;
      someCpu |= cpu || mayBeCpu(e);
      if (e instanceof IdentifierTree id) {
        for (ExpressionTree init : initializers.getOrDefault(id.getName().toString(), List.of())) {
          ExpressionTree i = skipParensAndCasts(init);
          someCpu |=
              isMoveToCpu(i, true)
                  || isHostData(i)
                  || mayBeCpu(i)
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
    return e instanceof MethodInvocationTree call
        && call.getArguments().size() == 1
        && call.getMethodSelect() instanceof MemberSelectTree select
        && select.getIdentifier().contentEquals("of")
        && select.getExpression() instanceof IdentifierTree owner
        && owner.getName().contentEquals("Tensor");
  }

  /**
   * Whether a returned expression may be on the CPU, by its look: a move to something other than
   * the model's {@code device()} ({@code x.to(HOST)}), a factory of {@code Tensor}, or a local's
   * value.
   */
  private static boolean mayBeCpu(ExpressionTree e) {
    if (!(e instanceof MethodInvocationTree call)
        || !(call.getMethodSelect() instanceof MemberSelectTree select)) {
      return false;
    }
    if (select.getExpression() instanceof IdentifierTree owner
        && owner.getName().contentEquals("Tensor")) {
      return true;
    }
    if (!select.getIdentifier().contentEquals("to") || call.getArguments().isEmpty()) {
      return false;
    }
    ExpressionTree target = skipParensAndCasts(call.getArguments().get(0));
    boolean modelDevice =
        target instanceof MethodInvocationTree d
            && d.getArguments().isEmpty()
            && d.getMethodSelect() instanceof IdentifierTree name
            && name.getName().contentEquals("device");
    boolean dtype =
        target instanceof MemberSelectTree arg
            && arg.getExpression() instanceof IdentifierTree owner
            && owner.getName().contentEquals("DType");
    return !modelDevice && !dtype;
  }

  /** Whether a subclass may override {@code m}, returning tensors elsewhere. */
  private static boolean overridable(ExecutableElement m, TypeElement type) {
    Set<Modifier> mods = m.getModifiers();
    return !mods.contains(Modifier.FINAL)
        && !mods.contains(Modifier.PRIVATE)
        && !mods.contains(Modifier.STATIC)
        && !type.getModifiers().contains(Modifier.FINAL);
  }

  /**
   * {@code x.cpu()} or {@code x.to(Device.cpu())}: a blocking copy ({@code nonBlockingToo}: or a
   * non-blocking one, {@code x.to(Device.cpu(), true)}, whose result is pending).
   */
  static boolean isMoveToCpu(ExpressionTree e, boolean nonBlockingToo) {
    if (!(e instanceof MethodInvocationTree call)
        || !(call.getMethodSelect() instanceof MemberSelectTree select)) {
      return false;
    }
    String name = select.getIdentifier().toString();
    if (name.equals("cpu")) {
      return call.getArguments().isEmpty();
    }
    int args = call.getArguments().size();
    return name.equals("to")
        && (args == 1 || (nonBlockingToo && args == 2))
        && skipParensAndCasts(call.getArguments().get(0)) instanceof MethodInvocationTree device
        && device.getArguments().isEmpty()
        && device.getMethodSelect() instanceof MemberSelectTree cpu
        && cpu.getIdentifier().contentEquals("cpu")
        && cpu.getExpression() instanceof IdentifierTree owner
        && owner.getName().contentEquals("Device");
  }

  /** A field of the model's class pinned to the CPU, named alone or through {@code this}. */
  private static boolean isCpuField(
      ExpressionTree e, TypeElement type, Set<String> locals, Elements elements, RuntimeTypes rt) {
    Name name;
    if (e instanceof IdentifierTree id && !locals.contains(id.getName().toString())) {
      name = id.getName();
    } else if (e instanceof MemberSelectTree select
        && select.getExpression() instanceof IdentifierTree self
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

  static ExpressionTree skipParensAndCasts(ExpressionTree t) {
    ExpressionTree e = t;
    while (e instanceof ParenthesizedTree || e instanceof TypeCastTree) {
      e = e instanceof ParenthesizedTree p ? p.getExpression() : ((TypeCastTree) e).getExpression();
    }
    return e;
  }
}
