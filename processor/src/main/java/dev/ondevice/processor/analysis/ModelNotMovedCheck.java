package dev.ondevice.processor.analysis;

/**
 * {@link CheckId#MODEL_NOT_MOVED}: a model never moved, or one a part of which was replaced by one
 * made on the CPU after the move, called with tensors on a device.
 */
final class ModelNotMovedCheck extends DeviceCheck {
  ModelNotMovedCheck(AnalysisContext ctx, Interpretation at, DeviceTexts texts) {
    super(ctx, at, texts);
  }

  @Override
  void conflict(DeviceConflict c) {
    if (c.culprit() == DeviceConflict.Culprit.REPLACED_PART) {
      replacedPart(c);
    } else if (c.culprit() == DeviceConflict.Culprit.UNMOVED_MODEL) {
      neverMoved(c);
    }
  }

  private void replacedPart(DeviceConflict c) {
    Operand a = c.a();
    Operand b = c.b();
    String target = texts.deviceText(b.value.place(), b);
    String model = texts.variableText(a.named);
    String again =
        model == null
            ? "move the model again after replacing the part"
            : "move the model again after replacing it: " + model + ".toDevice(" + target + ")";
    report(
        CheckId.MODEL_NOT_MOVED,
        c.at(),
        a.text(ctx)
            + "."
            + a.value.originName()
            + " was replaced by a new part"
            + " made on the CPU after "
            + a.text(ctx)
            + " was moved: its parameters are on the CPU while "
            + b.text(ctx)
            + " is on "
            + b.value.place().describe()
            + "; "
            + again,
        false,
        model == null
            ? null
            : StatementFixes.after(
                ctx,
                a.value.originPath(),
                model + ".toDevice(" + target + ");",
                "move the model again after replacing the part"));
  }

  private void neverMoved(DeviceConflict c) {
    Operand a = c.a();
    Operand b = c.b();
    String target = texts.deviceText(b.value.place(), b);
    String model = texts.variableText(a.named);
    String move =
        model == null
            ? "keep it in a variable and call toDevice(" + target + ") on it"
            : model + ".toDevice(" + target + ")";
    report(
        CheckId.MODEL_NOT_MOVED,
        c.at(),
        a.text(ctx)
            + " was never moved: its parameters are on the CPU while "
            + b.text(ctx)
            + " is on "
            + b.value.place().describe()
            + "; move the model once, before using it: "
            + move,
        false,
        model == null
            ? null
            : StatementFixes.afterDeclaration(
                ctx,
                a.path,
                model + ".toDevice(" + target + ");",
                "move the model after creating it",
                DeviceTexts.leadingName(target)));
  }
}
