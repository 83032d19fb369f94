package dev.ondevice.internal.backend;

/**
 * Makes the backends of one device type; found through {@link java.util.ServiceLoader} (a {@code
 * META-INF/services/dev.ondevice.internal.backend.BackendProvider} file lists them), so that
 * neither the core nor {@link Backends} names a backend class. PyTorch's {@code
 * DeviceGuardImplInterface} registration is the model: backends import this layer, never the other
 * way round.
 *
 * <p>A provider may emulate its device type on the host: it is used only when emulation is asked
 * for, and then replaces the real devices of that type.
 */
public interface BackendProvider {
  /** The device type served, as in device strings: {@code "cpu"}, {@code "cuda"}. */
  String deviceType();

  /** Whether this provider emulates its device type (used only when emulation is asked for). */
  default boolean emulates() {
    return false;
  }

  /**
   * Opens the devices: the real ones, or {@code count} emulated ones for an emulating provider
   * (real providers ignore {@code count}). Never throws: where there are none, a set without
   * devices says why.
   */
  DeviceSet open(int count);
}
