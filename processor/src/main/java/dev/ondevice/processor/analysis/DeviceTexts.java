package dev.ondevice.processor.analysis;

import com.sun.source.tree.ExpressionTree;
import com.sun.source.tree.IdentifierTree;
import com.sun.source.tree.MemberSelectTree;
import com.sun.source.tree.MethodInvocationTree;
import com.sun.source.tree.ParenthesizedTree;
import com.sun.source.tree.Tree;
import com.sun.source.tree.TypeCastTree;
import com.sun.source.util.TreePath;
import com.sun.source.util.TreePathScanner;
import java.util.ArrayList;
import java.util.List;
import javax.lang.model.element.VariableElement;
import javax.lang.model.type.TypeMirror;

/**
 * Source text the checks' messages and fixes share: how to name a device where a fix stands, how to
 * move or create a tensor there. It reads the interpretation and never changes it.
 */
final class DeviceTexts {
  private final AnalysisContext ctx;
  private final Interpretation at;

  DeviceTexts(AnalysisContext ctx, Interpretation at) {
    this.ctx = ctx;
    this.at = at;
  }

  /** Whether an expression names a variable or a field, which a fix can assign to. */
  boolean isVariable(TreePath path, ExpressionTree t) {
    if (!(t instanceof IdentifierTree || t instanceof MemberSelectTree)) {
      return false;
    }
    return ctx.trees().getElement(path) instanceof VariableElement;
  }

  /**
   * The text of a variable or field that {@code t} names, through parentheses and casts; null for
   * another expression.
   */
  String variableText(Tree t) {
    Tree e = t;
    while (e instanceof ParenthesizedTree || e instanceof TypeCastTree) {
      e = e instanceof ParenthesizedTree p ? p.getExpression() : ((TypeCastTree) e).getExpression();
    }
    return e instanceof IdentifierTree || e instanceof MemberSelectTree ? ctx.shortText(e) : null;
  }

  /**
   * {@code x.to(target)}; for a tensor that is itself a move ({@code x.to(first)}), a move of its
   * source instead of a second one.
   */
  String movedFrom(TreePath path, String target) {
    Tree t = path.getLeaf();
    if (t instanceof MethodInvocationTree call
        && call.getMethodSelect() instanceof MemberSelectTree select
        && at.isMove(path)) {
      return ctx.shortText(select.getExpression()) + ".to(" + target + ")";
    }
    return ctx.shortText(t) + ".to(" + target + ")";
  }

  /**
   * An operand created on the CPU for want of a device ({@code Tensor.ones(3)}), created on {@code
   * device} instead ({@code Tensor.ones(3, device)}), rather than created and then moved; null when
   * the operand is something else or its factory has no overload with a device.
   */
  String createdOn(Operand o, String device) {
    Tree t = o.path.getLeaf();
    return device != null && t instanceof MethodInvocationTree call && at.isCpuFactory(call)
        ? CreateThenMoveFix.suggestion(ctx, o.path, call, device)
        : null;
  }

  /**
   * The device of {@code o} as code that can stand at {@code where}: {@code o}'s own variable (or
   * one inside it) if usable there, else the model's {@code device()} in its own methods or a
   * {@code Device} variable usable there; null when there is none.
   */
  String deviceAt(TreePath where, Operand o) {
    String text = deviceOf(o);
    if (StatementFixes.usableAt(ctx, where, leadingName(text))) {
      return text;
    }
    Place p = o.value.place();
    if (at.scope().isModelInstanceMethod() && p.equals(at.scope().thisValue().place())) {
      return "device()";
    }
    return namedInCode(p) && StatementFixes.usableAt(ctx, where, leadingName(p.name()))
        ? p.name()
        : null;
  }

  /**
   * Whether a symbolic device is named by code that reads it again: a variable ({@code device}) or
   * a field read through variables and types ({@code Env.DEVICE}, {@code cfg.device}).
   */
  static boolean namedInCode(Place p) {
    return p.kind() == Place.Kind.SYMBOL
        && p.name() != null
        && p.name().matches("[A-Za-z_$][\\w$]*(\\.[A-Za-z_$][\\w$]*)*(\\(\\))?");
  }

  /**
   * An operand with the argument it is passed as and where it is: {@code y (argument 'target') is
   * on the CPU}.
   */
  String describe(Operand o) {
    String argument = o.argument.toString();
    return o.text(ctx)
        + (argument.equals("self") || argument.equals("the model")
            ? ""
            : " (argument '" + argument + "')")
        + " is on "
        + o.value.place().describe();
  }

  /** The variable an expression such as {@code device} or {@code x.device()} starts with. */
  static String leadingName(String expression) {
    int end = 0;
    while (end < expression.length() && Character.isJavaIdentifierPart(expression.charAt(end))) {
      end++;
    }
    return expression.substring(0, end);
  }

  /** A fix that moves a tensor operand where it is used: {@code x} becomes {@code x.to(device)}. */
  Fix moveFix(Operand o, String device) {
    if (device == null || !ctx.types().isTensor(ctx.trees().getTypeMirror(o.path))) {
      return null;
    }
    Tree t = o.path.getLeaf();
    boolean primary =
        t instanceof IdentifierTree
            || t instanceof MemberSelectTree
            || t instanceof MethodInvocationTree
            || t instanceof ParenthesizedTree;
    String text = ctx.text(t);
    return Fix.replace(
        "move "
            + ctx.shortText(t)
            + (device.equals("Device.cpu()") ? " to the CPU" : " to the device"),
        t,
        (primary ? text : "(" + text + ")") + ".to(" + device + ")");
  }

  /**
   * Source text naming a place: the Device variable, a fixed device, the model's {@code device()},
   * or the device of the tensor beside it.
   */
  String deviceText(Place p, Operand beside) {
    if (namedInCode(p)
        && (beside == null || StatementFixes.usableAt(ctx, beside.path, leadingName(p.name())))) {
      return p.name();
    }
    if (p.kind() == Place.Kind.FIXED) {
      return p.name().matches("cuda:\\d+")
          ? "Device.cuda(" + p.name().substring(5) + ")"
          : "Device.parse(\"" + p.name() + "\")";
    }
    if (Place.CPU.equals(p)) {
      return "Device.cpu()";
    }
    ModelScope scope = at.scope();
    if (p.kind() == Place.Kind.SYMBOL
        && scope.isModelInstanceMethod()
        && p.equals(scope.thisValue().place())) {
      return "device()";
    }
    return beside == null ? "device" : deviceOf(beside);
  }

  /**
   * {@code t.device()} for the simplest expression on the operand's device: the operand itself when
   * it is a variable, else a tensor (then a model) variable inside it on the same device, so that a
   * fix never evaluates a call such as {@code fc.forward(x)} twice.
   */
  String deviceOf(Operand o) {
    ExpressionTree t = MethodInterpreter.skipParens(o.path.getLeaf());
    if (isVariable(o.path, t)) {
      return ctx.text(t) + ".device()";
    }
    String[] found = new String[2];
    new TreePathScanner<Void, Void>() {
      @Override
      public Void visitIdentifier(IdentifierTree id, Void unused) {
        consider(id);
        return null;
      }

      @Override
      public Void visitMemberSelect(MemberSelectTree select, Void unused) {
        consider(select);
        return super.visitMemberSelect(select, null);
      }

      private void consider(ExpressionTree e) {
        if (!isVariable(getCurrentPath(), e) || !o.value.place().equals(at.valueOf(e).place())) {
          return;
        }
        TypeMirror type = ctx.trees().getTypeMirror(getCurrentPath());
        int kind = ctx.types().isTensor(type) ? 0 : ctx.types().isModel(type) ? 1 : -1;
        if (kind >= 0 && found[kind] == null) {
          found[kind] = ctx.text(e);
        }
      }
    }.scan(o.path, null);
    String source = found[0] != null ? found[0] : found[1] != null ? found[1] : o.text(ctx);
    return source + ".device()";
  }

  /** The move without its receiver: {@code to(device)} of {@code Tensor.zeros(3).to(device)}. */
  String moveText(MethodInterpreter.Call c) {
    CharSequence name = ((MemberSelectTree) c.tree.getMethodSelect()).getIdentifier();
    List<String> args = new ArrayList<>();
    for (ExpressionTree a : c.argumentTrees) {
      args.add(ctx.shortText(a));
    }
    return name + "(" + String.join(", ", args) + ")";
  }

  /** The source of the move's Device argument, or null. */
  String deviceArgumentText(MethodInterpreter.Call c) {
    int i = c.semantics.deviceParameter;
    return i >= 0 && i < c.argumentTrees.size() ? ctx.text(c.argumentTrees.get(i)) : null;
  }
}
