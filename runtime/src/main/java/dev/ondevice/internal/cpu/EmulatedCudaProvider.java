package dev.ondevice.internal.cpu;

import dev.ondevice.internal.backend.BackendProvider;
import dev.ondevice.internal.backend.DeviceId;
import dev.ondevice.internal.backend.DeviceSet;
import java.util.ArrayList;
import java.util.List;

/**
 * Emulated CUDA devices: each a separate device identity that runs the CPU kernels on its own
 * stream thread. Used only when emulation is asked for ({@code -Dondevice.emulatedCudaDevices=N} or
 * {@code EmulatedCuda.install}); they then replace the real CUDA devices.
 */
public final class EmulatedCudaProvider implements BackendProvider {
  /** A provider; {@link java.util.ServiceLoader} makes it. */
  public EmulatedCudaProvider() {}

  @Override
  public String deviceType() {
    return DeviceId.CUDA_TYPE;
  }

  @Override
  public boolean emulates() {
    return true;
  }

  @Override
  public DeviceSet open(int count) {
    List<CpuBackend> b = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      b.add(CpuBackend.emulatedCuda(i));
    }
    String summary =
        count == 0
            ? null
            : count + " emulated CUDA device" + (count == 1 ? "" : "s") + " (the CPU's kernels)";
    return new DeviceSet(b, count > 0, null, summary);
  }
}
