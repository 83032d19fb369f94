package dev.ondevice.backend;

import dev.ondevice.Device;

/**
 * Resolves devices to backends: the CPU always, and CUDA devices where they exist. Emulated CUDA
 * devices exist only when asked for, with {@code -Dondevice.emulatedCudaDevices=N} or {@link
 * #installEmulation}: nobody gets one by accident. Internal; the public face is {@code Cuda} and
 * {@code EmulatedCuda}.
 */
public final class DeviceRegistry {
  /** The system property that asks for emulated CUDA devices. */
  public static final String EMULATION_PROPERTY = "ondevice.emulatedCudaDevices";

  private static final HostBackend CPU = HostBackend.cpu();
  private static volatile CudaDevices cuda = CudaDevices.fromProperty(System.getProperty(EMULATION_PROPERTY));

  private DeviceRegistry() {}

  /** The backend of the CPU. */
  public static HostBackend cpu() {
    return CPU;
  }

  /**
   * The backend of {@code device}.
   *
   * @throws IllegalStateException if the device does not exist here, with the reason
   */
  public static Backend backend(Device device) {
    if (device.isCpu()) {
      return CPU;
    }
    return cuda.backend(device.resolved());
  }

  /** Whether at least one CUDA device (real or emulated) can be used. Never throws. */
  public static boolean cudaAvailable() {
    return cuda.count() > 0;
  }

  /** The number of CUDA devices. Never throws. */
  public static int cudaDeviceCount() {
    return cuda.count();
  }

  /** Why CUDA is not available, or null when it is. */
  public static String cudaUnavailableReason() {
    return cuda.count() > 0 ? null : cuda.reason();
  }

  /** Whether the CUDA devices are emulated. */
  public static boolean cudaEmulated() {
    return cuda.emulated();
  }

  /** The device for people: {@code cuda:0 (emulated)} for an emulated device. */
  public static String describe(Device device) {
    if (device.isCuda() && cuda.emulated() && device.resolved().index() < cuda.count()) {
      return device + " (emulated)";
    }
    return device.toString();
  }

  /**
   * Replaces the CUDA devices by {@code count} emulated ones (0 removes them); returns what to
   * call to restore the previous devices, which also stops the streams of the installed ones.
   */
  public static synchronized Runnable installEmulation(int count) {
    if (count < 0) {
      throw new IllegalArgumentException("The number of emulated CUDA devices must be >= 0, got " + count);
    }
    CudaDevices previous = cuda;
    CudaDevices installed = CudaDevices.emulated(count, "emulation was switched off");
    cuda = installed;
    return () -> {
      synchronized (DeviceRegistry.class) {
        cuda = previous;
      }
      installed.close();
    };
  }

  /** The CUDA devices of this process: emulated ones, or none with a reason. */
  private static final class CudaDevices {
    private static final String NO_BACKEND =
        "this build has no CUDA backend (run with -D" + EMULATION_PROPERTY + "=N to emulate N devices)";
    private final HostBackend[] backends;
    private final boolean emulated;
    private final String reason;

    private CudaDevices(HostBackend[] backends, boolean emulated, String reason) {
      this.backends = backends;
      this.emulated = emulated;
      this.reason = reason;
    }

    static CudaDevices fromProperty(String value) {
      if (value == null || value.isBlank()) {
        return new CudaDevices(new HostBackend[0], false, NO_BACKEND);
      }
      int n;
      try {
        n = Integer.parseInt(value.trim());
      } catch (NumberFormatException e) {
        n = -1;
      }
      if (n < 0 || n > 64) {
        return new CudaDevices(new HostBackend[0], false,
            "-D" + EMULATION_PROPERTY + "=" + value + " is not a number of devices between 0 and 64");
      }
      return emulated(n, "-D" + EMULATION_PROPERTY + "=0 asks for no devices");
    }

    static CudaDevices emulated(int count, String reasonIfNone) {
      HostBackend[] b = new HostBackend[count];
      for (int i = 0; i < count; i++) {
        b[i] = HostBackend.emulatedCuda(i);
      }
      return new CudaDevices(b, count > 0, count > 0 ? null : reasonIfNone);
    }

    int count() {
      return backends.length;
    }

    /** Stops the streams once their queued work has run. */
    void close() {
      for (HostBackend b : backends) {
        b.close();
      }
    }

    boolean emulated() {
      return emulated;
    }

    String reason() {
      return reason;
    }

    Backend backend(Device device) {
      if (backends.length == 0) {
        throw new IllegalStateException("CUDA is not available: " + reason);
      }
      int i = device.index();
      if (i >= backends.length) {
        throw new IllegalStateException("Invalid device " + device + ": there "
            + (backends.length == 1 ? "is 1 CUDA device (cuda:0)"
                : "are " + backends.length + " CUDA devices (cuda:0 to cuda:" + (backends.length - 1) + ")"));
      }
      return backends[i];
    }
  }
}
