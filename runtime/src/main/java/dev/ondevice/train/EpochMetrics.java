package dev.ondevice.train;

import java.util.Objects;
import java.util.OptionalDouble;

/**
 * What one epoch gave, as Keras's {@code logs} and DJL's {@code Metrics} report it: its mean
 * training loss, the accuracy the loop measured if it did, its time and speed, and the host
 * synchronisations it made. Immutable; {@link TrainingProgress#endEpoch} makes them.
 *
 * @param epoch the epoch, counted from 1
 * @param batches the batches trained
 * @param samples the samples trained
 * @param meanLoss the mean of the batches' losses
 * @param accuracy the fraction of correct predictions the loop counted for this epoch (on a
 *     validation set or the training set, as it chose), in [0, 1]; empty if it counted none
 * @param seconds the epoch's duration, from {@code startEpoch} to {@code endEpoch}, evaluation
 *     included
 * @param hostSyncs the change of the device's {@link dev.ondevice.DeviceStats#syncs()} over the
 *     epoch: on a GPU the times the host waited for it, on the CPU the host reads of its tensors
 * @param runningLossReads of those, the reads the {@link RunningLoss} made during the epoch to show
 *     the loss as it went: on the CPU only, since on a GPU it reads copies that have arrived
 */
public record EpochMetrics(
    int epoch,
    int batches,
    long samples,
    double meanLoss,
    OptionalDouble accuracy,
    double seconds,
    long hostSyncs,
    int runningLossReads) {
  /**
   * Checks the values: a positive epoch, batches, samples and duration, and an accuracy in [0, 1].
   */
  public EpochMetrics {
    requireAtLeastOne("epoch", epoch);
    requireAtLeastOne("batches", batches);
    requireAtLeastOne("samples", samples);
    Objects.requireNonNull(
        accuracy, "EpochMetrics: accuracy is null; OptionalDouble.empty() when none was counted");
    if (!(seconds > 0)) {
      throw new IllegalArgumentException("EpochMetrics: seconds must be positive, got " + seconds);
    }
    if (accuracy.isPresent() && !(accuracy.getAsDouble() >= 0 && accuracy.getAsDouble() <= 1)) {
      throw new IllegalArgumentException(
          "EpochMetrics: accuracy must be in [0, 1], got " + accuracy.getAsDouble());
    }
  }

  /** Samples trained per second: {@code samples / seconds}. */
  public double samplesPerSecond() {
    return samples / seconds;
  }

  private static void requireAtLeastOne(String name, long value) {
    if (value < 1) {
      throw new IllegalArgumentException(
          "EpochMetrics: " + name + " must be at least 1, got " + value);
    }
  }
}
