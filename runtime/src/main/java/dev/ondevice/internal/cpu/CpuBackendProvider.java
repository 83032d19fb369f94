package dev.ondevice.internal.cpu;

import dev.ondevice.internal.backend.BackendProvider;
import dev.ondevice.internal.backend.DeviceId;
import dev.ondevice.internal.backend.DeviceSet;
import java.util.List;

/** The CPU: one device, always there; registered for the device type {@code cpu}. */
public final class CpuBackendProvider implements BackendProvider {
  /** A provider; {@link java.util.ServiceLoader} makes it. */
  public CpuBackendProvider() {}

  @Override
  public String deviceType() {
    return DeviceId.CPU_TYPE;
  }

  @Override
  public DeviceSet open(int count) {
    return new DeviceSet(
        List.of(CpuBackend.cpu()),
        false,
        null,
        "CPU: "
            + Parallel.THREADS
            + " threads; matrix products by "
            + Gemm.nativeStatus()
            + "; float32 convolutions by "
            + Dnnl.status());
  }
}
