package dev.ondevice.samples.mnist;

import dev.ondevice.Device;
import dev.ondevice.Tensor;

/**
 * The epoch's running mean loss, for display, fetched without making the host wait for the device:
 * the summed loss is copied to the host without blocking, and read once that copy has arrived, so
 * the value known lags a little behind the batches.
 *
 * <p>On the CPU there is no copy: the loss is read where it is, and each read counts in the CPU's
 * {@code DeviceStats.syncs()}; {@link #readsOnTheDevice()} says how many, so that the trainer can
 * report the training loop's own reads apart from these.
 */
final class RunningLoss {
  private static final long FETCH_NANOS = 50_000_000L;

  private Tensor inFlight;
  /** Whether {@link #inFlight} is the loss itself, on the CPU, rather than a copy. */
  private boolean inFlightIsOnTheDevice;
  private int batchesInFlight;
  private long lastFetch = System.nanoTime() - FETCH_NANOS;
  private double latest = Double.NaN;
  private int readsOnTheDevice;

  /**
   * Offers the summed loss of the first {@code batches} batches, a tensor on the training device;
   * returns the latest mean loss that has arrived, NaN before the first.
   */
  double update(int batches, Tensor lossTotal) {
    if (inFlight != null && inFlight.isReady()) {
      latest = inFlight.item() / batchesInFlight;
      if (inFlightIsOnTheDevice) {
        readsOnTheDevice++;
      }
      inFlight = null;
    }
    long now = System.nanoTime();
    if (inFlight == null && now - lastFetch >= FETCH_NANOS) {
      inFlight = lossTotal.to(Device.cpu(), true);
      inFlightIsOnTheDevice = inFlight == lossTotal;
      batchesInFlight = batches;
      lastFetch = now;
    }
    return latest;
  }

  /** The reads made of the training device's own tensors: on the CPU, one per value shown; elsewhere none. */
  int readsOnTheDevice() {
    return readsOnTheDevice;
  }
}
