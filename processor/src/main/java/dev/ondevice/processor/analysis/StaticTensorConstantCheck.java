package dev.ondevice.processor.analysis;

/**
 * {@link CheckId#STATIC_TENSOR_CONSTANT}: a static tensor constant, on the CPU, meets a tensor on
 * another device.
 */
final class StaticTensorConstantCheck extends DeviceCheck {
  StaticTensorConstantCheck(AnalysisContext ctx, Interpretation at, DeviceTexts texts) {
    super(ctx, at, texts);
  }

  @Override
  void conflict(DeviceConflict c) {
    if (c.culprit() != DeviceConflict.Culprit.STATIC_CONSTANT) {
      return;
    }
    Operand cpu = c.cpu();
    Operand device = c.device();
    if (ctx.suppressedAt(ctx.trees().getElement(cpu.path), CheckId.STATIC_TENSOR_CONSTANT)) {
      return;
    }
    report(
        CheckId.STATIC_TENSOR_CONSTANT,
        cpu.path,
        "static tensor "
            + cpu.value.originName()
            + " lives on the"
            + " CPU and meets "
            + device.text(ctx)
            + " on "
            + device.value.place().describe()
            + "; a static tensor never"
            + " moves with a model: "
            + (at.scope().isModelClass() ? "make it a @Buffer field, or " : "")
            + "create it on "
            + texts.deviceOf(device),
        false);
  }
}
