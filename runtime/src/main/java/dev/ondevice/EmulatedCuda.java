package dev.ondevice;

import dev.ondevice.internal.backend.Backends;
import dev.ondevice.internal.backend.DeviceId;

/**
 * Emulated CUDA devices, for testing device-agnostic code on machines without a GPU (JAX's forced
 * host device count is the model). Each emulated device is a separate device identity backed by the
 * CPU kernels; it runs its work asynchronously, in order, on its own thread (its stream), and
 * prints as {@code cuda:0 (emulated)}. Device-consistency errors, transfers, synchronisations and
 * non-blocking copies behave as on a GPU and are counted in {@link DeviceStats}.
 *
 * <p>Nobody gets one by accident: start the JVM with {@code -Dondevice.emulatedCudaDevices=N}, or
 * in tests:
 *
 * <pre>{@code
 * try (EmulatedCuda.Installation ignored = EmulatedCuda.install(2)) {
 *   Tensor x = Tensor.randn(3, 3, Device.cuda(1));
 * }
 * }</pre>
 */
public final class EmulatedCuda {
  private EmulatedCuda() {}

  /** Replaces the CUDA devices by {@code count} emulated ones until the installation is closed. */
  public static Installation install(int count) {
    return new Installation(Backends.installEmulation(DeviceId.CUDA_TYPE, count));
  }

  /** Emulated devices in place; closing restores the devices there were before. */
  public static final class Installation implements AutoCloseable {
    private final Runnable restore;
    private boolean closed;

    private Installation(Runnable restore) {
      this.restore = restore;
    }

    @Override
    public void close() {
      if (!closed) {
        closed = true;
        restore.run();
      }
    }
  }
}
