package dev.ondevice.processor.analysis;

import com.sun.source.tree.MemberReferenceTree;
import com.sun.source.tree.MethodInvocationTree;
import com.sun.source.util.TreePath;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.VariableElement;

/**
 * One device check: it is told the facts the interpreter finds as it evaluates a body, matches the
 * few it is about with a cheap test first, and reports. Each hook does nothing unless a check
 * overrides it; no hook changes the interpreter's state, which checks see only through {@link
 * Interpretation}.
 */
abstract class DeviceCheck {
  final AnalysisContext ctx;
  final Interpretation at;
  final DeviceTexts texts;

  DeviceCheck(AnalysisContext ctx, Interpretation at, DeviceTexts texts) {
    this.ctx = ctx;
    this.at = at;
    this.texts = texts;
  }

  /** A pure call whose result a statement, or a lambda whose result is dropped, discards. */
  void discardedResult(TreePath path, MethodInvocationTree call, MethodSemantics s) {}

  /** A method reference to a pure tensor method passed as a function whose result is dropped. */
  void discardedReference(TreePath path, MemberReferenceTree reference, MethodSemantics s) {}

  /**
   * {@code Tensor moved = x.to(device);} whose variable is never read, while {@code x} is read
   * afterwards.
   */
  void storedMoveNeverRead(
      TreePath move, MethodInvocationTree call, CharSequence stored, CharSequence original) {}

  /** A tensor value read: an operand, a receiver, a model's input or a printed tensor. */
  void read(TreePath path, Value v) {}

  /** A call that makes the host wait for the device ({@code item()}, {@code toArray()}). */
  void hostSync(MethodInterpreter.Call c) {}

  /** A tensor turned into a string. */
  void printed(TreePath path, Value v) {}

  /** A tensor move. */
  void move(TensorMove m) {}

  /** Two operands on different devices meeting in one op. */
  void conflict(DeviceConflict c) {}

  /**
   * A value given where {@code @OnDevice} declares a place: a parameter, a result or a variable.
   */
  void contract(TreePath path, Value v, Place declared, Supplier<String> what) {}

  /**
   * A tensor assigned to a field of {@code this} ({@code globMean = stats.get("mean")}) in a
   * method.
   */
  void stateAssigned(TreePath value, VariableElement field, Value v) {}

  /** A tensor a method returns, with what the method is. */
  void returned(TreePath expression, Value v, ExecutableElement method) {}

  /** A tensor this body gives a method on the CPU, where the method's body needs it on a device. */
  void rejectedArgument(
      MethodInterpreter.Call c, RejectedArgument r, Value argument, TreePath argumentPath) {}

  final void report(
      CheckId check, TreePath path, String message, boolean downgraded, Fix... fixes) {
    reportAt(check, path, path, message, downgraded, fixes);
  }

  /**
   * Reports at {@code path} a finding found at {@code trigger} (the op where a tensor created at
   * {@code path} is used).
   */
  final void reportAt(
      CheckId check,
      TreePath path,
      TreePath trigger,
      String message,
      boolean downgraded,
      Fix... fixes) {
    List<Fix> present = new ArrayList<>();
    for (Fix f : fixes) {
      if (f != null) {
        present.add(f);
      }
    }
    ctx.report(check, path, trigger, message, downgraded, present.toArray(new Fix[0]));
  }
}
