package dev.ondevice.processor.analysis;

import com.sun.source.tree.MemberReferenceTree;
import com.sun.source.tree.MethodInvocationTree;
import com.sun.source.util.TreePath;
import java.util.List;
import java.util.function.Supplier;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.VariableElement;

/**
 * The device checks of one interpretation, told each fact as the interpreter finds it. The
 * interpretations that only compute a method's summary for its callers ({@link CallResults}) have
 * none: what they would report is never shown.
 */
final class Checks {
  /** No checks: for interpretations whose findings would be dropped. */
  static final Checks NONE = new Checks(List.of());

  private final List<DeviceCheck> all;

  private Checks(List<DeviceCheck> all) {
    this.all = all;
  }

  /** Every device check, reading {@code at}. */
  static Checks all(AnalysisContext ctx, Interpretation at) {
    DeviceTexts texts = new DeviceTexts(ctx, at);
    return new Checks(
        List.of(
            new DiscardedMoveCheck(ctx, at, texts),
            new DiscardedTensorOpCheck(ctx, at, texts),
            new MixedDevicesCheck(ctx, at, texts),
            new TargetsNotMovedCheck(ctx, at, texts),
            new DefaultDeviceInModelCheck(ctx, at, texts),
            new HostSyncInLoopCheck(ctx, at, texts),
            new CreateThenMoveCheck(ctx, at, texts),
            new HardCodedDeviceCheck(ctx, at, texts),
            new NonBlockingFromPageableCheck(ctx, at, texts),
            new UnsyncedNonBlockingReadCheck(ctx, at, texts),
            new ModelNotMovedCheck(ctx, at, texts),
            new StaticTensorConstantCheck(ctx, at, texts)));
  }

  void discardedResult(TreePath path, MethodInvocationTree call, MethodSemantics s) {
    for (DeviceCheck c : all) {
      c.discardedResult(path, call, s);
    }
  }

  void discardedReference(TreePath path, MemberReferenceTree reference, MethodSemantics s) {
    for (DeviceCheck c : all) {
      c.discardedReference(path, reference, s);
    }
  }

  void storedMoveNeverRead(
      TreePath move, MethodInvocationTree call, CharSequence stored, CharSequence original) {
    for (DeviceCheck c : all) {
      c.storedMoveNeverRead(move, call, stored, original);
    }
  }

  void read(TreePath path, Value v) {
    for (DeviceCheck c : all) {
      c.read(path, v);
    }
  }

  void hostSync(MethodInterpreter.Call call) {
    for (DeviceCheck c : all) {
      c.hostSync(call);
    }
  }

  void printed(TreePath path, Value v) {
    for (DeviceCheck c : all) {
      c.printed(path, v);
    }
  }

  void move(TensorMove m) {
    for (DeviceCheck c : all) {
      c.move(m);
    }
  }

  void conflict(DeviceConflict conflict) {
    for (DeviceCheck c : all) {
      c.conflict(conflict);
    }
  }

  void contract(TreePath path, Value v, Place declared, Supplier<String> what) {
    for (DeviceCheck c : all) {
      c.contract(path, v, declared, what);
    }
  }

  void stateAssigned(TreePath value, VariableElement field, Value v) {
    for (DeviceCheck c : all) {
      c.stateAssigned(value, field, v);
    }
  }

  void returned(TreePath expression, Value v, ExecutableElement method) {
    for (DeviceCheck c : all) {
      c.returned(expression, v, method);
    }
  }

  void rejectedArgument(
      MethodInterpreter.Call call, RejectedArgument r, Value argument, TreePath argumentPath) {
    for (DeviceCheck c : all) {
      c.rejectedArgument(call, r, argument, argumentPath);
    }
  }
}
