package dev.ondevice;

import dev.ondevice.annotations.HostSync;
import dev.ondevice.backend.DeviceRegistry;
import java.util.Optional;

/**
 * CUDA availability, as {@code torch.cuda}. The queries never throw: on a machine without CUDA
 * they say so, and {@link #unavailableReason()} says why.
 */
public final class Cuda {
  private Cuda() {}

  /** Whether at least one CUDA device can be used (real or, when asked for, emulated). */
  public static boolean isAvailable() {
    return DeviceRegistry.cudaAvailable();
  }

  /** The number of CUDA devices; 0 without CUDA. */
  public static int deviceCount() {
    return DeviceRegistry.cudaDeviceCount();
  }

  /** Whether the CUDA devices are emulated ones (see {@link EmulatedCuda}). */
  public static boolean isEmulated() {
    return DeviceRegistry.cudaEmulated();
  }

  /** Why CUDA is not available, in one line; empty when it is. */
  public static Optional<String> unavailableReason() {
    return Optional.ofNullable(DeviceRegistry.cudaUnavailableReason());
  }

  /** Waits for all work queued on every CUDA device; a host synchronisation on each. */
  @HostSync
  public static void synchronize() {
    for (int i = 0; i < deviceCount(); i++) {
      synchronize(Device.cuda(i));
    }
  }

  /** Waits for all work queued on {@code device}; a host synchronisation. */
  @HostSync
  public static void synchronize(Device device) {
    DeviceRegistry.backend(device).synchronize();
  }
}
