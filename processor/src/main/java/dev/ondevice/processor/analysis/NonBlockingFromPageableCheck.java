package dev.ondevice.processor.analysis;

/**
 * {@link CheckId#NON_BLOCKING_FROM_PAGEABLE}: a non-blocking copy to a device from host memory that
 * is not pinned.
 */
final class NonBlockingFromPageableCheck extends DeviceCheck {
  NonBlockingFromPageableCheck(AnalysisContext ctx, Interpretation at, DeviceTexts texts) {
    super(ctx, at, texts);
  }

  @Override
  void move(TensorMove m) {
    MethodInterpreter.Call c = m.call();
    if (!m.nonBlocking()
        || !Place.CPU.equals(m.receiver().place())
        || m.receiver().pinned() != Value.Tri.NO
        || !m.target().isKnown()
        || Place.CPU.equals(m.target())
        || c.receiverTree == null) {
      return;
    }
    String x = ctx.shortText(c.receiverTree);
    report(
        CheckId.NON_BLOCKING_FROM_PAGEABLE,
        c.path,
        x
            + " is not in pinned memory, so "
            + ctx.shortText(c.tree)
            + " cannot copy asynchronously: the copy blocks and does not overlap with compute; pin the source ("
            + x
            + ".pinMemory(), or a DataLoader with pinMemory(true)), or drop nonBlocking",
        false,
        Fix.replace(
            "copy blocking", c.argumentTrees.get(c.semantics.nonBlockingParameter), "false"));
  }
}
