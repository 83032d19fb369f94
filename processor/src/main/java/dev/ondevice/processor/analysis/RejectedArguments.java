package dev.ondevice.processor.analysis;

import com.sun.source.util.TreePath;

/**
 * What {@link MixedDevicesCheck} and {@link TargetsNotMovedCheck} say of a tensor given on the CPU
 * to a method whose body needs it on a device ({@link RejectedArgument}).
 */
final class RejectedArguments {
  /**
   * @param uses how the method uses it: {@code uses it in mul (line 12) with w on cuda:0}
   * @param target the device to move it to, as code usable at the argument; null where there is
   *     none
   * @param move how to move it
   * @param fix the fix that moves it, or null
   * @param tensor whether the argument is a tensor, not a container of them
   */
  record Advice(String uses, String target, String move, Fix fix, boolean tensor) {}

  private RejectedArguments() {}

  static Advice advice(
      AnalysisContext ctx,
      DeviceTexts texts,
      RejectedArgument r,
      Value argument,
      TreePath argumentPath) {
    boolean tensor = ctx.types().isTensor(ctx.trees().getTypeMirror(argumentPath));
    String uses =
        (tensor ? "uses it in " : "uses its tensors in ")
            + r.op()
            + " (line "
            + ctx.lineOf(r.at())
            + ") with "
            + r.other()
            + " on "
            + r.needed().describe();
    String target =
        DeviceTexts.namedInCode(r.needed())
                && StatementFixes.usableAt(
                    ctx, argumentPath, DeviceTexts.leadingName(r.needed().name()))
            ? r.needed().name()
            : null;
    String move =
        !tensor
            ? "move each of its tensors to "
                + (target == null ? "that device" : target)
                + " before the call"
            : target == null
                ? "move it to that device before the call"
                : texts.movedFrom(argumentPath, target);
    Operand cpu = new Operand(argument, argumentPath, argumentPath.getLeaf(), null);
    return new Advice(
        uses, target, move, target == null ? null : texts.moveFix(cpu, target), tensor);
  }
}
