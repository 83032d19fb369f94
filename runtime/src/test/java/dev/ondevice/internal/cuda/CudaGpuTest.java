package dev.ondevice.internal.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ondevice.Cuda;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.internal.backend.Backends;
import dev.ondevice.internal.backend.DeviceId;
import dev.ondevice.internal.cuda.KernelLibrary.Module;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What only a real GPU can show: that its driver compiles every shipped PTX module for the device
 * (the host-executed driver compiles nothing), that the device is one the kernels were built for,
 * and that a kernel's result read back through the real memory system is right. Reported as skipped
 * everywhere else, the host-executed driver included.
 */
class CudaGpuTest {
  static Stream<Device> cuda() {
    return Stream.of(Device.cuda(0));
  }

  private static CudaBackend gpu(Device d) {
    Assumptions.assumeTrue(
        Cuda.isAvailable() && !Cuda.isEmulated(),
        "no CUDA backend here: " + Cuda.unavailableReason().orElse("the devices are emulated"));
    CudaBackend b = cudaBackend(d);
    Assumptions.assumeTrue(
        b != null && !b.name().contains("host-executed"),
        "cuda:0 is the host-executed CUDA driver, not a GPU");
    return b;
  }

  @ParameterizedTest
  @MethodSource("cuda")
  void theDriverCompilesEveryModuleForTheDevice(Device d) {
    CudaBackend b = gpu(d);
    for (Module m : Module.values()) {
      for (String kernel : KernelLibrary.argumentSizes(m).keySet()) {
        assertEquals(
            KernelLibrary.argumentSizes(m).get(kernel),
            b.cudaDevice().kernels().kernel(m, kernel).argumentBytes(),
            kernel);
      }
    }
  }

  @ParameterizedTest
  @MethodSource("cuda")
  void theDeviceHasComputeCapabilityEightOrMore(Device d) {
    CudaBackend b = gpu(d);
    assertTrue(
        b.cudaDevice().computeCapabilityMajor() >= 8, b.details() + ": the PTX targets sm_80");
  }

  @ParameterizedTest
  @MethodSource("cuda")
  void aLongChainOfKernelsGivesTheExactResult(Device d) {
    gpu(d);
    Tensor x = Tensor.ones(Shape.of(1 << 20), d);
    for (int i = 0; i < 1000; i++) {
      x = x.add(1.0);
    }
    assertEquals(
        1001.0 * (1 << 20),
        x.sum().item(),
        "1000 queued kernels, each reading the last one's output");
  }

  /** The CUDA backend of {@code d}, or null where it is emulated or absent. */
  static CudaBackend cudaBackend(dev.ondevice.Device d) {
    if (!d.isCuda() || Backends.deviceCount(DeviceId.CUDA_TYPE) <= Math.max(d.index(), 0)) {
      return null;
    }
    return Backends.of(DeviceId.cuda(Math.max(d.index(), 0))) instanceof CudaBackend b ? b : null;
  }
}
