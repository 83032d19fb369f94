package dev.ondevice.internal.backend;

/**
 * An error raised by work that ran asynchronously on a device, reported at the next
 * synchronisation: the emulated form of a CUDA error surfacing at a later call.
 */
public final class AsyncDeviceException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** The failure {@code cause} of an op that ran asynchronously on {@code device}. */
  public AsyncDeviceException(DeviceId device, RuntimeException cause) {
    super(
        "An earlier asynchronous op on "
            + Backends.describe(device)
            + " failed: "
            + cause.getMessage()
            + " (device errors surface at the next synchronisation; the op that failed may be far"
            + " before this call)",
        cause);
  }
}
