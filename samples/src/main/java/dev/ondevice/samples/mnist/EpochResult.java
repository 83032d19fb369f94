package dev.ondevice.samples.mnist;

import dev.ondevice.Device;
import java.util.Locale;

/**
 * What one epoch gave: its mean training loss, the test accuracy after it, its training speed, and
 * the host synchronisations it made.
 */
final class EpochResult {
  final int epoch;
  final double loss;
  final double accuracy;
  final double samplesPerSecond;
  /** The change of the device's {@code DeviceStats.syncs()} over the epoch. */
  final long hostSyncs;
  /** Of those, the progress bar's reads of the running loss (on the CPU only: elsewhere it reads a copy). */
  final long progressReads;

  EpochResult(int epoch, double loss, double accuracy, double samplesPerSecond, long hostSyncs, long progressReads) {
    this.epoch = epoch;
    this.loss = loss;
    this.accuracy = accuracy;
    this.samplesPerSecond = samplesPerSecond;
    this.hostSyncs = hostSyncs;
    this.progressReads = progressReads;
  }

  /**
   * The epoch's count, saying what it counts: on a GPU, the times the host waited for it; on the
   * CPU, which the host never waits for, the reads of its tensors' values, the training loop's apart
   * from the progress bar's.
   */
  String describeSyncs(Device device) {
    if (!device.isCpu()) {
      return hostSyncs + (hostSyncs == 1 ? " host sync" : " host syncs");
    }
    return String.format(Locale.ROOT, "%d host %s by the training loop, %d by the progress bar",
        hostSyncs - progressReads, hostSyncs - progressReads == 1 ? "read" : "reads", progressReads);
  }
}
