package dev.ondevice.processor.analysis;

import com.sun.source.util.TreePath;

/**
 * {@link CheckId#UNSYNCED_NON_BLOCKING_READ}: the result of a non-blocking copy to the host read
 * before a synchronisation.
 */
final class UnsyncedNonBlockingReadCheck extends DeviceCheck {
  UnsyncedNonBlockingReadCheck(AnalysisContext ctx, Interpretation at, DeviceTexts texts) {
    super(ctx, at, texts);
  }

  @Override
  void read(TreePath path, Value v) {
    if (!v.pendingHostCopy()) {
      return;
    }
    report(
        CheckId.UNSYNCED_NON_BLOCKING_READ,
        path,
        ctx.shortText(path.getLeaf())
            + " holds the result of a"
            + " non-blocking copy to the host and is read here before any synchronisation; in PyTorch this reads stale"
            + " data. Call Cuda.synchronize() first, or make the copy blocking",
        false,
        StatementFixes.before(
            ctx, path, "Cuda.synchronize();", "synchronise before reading", "dev.ondevice.Cuda"));
  }
}
