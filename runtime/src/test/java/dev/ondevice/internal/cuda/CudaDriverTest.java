package dev.ondevice.internal.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * Loading the driver never throws, and the reason it gives when it cannot is one line that says
 * what is missing.
 */
class CudaDriverTest {
  @Test
  void aMissingDriverLibraryIsNamed() {
    UnsatisfiedLinkError e =
        new UnsatisfiedLinkError(
            "Error while loading native library \"JCudaDriver-12.0.0-linux-x86_64\"\n"
                + "Stack trace from the attempt to load the library as a resource:\n"
                + "java.lang.UnsatisfiedLinkError: /tmp/libJCudaDriver-12.0.0-linux-x86_64.so: libcuda.so.1: cannot open shared"
                + " object file: No such file or directory\n\tat java.base/jdk.internal.loader.NativeLibraries.load(Native Method)");
    assertEquals(
        "the CUDA driver could not be loaded (libcuda.so.1: cannot open shared object file: No such file or"
            + " directory); install an NVIDIA driver for CUDA 12 or newer",
        CudaDriver.describeLoadFailure(e));
  }

  @Test
  void otherLoadFailuresNameTheirFirstLine() {
    NoClassDefFoundError e = new NoClassDefFoundError("jcuda/driver/JCudaDriver\nmore");
    assertEquals(
        "JCuda could not be loaded (NoClassDefFoundError: jcuda/driver/JCudaDriver)",
        CudaDriver.describeLoadFailure(e));
  }

  @Test
  void theStatusIsDevicesOrOneLineWhyNot() {
    CudaDriver.Status s = CudaDriver.status();
    if (s.deviceCount() > 0) {
      assertNull(s.reason());
      return;
    }
    assertFalse(s.reason().isBlank());
    assertFalse(s.reason().contains("\n"), s.reason());
    if (System.getenv("LD_LIBRARY_PATH") == null
        || !System.getenv("LD_LIBRARY_PATH").contains("hostcuda")) {
      assertTrue(
          s.reason().contains("libcuda.so.1")
              || s.reason().contains("cuInit")
              || s.reason().contains("device"),
          s.reason());
    }
  }
}
