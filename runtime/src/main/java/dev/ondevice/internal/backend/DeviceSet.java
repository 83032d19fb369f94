package dev.ondevice.internal.backend;

import java.util.List;

/** The devices of one type in this process: real ones, emulated ones, or none with a reason. */
public final class DeviceSet {
  private final List<Backend> backends;
  private final boolean emulated;
  private final String reason;
  private final String summary;

  /**
   * A set of devices.
   *
   * @param backends the devices' backends, by index
   * @param emulated whether they are emulated
   * @param reason why there are none (null when there are some)
   * @param summary the devices for people in one line, or null for a default one
   */
  public DeviceSet(
      List<? extends Backend> backends, boolean emulated, String reason, String summary) {
    this.backends = List.copyOf(backends);
    this.emulated = emulated;
    this.reason = reason;
    this.summary = summary;
  }

  /** No devices, for {@code reason}. */
  public static DeviceSet none(String reason) {
    return new DeviceSet(List.of(), false, reason, null);
  }

  /** The backends, by index. */
  public List<Backend> backends() {
    return backends;
  }

  /** The number of devices. */
  public int count() {
    return backends.size();
  }

  /** Whether the devices are emulated. */
  public boolean emulated() {
    return emulated;
  }

  /** Why there are no devices; null when there are some. */
  public String reason() {
    return backends.isEmpty() ? reason : null;
  }

  /** The devices for people, in one line, or null where the registry should say it. */
  public String summary() {
    return summary;
  }

  /** Stops the devices' streams once their queued work has run. */
  public void close() {
    for (Backend b : backends) {
      b.close();
    }
  }
}
