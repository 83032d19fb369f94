package dev.ondevice;

import dev.ondevice.internal.backend.TransferCounters;

/**
 * Counts of host synchronisations and copies per device: the numbers behind the rules "no item() in
 * the training loop" and "minimise transfers". A snapshot; {@link #reset()} zeroes the counters.
 *
 * <pre>{@code
 * DeviceStats.reset();
 * trainOneEpoch();
 * assert DeviceStats.of(device).syncs() == 1;   // loss read once per epoch
 * }</pre>
 *
 * <p>A sync is counted when the host waits for a device's data: {@link Tensor#item()}, the {@code
 * to*Array} methods, printing, a blocking copy to the CPU, reading the result of a non-blocking
 * copy, and {@link Cuda#synchronize()}. The CPU has no device to wait for: its {@link #syncs()}
 * counts the host's reads of its tensors' values by the same calls, so that a device-agnostic loop
 * tested on the CPU reads the loss as often as it would sync on a GPU. That count holds every read
 * of a CPU tensor, though, including those a program makes of host data ({@code toString()} calls
 * them host reads on the CPU, syncs elsewhere).
 */
public final class DeviceStats {
  private final Device device;
  private final long syncs;
  private final long hostToDeviceCopies;
  private final long hostToDeviceBytes;
  private final long deviceToHostCopies;
  private final long deviceToHostBytes;
  private final long deviceToDeviceCopies;
  private final long deviceToDeviceBytes;

  private DeviceStats(Device device, TransferCounters c) {
    this.device = device;
    this.syncs = c.syncs();
    this.hostToDeviceCopies = c.hostToDeviceCopies();
    this.hostToDeviceBytes = c.hostToDeviceBytes();
    this.deviceToHostCopies = c.deviceToHostCopies();
    this.deviceToHostBytes = c.deviceToHostBytes();
    this.deviceToDeviceCopies = c.deviceToDeviceCopies();
    this.deviceToDeviceBytes = c.deviceToDeviceBytes();
  }

  /** The counters of {@code device} now ({@code cuda} means {@code cuda:0}). */
  public static DeviceStats of(Device device) {
    Device d = device.resolved();
    return new DeviceStats(d, TransferCounters.of(BackendTypes.id(d)));
  }

  /** Zeroes the counters of every device. */
  public static void reset() {
    TransferCounters.resetAll();
  }

  /** The device. */
  public Device device() {
    return device;
  }

  /** Host synchronisations (on the CPU, host reads of its tensors' values). */
  public long syncs() {
    return syncs;
  }

  /** Copies from the host to this device. */
  public long hostToDeviceCopies() {
    return hostToDeviceCopies;
  }

  /** Bytes copied from the host to this device. */
  public long hostToDeviceBytes() {
    return hostToDeviceBytes;
  }

  /** Copies from this device to the host. */
  public long deviceToHostCopies() {
    return deviceToHostCopies;
  }

  /** Bytes copied from this device to the host. */
  public long deviceToHostBytes() {
    return deviceToHostBytes;
  }

  /** Copies from another device to this one. */
  public long deviceToDeviceCopies() {
    return deviceToDeviceCopies;
  }

  /** Bytes copied from another device to this one. */
  public long deviceToDeviceBytes() {
    return deviceToDeviceBytes;
  }

  /**
   * The counts, each saying what it counts: on the CPU, {@code "cpu: 12 host reads (item(),
   * to*Array(), printing; none waits for a device)"}; on another device, its syncs and its copies.
   */
  @Override
  public String toString() {
    if (device.isCpu()) {
      return device.describe()
          + ": "
          + syncs
          + " host reads (item(), to*Array(), printing; none waits for a device)";
    }
    return device.describe()
        + ": "
        + syncs
        + " syncs (host waits for the device), "
        + hostToDeviceCopies
        + " host-to-device copies ("
        + hostToDeviceBytes
        + " B), "
        + deviceToHostCopies
        + " device-to-host copies ("
        + deviceToHostBytes
        + " B), "
        + deviceToDeviceCopies
        + " device-to-device copies ("
        + deviceToDeviceBytes
        + " B)";
  }
}
