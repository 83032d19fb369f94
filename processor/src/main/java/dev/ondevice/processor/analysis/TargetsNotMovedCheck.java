package dev.ondevice.processor.analysis;

import com.sun.source.tree.IdentifierTree;
import com.sun.source.util.TreePath;

/** {@link CheckId#TARGETS_NOT_MOVED}: a batch's tensor left on the CPU meets one on a device. */
final class TargetsNotMovedCheck extends DeviceCheck {
  TargetsNotMovedCheck(AnalysisContext ctx, Interpretation at, DeviceTexts texts) {
    super(ctx, at, texts);
  }

  @Override
  void conflict(DeviceConflict c) {
    if (c.culprit() != DeviceConflict.Culprit.BATCH) {
      return;
    }
    Operand cpu = c.cpu();
    Operand device = c.device();
    String name = cpu.text(ctx);
    String target = texts.deviceText(device.value.place(), device);
    String moved = name + ".to(" + target + ")";
    boolean variable = MethodInterpreter.skipParens(cpu.path.getLeaf()) instanceof IdentifierTree;
    report(
        CheckId.TARGETS_NOT_MOVED,
        cpu.path,
        name
            + " is still on the CPU: it comes from the batch, and "
            + device.text(ctx)
            + " is on "
            + device.value.place().describe()
            + "; move every tensor of the batch, the"
            + " targets as well as the inputs: "
            + (variable ? name + " = " + moved : moved),
        false,
        texts.moveFix(cpu, target));
  }

  @Override
  void rejectedArgument(
      MethodInterpreter.Call c, RejectedArgument r, Value argument, TreePath argumentPath) {
    if (argument.origin() != Value.Origin.BATCH) {
      return;
    }
    RejectedArguments.Advice advice =
        RejectedArguments.advice(ctx, texts, r, argument, argumentPath);
    String text = ctx.shortText(argumentPath.getLeaf());
    report(
        CheckId.TARGETS_NOT_MOVED,
        argumentPath,
        (advice.tensor()
                ? text + " is still on the CPU: it comes"
                : "the tensors of " + text + " are still on the CPU: they come")
            + " from the batch, and "
            + c.method.getSimpleName()
            + " "
            + advice.uses()
            + "; move every tensor of the batch before using it: "
            + advice.move(),
        false,
        advice.fix());
  }
}
