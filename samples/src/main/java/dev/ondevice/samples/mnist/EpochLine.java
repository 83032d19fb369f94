package dev.ondevice.samples.mnist;

import dev.ondevice.Device;
import dev.ondevice.train.EpochMetrics;
import dev.ondevice.train.TrainingListener;
import java.io.PrintStream;
import java.util.Locale;

/**
 * A line per epoch, a {@link TrainingListener}: the mean training loss, the test accuracy, the time
 * and the host synchronisations, {@code epoch 1: loss 0.4321, test accuracy 91.20%, 3.2 s, 1 host
 * sync}.
 */
final class EpochLine implements TrainingListener {
  private final PrintStream out;
  private final Device device;

  /** Lines on {@code out} about training on {@code device}. */
  EpochLine(PrintStream out, Device device) {
    this.out = out;
    this.device = device;
  }

  @Override
  public void onEpochEnd(EpochMetrics m) {
    out.printf(
        Locale.ROOT,
        "epoch %d: loss %.4f, test accuracy %.2f%%, %.1f s, %s%n",
        m.epoch(),
        m.meanLoss(),
        100 * m.accuracy().orElseThrow(),
        m.seconds(),
        describeSyncs(m, device));
  }

  /**
   * The epoch's count, saying what it counts: on a GPU, the times the host waited for it; on the
   * CPU, which the host never waits for, the reads of its tensors' values, the training loop's
   * apart from the progress bar's (the running loss's reads).
   */
  static String describeSyncs(EpochMetrics m, Device device) {
    if (!device.isCpu()) {
      return m.hostSyncs() + (m.hostSyncs() == 1 ? " host sync" : " host syncs");
    }
    long loop = m.hostSyncs() - m.runningLossReads();
    return String.format(
        Locale.ROOT,
        "%d host %s by the training loop, %d by the progress bar",
        loop,
        loop == 1 ? "read" : "reads",
        m.runningLossReads());
  }
}
