package dev.ondevice.train;

import dev.ondevice.Device;
import dev.ondevice.Tensor;
import java.util.OptionalDouble;

/**
 * The sum of an epoch's batch losses, kept on the device, and its running mean, read on the host
 * without making the host wait: the rule "no {@code item()} per batch" (the {@code HostSyncInLoop}
 * check) with a loss to show all the same.
 *
 * <p>{@link #add} adds each loss, detached, to the sum on its device: no host synchronisation.
 * Every {@code readEvery} batches, unless a copy is still on its way, it starts a non-blocking copy
 * of the sum to the host; {@link #latest()} reads a copy once it has arrived ({@link
 * Tensor#isReady()}), so on a GPU the host never waits, and the mean shown lags a little behind. On
 * the CPU there is nothing to copy: the sum is read at the {@code readEvery}-th batch where it is,
 * and each such read counts in the CPU's {@code DeviceStats.syncs()}; {@link #reads()} says how
 * many. The epoch's total is {@link #total()}, for one read at the end of the epoch.
 */
public final class RunningLoss {
  private final int readEvery;
  private Tensor total;
  private int batches;
  private Tensor inFlight;
  private int batchesInFlight;
  private OptionalDouble latest = OptionalDouble.empty();
  private int reads;

  /**
   * An empty sum that starts a read every {@code readEvery} batches.
   *
   * @throws IllegalArgumentException if {@code readEvery} is below 1
   */
  public RunningLoss(int readEvery) {
    if (readEvery < 1) {
      throw new IllegalArgumentException(
          "RunningLoss: readEvery must be at least 1, got " + readEvery);
    }
    this.readEvery = readEvery;
  }

  /**
   * Adds a batch's loss, a one-element tensor, to the sum on its device; starts a copy to the host
   * on every {@code readEvery}-th batch when none is on its way.
   *
   * @throws IllegalArgumentException if {@code loss} has more or fewer than one element
   */
  public void add(Tensor loss) {
    if (loss.numel() != 1) {
      throw new IllegalArgumentException(
          "RunningLoss: a loss has one element, got shape " + loss.shape());
    }
    Tensor value = loss.detach().reshape();
    total = total == null ? value.clone() : total.add(value);
    batches++;
    collect();
    if (batches % readEvery == 0 && inFlight == null) {
      inFlight = total.to(Device.cpu(), true);
      batchesInFlight = batches;
    }
  }

  /** The latest mean loss that has arrived on the host, empty before the first; never waits. */
  public OptionalDouble latest() {
    collect();
    return latest;
  }

  /** The batches added. */
  public int batches() {
    return batches;
  }

  /**
   * The sum of the losses added, a 0-dim tensor on their device.
   *
   * @throws IllegalStateException if no loss has been added
   */
  public Tensor total() {
    if (total == null) {
      throw new IllegalStateException("RunningLoss: no loss has been added");
    }
    return total;
  }

  /** The reads made of the device's own tensors: on the CPU one per mean read, on a GPU none. */
  public int reads() {
    return reads;
  }

  private void collect() {
    if (inFlight != null && inFlight.isReady()) {
      latest = OptionalDouble.of(inFlight.item() / batchesInFlight);
      if (total.device().isCpu()) {
        reads++;
      }
      inFlight = null;
    }
  }
}
