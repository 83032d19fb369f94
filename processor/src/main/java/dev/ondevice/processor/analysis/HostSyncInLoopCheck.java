package dev.ondevice.processor.analysis;

import com.sun.source.tree.CompoundAssignmentTree;
import com.sun.source.tree.IdentifierTree;
import com.sun.source.tree.Tree;
import com.sun.source.util.TreePath;
import javax.lang.model.type.TypeKind;
import javax.lang.model.type.TypeMirror;

/**
 * {@link CheckId#HOST_SYNC_IN_LOOP}: a read on the host of a tensor on a device on every batch, or
 * on every forward pass of a model: {@code item()}, {@code toArray()}, printing, a blocking copy to
 * the CPU.
 */
final class HostSyncInLoopCheck extends DeviceCheck {
  HostSyncInLoopCheck(AnalysisContext ctx, Interpretation at, DeviceTexts texts) {
    super(ctx, at, texts);
  }

  @Override
  void hostSync(MethodInterpreter.Call c) {
    boolean onHost = c.receiver != null && Place.CPU.equals(c.receiver.place());
    if (at.inBatchLoop()
        && !onHost
        && !at.runsOnceOrPeriodically(c.path)
        && readsADevice(c.receiver, c.receiverTree == null ? null : c.receiverPath())) {
      inLoop(c);
    } else if (!at.inBatchLoop()
        && at.forwardStep() != null
        && c.receiver != null
        && c.receiverTree != null
        && onADevice(c.receiver.place())
        && c.semantics.kind != MethodSemantics.Kind.MOVE) {
      // A read the step's own computation waits for; not a copy of a result to the host (predict's
      // cpu()).
      report(
          CheckId.HOST_SYNC_IN_LOOP,
          c.path,
          ctx.shortText(c.tree)
              + " makes the host wait for the device on every"
              + " step ("
              + at.forwardStep()
              + "); keep the values on the device (a mask, a count, an index as a"
              + " tensor: where(), maskedFill(), indexSelect()), or compute them once outside the step",
          false);
    }
  }

  @Override
  void printed(TreePath path, Value v) {
    if (at.inBatchLoop()
        && !Place.CPU.equals(v.place())
        && !at.runsOnceOrPeriodically(path)
        && readsADevice(v, path)) {
      report(
          CheckId.HOST_SYNC_IN_LOOP,
          path,
          "printing "
              + ctx.shortText(path.getLeaf())
              + " reads it on the host on"
              + " every batch (a synchronisation inside the batch loop); accumulate on the device and print once per"
              + " epoch",
          false);
    }
  }

  /**
   * A blocking copy to the host of a tensor not known to be there waits for the device, as {@code
   * cpu()} does.
   */
  @Override
  void move(TensorMove m) {
    MethodInterpreter.Call c = m.call();
    if (!m.nonBlocking()
        && !m.toTheCpuByConstruction() // MixedDevices reports where the CPU was chosen
        && Place.CPU.equals(m.target())
        && !Place.CPU.equals(m.receiver().place())
        && c.receiverTree != null
        && at.inBatchLoop()
        && !c.semantics.hostSync
        && !at.runsOnceOrPeriodically(c.path)
        && readsADevice(m.receiver(), c.receiverPath())) {
      inLoop(c);
    }
  }

  /**
   * Whether a read in the batch loop reads from a device: not from the CPU in the loop itself (an
   * unknown place counts, as the batch loop's tensors mostly are the model's); in a method called
   * once per batch ({@link StepMethods}), only from a device known there, its callers' arguments
   * included ({@link CallSites}), or from a tensor computed from the model's parameters ({@link
   * ParameterDerived}).
   */
  private boolean readsADevice(Value receiver, TreePath receiverPath) {
    return at.stepReason() == null
        || (receiver != null && onADevice(receiver.place()))
        || (receiverPath != null && ParameterDerived.derives(ctx, receiverPath));
  }

  /**
   * Whether a place is a device other than the CPU: the model's, a device variable's, a fixed GPU.
   */
  private static boolean onADevice(Place p) {
    return p.kind() == Place.Kind.SYMBOL || p.kind() == Place.Kind.FIXED;
  }

  private void inLoop(MethodInterpreter.Call c) {
    String text = ctx.shortText(c.tree);
    TypeMirror result = c.method.getReturnType();
    String sum = accumulation(c);
    String tensor = c.receiverTree == null ? "x" : ctx.shortText(c.receiverTree);
    String total = tensor.equals("total") || tensor.startsWith("total.") ? "sum" : "total";
    String advice;
    if (sum != null) {
      advice =
          "accumulate on the device instead, as " + sum + ", and read the total once per epoch";
    } else if (result.getKind() == TypeKind.BOOLEAN) {
      advice = "read it once per epoch, or every n batches (if (step % 100 == 0) ...)";
    } else if (result.getKind().isPrimitive()) {
      advice =
          "keep the value on the device (a running sum as "
              + total
              + " = "
              + total
              + ".add("
              + detached(tensor)
              + ")) and read"
              + " it once per epoch, or read it every n batches (if (step % 100 == 0) ...)";
    } else {
      advice = "keep the values on the device in the loop and read them once per epoch";
    }
    String where =
        at.stepReason() == null
            ? "a synchronisation inside the batch loop"
            : "a synchronisation on every batch: " + at.stepReason();
    report(
        CheckId.HOST_SYNC_IN_LOOP,
        c.path,
        text + " makes the host wait for the device on every batch (" + where + "); " + advice,
        false,
        AccumulateOnDeviceFix.of(ctx, c.path));
  }

  /**
   * How to sum on the device what {@code c} reads into a running sum, {@code correct +=
   * pred.eq(yb).sum().itemAsLong()}: {@code correct = correct.add(pred.eq(yb).sum())} ({@code
   * .detach()} added for a floating-point read); null where the read is not added to a sum.
   */
  private String accumulation(MethodInterpreter.Call c) {
    if (!(c.path.getParentPath().getLeaf() instanceof CompoundAssignmentTree sum)
        || sum.getKind() != Tree.Kind.PLUS_ASSIGNMENT
        || sum.getExpression() != c.tree
        || !(sum.getVariable() instanceof IdentifierTree id)
        || c.receiverTree == null) {
      return null;
    }
    TypeKind read = c.method.getReturnType().getKind();
    if (read != TypeKind.DOUBLE
        && read != TypeKind.FLOAT
        && read != TypeKind.LONG
        && read != TypeKind.INT) {
      return null;
    }
    String total = id.getName().toString();
    String tensor = ctx.shortText(c.receiverTree);
    if (tensor.equals(total) || tensor.startsWith(total + ".")) {
      return null;
    }
    boolean floating = read == TypeKind.DOUBLE || read == TypeKind.FLOAT;
    return total + " = " + total + ".add(" + (floating ? detached(tensor) : tensor) + ")";
  }

  /** {@code loss.detach()} for {@code loss}, and {@code loss.detach()} itself. */
  private static String detached(String tensor) {
    return tensor.endsWith(".detach()") ? tensor : tensor + ".detach()";
  }
}
