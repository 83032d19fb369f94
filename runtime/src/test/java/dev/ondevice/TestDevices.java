package dev.ondevice;

import java.util.stream.Stream;

/**
 * The devices op tests run on. In the default test execution, the CPU and an emulated {@code
 * cuda:0} (surefire starts the JVM with {@code -Dondevice.emulatedCudaDevices=2}). In the {@code
 * cuda-backend} execution ({@code -Dondevice.test.devices=cuda:0}), the CUDA backend's {@code
 * cuda:0} alone: a GPU, or the host-executed driver; {@link DeviceCaseInterceptor} reports every
 * case as skipped where neither is there.
 */
public final class TestDevices {
  /** The system property that selects the CUDA backend's devices. */
  public static final String PROPERTY = "ondevice.test.devices";

  private TestDevices() {}

  /** Whether this is the cuda-backend execution. */
  public static boolean cudaBackendRun() {
    return System.getProperty(PROPERTY) != null;
  }

  /** For {@code @MethodSource("dev.ondevice.TestDevices#all")}: every device an op test runs on. */
  public static Stream<Device> all() {
    return cudaBackendRun() ? Stream.of(Device.cuda(0)) : Stream.of(Device.cpu(), Device.cuda(0));
  }

  /**
   * The CPU and two CUDA devices, for cross-device tests; only the CUDA ones in the cuda-backend
   * run.
   */
  public static Stream<Device> withSecondDevice() {
    return cudaBackendRun()
        ? Stream.of(Device.cuda(0), Device.cuda(1))
        : Stream.of(Device.cpu(), Device.cuda(0), Device.cuda(1));
  }
}
