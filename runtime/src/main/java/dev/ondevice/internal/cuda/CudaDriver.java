package dev.ondevice.internal.cuda;

import java.util.regex.Matcher;
import java.util.regex.Pattern;
import jcuda.driver.CUresult;
import jcuda.driver.JCudaDriver;

/**
 * Loads the CUDA driver through JCuda, once, and says why it could not: no JCuda natives for this
 * platform, no {@code libcuda.so.1} (no driver installed), {@code cuInit} failing, or no device.
 * Nothing here throws: the outcome is a {@link Status}. Only the driver API is used, whose natives
 * need nothing but {@code libcuda.so.1}, so any driver from CUDA 12.0 on will do. Internal.
 */
final class CudaDriver {
  /** The system property that switches the CUDA backend off ({@code -Dondevice.cuda=off}). */
  static final String SWITCH_PROPERTY = "ondevice.cuda";

  private static final Pattern MISSING_LIBRARY =
      Pattern.compile("([\\w.+-]+\\.so[\\w.]*): cannot open shared object file[^\\n\\r]*");

  private static Status status;

  private CudaDriver() {}

  /**
   * What loading the driver gave.
   *
   * @param deviceCount the number of CUDA devices, 0 when CUDA is not available
   * @param driverVersion the driver's CUDA version as 1000 * major + 10 * minor, 0 if unknown
   * @param reason why CUDA is not available, in one line; null when it is
   */
  record Status(int deviceCount, int driverVersion, String reason) {}

  /** Loads the driver on the first call; later calls return the same status. Never throws. */
  static synchronized Status status() {
    if (status == null) {
      status = load();
    }
    return status;
  }

  private static Status load() {
    if ("off".equalsIgnoreCase(System.getProperty(SWITCH_PROPERTY, "").trim())) {
      return new Status(
          0, 0, "the CUDA backend was switched off with -D" + SWITCH_PROPERTY + "=off");
    }
    try {
      int r = JCudaDriver.cuInit(0);
      if (r == CUresult.CUDA_ERROR_NO_DEVICE) {
        return new Status(0, 0, "the CUDA driver found no device (cuInit: CUDA_ERROR_NO_DEVICE)");
      }
      if (r != CUresult.CUDA_SUCCESS) {
        return new Status(
            0, 0, "the CUDA driver did not start (cuInit: " + CUresult.stringFor(r) + ")");
      }
      int[] version = new int[1];
      JCudaDriver.cuDriverGetVersion(version);
      int[] count = new int[1];
      r = JCudaDriver.cuDeviceGetCount(count);
      if (r != CUresult.CUDA_SUCCESS) {
        return new Status(
            0,
            version[0],
            "the CUDA driver cannot count its devices (cuDeviceGetCount: "
                + CUresult.stringFor(r)
                + ")");
      }
      if (count[0] == 0) {
        return new Status(0, version[0], "the CUDA driver found no device");
      }
      return new Status(count[0], version[0], null);
    } catch (Throwable t) {
      return new Status(0, 0, describeLoadFailure(t));
    }
  }

  /** The one-line reason for a failure to load JCuda's natives or the driver behind them. */
  static String describeLoadFailure(Throwable t) {
    StringBuilder all = new StringBuilder();
    for (Throwable c = t; c != null; c = c.getCause()) {
      all.append(c.getMessage()).append('\n');
    }
    Matcher m = MISSING_LIBRARY.matcher(all);
    if (m.find()) {
      return "the CUDA driver could not be loaded ("
          + m.group()
          + "); install an NVIDIA driver for CUDA 12 or newer";
    }
    String first =
        String.valueOf(t.getMessage()).lines().findFirst().orElse(t.getClass().getName());
    return "JCuda could not be loaded (" + t.getClass().getSimpleName() + ": " + first + ")";
  }

  /**
   * Throws a {@link CudaCallException} naming {@code call} and {@code where} unless {@code result}
   * is {@code CUDA_SUCCESS}.
   */
  static void check(int result, String call, Object where) {
    if (result != CUresult.CUDA_SUCCESS) {
      throw new CudaCallException(call, result, String.valueOf(where));
    }
  }
}
