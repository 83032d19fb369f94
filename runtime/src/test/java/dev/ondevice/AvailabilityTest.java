package dev.ondevice;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * CUDA availability queries, the device-agnostic default, and asking for devices that do not exist.
 */
class AvailabilityTest {

  // ---------------------------------------------------------------- without CUDA

  @Test
  void queriesWithoutCudaSaySoWithoutThrowing() {
    try (EmulatedCuda.Installation ignored = EmulatedCuda.install(0)) {
      assertFalse(assertDoesNotThrow(Cuda::isAvailable));
      assertEquals(0, assertDoesNotThrow(Cuda::deviceCount));
      assertFalse(assertDoesNotThrow(Cuda::isEmulated));
      assertDoesNotThrow(() -> Cuda.synchronize());
      assertDoesNotThrow(() -> Device.cuda(0).describe());
      assertDoesNotThrow(() -> DeviceStats.of(Device.cuda(0)));
    }
  }

  @Test
  void unavailableReasonIsOneLine() {
    try (EmulatedCuda.Installation ignored = EmulatedCuda.install(0)) {
      Optional<String> reason = Cuda.unavailableReason();
      assertTrue(reason.isPresent());
      assertFalse(reason.get().isBlank());
      assertFalse(reason.get().contains("\n"), reason.get());
      assertFalse(reason.get().contains("\r"), reason.get());
    }
  }

  @Test
  void cudaIfAvailableFallsBackToTheCpu() {
    try (EmulatedCuda.Installation ignored = EmulatedCuda.install(0)) {
      assertSame(Device.cpu(), Device.cudaIfAvailable());
    }
  }

  @Test
  void deviceAgnosticCodeRunsOnTheCpuWithoutCuda() {
    try (EmulatedCuda.Installation ignored = EmulatedCuda.install(0)) {
      Device device = Device.cudaIfAvailable();
      Tensor x = Tensor.ones(2, 2, device);
      Tensor y = x.matmul(x).add(1.0);
      assertEquals(Device.cpu(), y.device());
      assertArrayEquals(new float[] {3, 3, 3, 3}, y.toFloatArray());
    }
  }

  private static void assertCudaUnavailable(Executable executable) {
    IllegalStateException e = assertThrows(IllegalStateException.class, executable);
    assertTrue(e.getMessage().startsWith("CUDA is not available: "), e.getMessage());
    assertTrue(e.getMessage().contains(Cuda.unavailableReason().orElseThrow()), e.getMessage());
  }

  @Test
  void askingForACudaTensorWithoutCudaThrows() {
    try (EmulatedCuda.Installation ignored = EmulatedCuda.install(0)) {
      Tensor cpu = Tensor.ones(3);
      assertCudaUnavailable(() -> Tensor.zeros(3, Device.cuda(0)));
      assertCudaUnavailable(() -> Tensor.randn(3, Device.cuda()));
      assertCudaUnavailable(() -> cpu.to(Device.cuda(0)));
      assertCudaUnavailable(() -> cpu.to(Device.cuda()));
      assertCudaUnavailable(cpu::cuda);
      assertCudaUnavailable(() -> Cuda.synchronize(Device.cuda(0)));
    }
  }

  // ---------------------------------------------------------------- with emulated CUDA

  @Test
  void emulatedDevicesAreAvailable() {
    assertTrue(Cuda.isAvailable());
    assertTrue(Cuda.isEmulated());
    assertEquals(2, Cuda.deviceCount());
    assertEquals(Optional.empty(), Cuda.unavailableReason());
    assertEquals(Device.cuda(0), Device.cudaIfAvailable());
  }

  @Test
  void deviceAgnosticCodeRunsOnCudaZero() {
    Device device = Device.cudaIfAvailable();
    Tensor x = Tensor.ones(2, 2, device);
    Tensor y = x.matmul(x).add(1.0);
    assertEquals(Device.cuda(0), y.device());
    assertArrayEquals(new float[] {3, 3, 3, 3}, y.toFloatArray());
  }

  @Test
  void askingForADeviceBeyondTheCountNamesTheCount() {
    IllegalStateException e =
        assertThrows(IllegalStateException.class, () -> Tensor.zeros(3, Device.cuda(5)));
    assertTrue(e.getMessage().contains("cuda:5"), e.getMessage());
    assertTrue(e.getMessage().contains("2 CUDA devices"), e.getMessage());
    assertTrue(e.getMessage().contains("cuda:0 to cuda:1"), e.getMessage());

    IllegalStateException move =
        assertThrows(IllegalStateException.class, () -> Tensor.ones(3).to(Device.cuda(2)));
    assertTrue(move.getMessage().contains("cuda:2"), move.getMessage());
  }

  @Test
  void askingForADeviceBeyondASingleDeviceNamesIt() {
    try (EmulatedCuda.Installation ignored = EmulatedCuda.install(1)) {
      IllegalStateException e =
          assertThrows(IllegalStateException.class, () -> Tensor.zeros(3, Device.cuda(1)));
      assertTrue(e.getMessage().contains("cuda:1"), e.getMessage());
      assertTrue(e.getMessage().contains("1 CUDA device (cuda:0)"), e.getMessage());
    }
  }
}
