package dev.ondevice.internal.cuda;

import dev.ondevice.internal.backend.PinnedMemory;

/**
 * The CUDA devices of this process: the driver loaded ({@link CudaDriver}) and each device's
 * properties read; its context, stream and kernels come at its first use, cuBLAS at the first
 * matrix product. When loading fails there are no devices, and {@link #reason()} says why in one
 * line. Internal; {@link CudaBackendProvider} asks for it.
 */
public final class CudaRuntime {
  private final CudaBackend[] backends;
  private final String reason;
  private final int driverVersion;
  private final PinnedMemory pinned;

  private CudaRuntime(
      CudaBackend[] backends, String reason, int driverVersion, PinnedMemory pinned) {
    this.backends = backends;
    this.reason = reason;
    this.driverVersion = driverVersion;
    this.pinned = pinned;
  }

  /** Loads the driver and sets up every device. Never throws. */
  public static CudaRuntime load() {
    CudaDriver.Status status = CudaDriver.status();
    if (status.deviceCount() == 0) {
      return new CudaRuntime(new CudaBackend[0], status.reason(), status.driverVersion(), null);
    }
    try {
      CudaDevice[] devices = new CudaDevice[status.deviceCount()];
      for (int i = 0; i < devices.length; i++) {
        devices[i] = new CudaDevice(i);
      }
      CudaGemm gemm = new CudaGemm(devices[0]);
      CudaBackend[] backends = new CudaBackend[devices.length];
      for (int i = 0; i < devices.length; i++) {
        backends[i] = new CudaBackend(devices[i], gemm);
      }
      return new CudaRuntime(
          backends, null, status.driverVersion(), new CudaPinnedMemory(devices[0]));
    } catch (RuntimeException | LinkageError e) {
      return new CudaRuntime(
          new CudaBackend[0],
          "the CUDA devices could not be set up (" + e.getMessage() + ")",
          status.driverVersion(),
          null);
    }
  }

  /** The backends, one per device, by index; empty when CUDA is not available. */
  public CudaBackend[] backends() {
    return backends.clone();
  }

  /** Why there are no devices; null when there are. */
  public String reason() {
    return reason;
  }

  /** The driver's CUDA version as {@code 12.4}, or null when no driver loaded. */
  public String driverVersion() {
    return driverVersion == 0 ? null : driverVersion / 1000 + "." + driverVersion % 1000 / 10;
  }

  /** The driver and the devices for people, in one line. */
  public String summary() {
    if (backends.length == 0) {
      return "CUDA is not available: " + reason;
    }
    StringBuilder b =
        new StringBuilder(
            "CUDA driver "
                + driverVersion()
                + ", "
                + backends.length
                + " device"
                + (backends.length == 1 ? "" : "s")
                + ": ");
    for (int i = 0; i < backends.length; i++) {
      b.append(i == 0 ? "" : "; ").append(backends[i].details());
    }
    return b.append("; matrix products by ").append(backends[0].gemmDescription()).toString();
  }

  /** The driver's page-locked host memory; null when CUDA is not available. */
  public PinnedMemory pinnedMemory() {
    return pinned;
  }
}
