package dev.ondevice.backend;

import dev.ondevice.Device;
import dev.ondevice.backend.cuda.CudaBackend;
import dev.ondevice.backend.cuda.CudaRuntime;

/**
 * Resolves devices to backends: the CPU always, and CUDA devices where they exist. The CUDA
 * driver is loaded on the first question about CUDA (or the first pinned allocation), not before:
 * a program that stays on the CPU never touches it. Emulated CUDA devices exist only when asked
 * for, with {@code -Dondevice.emulatedCudaDevices=N} or {@link #installEmulation}, and then
 * replace the real ones: nobody gets one by accident. Internal; the public face is {@code Cuda}
 * and {@code EmulatedCuda}.
 */
public final class DeviceRegistry {
  /** The system property that asks for emulated CUDA devices. */
  public static final String EMULATION_PROPERTY = "ondevice.emulatedCudaDevices";

  private static final HostBackend CPU = HostBackend.cpu();
  private static volatile CudaDevices cuda;

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
    return cuda().backend(device.resolved());
  }

  /** The CUDA devices, set up on the first call. */
  private static CudaDevices cuda() {
    CudaDevices c = cuda;
    if (c == null) {
      synchronized (DeviceRegistry.class) {
        c = cuda;
        if (c == null) {
          c = CudaDevices.fromProperty(System.getProperty(EMULATION_PROPERTY));
          cuda = c;
        }
      }
    }
    return c;
  }

  /** Whether at least one CUDA device (real or emulated) can be used. Never throws. */
  public static boolean cudaAvailable() {
    return cuda().count() > 0;
  }

  /** The number of CUDA devices. Never throws. */
  public static int cudaDeviceCount() {
    return cuda().count();
  }

  /** Why CUDA is not available, or null when it is. */
  public static String cudaUnavailableReason() {
    CudaDevices c = cuda();
    return c.count() > 0 ? null : c.reason();
  }

  /** Whether the CUDA devices are emulated. */
  public static boolean cudaEmulated() {
    return cuda().emulated();
  }

  /** The CUDA devices and the driver for people, in one line. Never throws. */
  public static String cudaSummary() {
    return cuda().summary;
  }

  /** The CUDA backend of {@code device}, or null when it is emulated or does not exist. */
  public static CudaBackend cudaBackend(Device device) {
    CudaDevices c = cuda();
    int i = device.resolved().index();
    return i >= 0 && i < c.count() && c.backends[i] instanceof CudaBackend b ? b : null;
  }

  /**
   * Memory of {@code device}: {@code [allocated, reserved, peak allocated]} bytes. The CUDA
   * backend's allocator tells all three; an emulated device counts its live storages, and
   * reserves what it allocates.
   */
  public static long[] memory(Device device) {
    Backend b = backend(device);
    if (b instanceof CudaBackend c) {
      return new long[] {c.allocatedBytes(), c.reservedBytes(), c.peakAllocatedBytes()};
    }
    HostBackend h = (HostBackend) b;
    long live = h.liveBytes().get();
    return new long[] {live, live, h.peakBytes().get()};
  }

  /** Returns the cached, unused memory of every CUDA device (and host blocks) to the system. */
  public static void emptyCache() {
    CudaDevices c = cuda();
    for (Backend b : c.backends) {
      if (b instanceof CudaBackend cb) {
        cb.emptyCache();
      }
    }
    HostAllocator.emptyCache();
  }

  /** The device for people: {@code cuda:0 (emulated)} for an emulated device. */
  public static String describe(Device device) {
    CudaDevices c = cuda;
    if (device.isCuda() && c != null && c.emulated() && device.resolved().index() < c.count()) {
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
    CudaDevices previous = cuda();
    CudaDevices installed = CudaDevices.emulated(count, "emulation was switched off");
    cuda = installed;
    return () -> {
      synchronized (DeviceRegistry.class) {
        cuda = previous;
      }
      installed.close();
    };
  }

  /** The CUDA devices of this process: real ones, emulated ones, or none with a reason. */
  private static final class CudaDevices {
    private static final String EMULATION_HINT =
        " (to test device-agnostic code without a GPU, emulate devices with -D" + EMULATION_PROPERTY + "=N)";
    private final Backend[] backends;
    private final boolean emulated;
    private final String reason;
    private final String summary;

    private CudaDevices(Backend[] backends, boolean emulated, String reason) {
      this(backends, emulated, reason, null);
    }

    private CudaDevices(Backend[] backends, boolean emulated, String reason, String summary) {
      this.backends = backends;
      this.emulated = emulated;
      this.reason = reason;
      this.summary = summary != null ? summary
          : backends.length == 0 ? "CUDA is not available: " + reason
          : backends.length + " emulated CUDA device" + (backends.length == 1 ? "" : "s") + " (the CPU's kernels)";
    }

    static CudaDevices fromProperty(String value) {
      if (value == null || value.isBlank()) {
        return real();
      }
      int n;
      try {
        n = Integer.parseInt(value.trim());
      } catch (NumberFormatException e) {
        n = -1;
      }
      if (n < 0 || n > 64) {
        return new CudaDevices(new Backend[0], false,
            "-D" + EMULATION_PROPERTY + "=" + value + " is not a number of devices between 0 and 64");
      }
      return emulated(n, "-D" + EMULATION_PROPERTY + "=0 asks for no devices");
    }

    /** The devices of the CUDA driver; pinned memory becomes page-locked memory of the driver. */
    static CudaDevices real() {
      CudaRuntime runtime = CudaRuntime.load();
      CudaBackend[] b = runtime.backends();
      if (b.length == 0) {
        return new CudaDevices(b, false, runtime.reason() + EMULATION_HINT);
      }
      HostAllocator.usePinnedMemory(runtime.pinnedMemory());
      return new CudaDevices(b, false, null, runtime.summary());
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
      for (Backend b : backends) {
        if (b instanceof HostBackend h) {
          h.close();
        }
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
