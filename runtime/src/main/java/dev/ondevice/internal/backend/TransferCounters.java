package dev.ondevice.internal.backend;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/** Per-device counts of host synchronisations and copies. Internal; read through DeviceStats. */
public final class TransferCounters {
  private static final Map<DeviceId, TransferCounters> ALL = new ConcurrentHashMap<>();

  private final AtomicLong syncs = new AtomicLong();
  private final AtomicLong hostToDevice = new AtomicLong();
  private final AtomicLong hostToDeviceBytes = new AtomicLong();
  private final AtomicLong deviceToHost = new AtomicLong();
  private final AtomicLong deviceToHostBytes = new AtomicLong();
  private final AtomicLong deviceToDevice = new AtomicLong();
  private final AtomicLong deviceToDeviceBytes = new AtomicLong();

  private TransferCounters() {}

  /** The counters of a device (an indexed device). */
  public static TransferCounters of(DeviceId device) {
    return ALL.computeIfAbsent(device.resolved(), d -> new TransferCounters());
  }

  /** Sets every counter of every device to zero. */
  public static void resetAll() {
    ALL.values().forEach(TransferCounters::reset);
  }

  /** Sets this device's counters to zero. */
  public void reset() {
    syncs.set(0);
    hostToDevice.set(0);
    hostToDeviceBytes.set(0);
    deviceToHost.set(0);
    deviceToHostBytes.set(0);
    deviceToDevice.set(0);
    deviceToDeviceBytes.set(0);
  }

  /** Counts a host synchronisation with this device. */
  public void recordSync() {
    syncs.incrementAndGet();
  }

  /** Counts a host read of this device's data (item, toArray, printing). */
  public void recordHostRead() {
    syncs.incrementAndGet();
  }

  /** Counts a copy of {@code bytes} from the host to this device. */
  public void recordHostToDevice(long bytes) {
    hostToDevice.incrementAndGet();
    hostToDeviceBytes.addAndGet(bytes);
  }

  /** Counts a copy of {@code bytes} from this device to the host. */
  public void recordDeviceToHost(long bytes) {
    deviceToHost.incrementAndGet();
    deviceToHostBytes.addAndGet(bytes);
  }

  /** Counts a copy of {@code bytes} from another device to this one. */
  public void recordDeviceToDevice(long bytes) {
    deviceToDevice.incrementAndGet();
    deviceToDeviceBytes.addAndGet(bytes);
  }

  /** Host synchronisations. */
  public long syncs() {
    return syncs.get();
  }

  /** Copies from the host to this device. */
  public long hostToDeviceCopies() {
    return hostToDevice.get();
  }

  /** Bytes copied from the host to this device. */
  public long hostToDeviceBytes() {
    return hostToDeviceBytes.get();
  }

  /** Copies from this device to the host. */
  public long deviceToHostCopies() {
    return deviceToHost.get();
  }

  /** Bytes copied from this device to the host. */
  public long deviceToHostBytes() {
    return deviceToHostBytes.get();
  }

  /** Copies from another device to this one. */
  public long deviceToDeviceCopies() {
    return deviceToDevice.get();
  }

  /** Bytes copied from another device to this one. */
  public long deviceToDeviceBytes() {
    return deviceToDeviceBytes.get();
  }
}
