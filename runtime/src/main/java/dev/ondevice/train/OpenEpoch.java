package dev.ondevice.train;

import dev.ondevice.Device;
import dev.ondevice.DeviceStats;
import dev.ondevice.Tensor;
import java.util.OptionalDouble;
import java.util.function.LongSupplier;

/**
 * The epoch under way, for {@link TrainingProgress}: its running loss and samples, and where the
 * clock and the device's synchronisations stood when it began.
 */
final class OpenEpoch {
  final int epoch;
  final RunningLoss loss;
  private final Device device;
  private final LongSupplier nanoTime;
  private final long syncsAtStart;
  private final long nanosAtStart;
  private long samples;

  OpenEpoch(int epoch, int readEvery, Device device, LongSupplier nanoTime) {
    this.epoch = epoch;
    this.loss = new RunningLoss(readEvery);
    this.device = device;
    this.nanoTime = nanoTime;
    this.syncsAtStart = DeviceStats.of(device).syncs();
    this.nanosAtStart = nanoTime.getAsLong();
  }

  /** Adds a batch's loss and size; where the epoch stands now. */
  BatchStats add(Tensor batchLoss, long batchSize) {
    loss.add(batchLoss);
    samples += batchSize;
    return new BatchStats(epoch, loss.batches(), samples, loss.latest());
  }

  /** The epoch's metrics, its summed loss read as {@code lossTotal}, now that it ends. */
  EpochMetrics end(double lossTotal, OptionalDouble accuracy) {
    double seconds = (nanoTime.getAsLong() - nanosAtStart) / 1e9;
    return new EpochMetrics(
        epoch,
        loss.batches(),
        samples,
        lossTotal / loss.batches(),
        accuracy,
        seconds,
        DeviceStats.of(device).syncs() - syncsAtStart,
        loss.reads());
  }
}
