package dev.ondevice.internal.cuda;

import dev.ondevice.internal.backend.BackendProvider;
import dev.ondevice.internal.backend.DeviceId;
import dev.ondevice.internal.backend.DeviceSet;
import dev.ondevice.internal.backend.HostAllocator;
import java.util.List;

/**
 * The real CUDA devices, through the driver ({@link CudaRuntime}); registered for the device type
 * {@code cuda} in {@code META-INF/services}. The driver loads when the registry first asks, never
 * before; when it does not, there are no devices and the set says why. Pinned host memory becomes
 * the driver's page-locked memory.
 */
public final class CudaBackendProvider implements BackendProvider {
  /** A provider; {@link java.util.ServiceLoader} makes it. */
  public CudaBackendProvider() {}

  @Override
  public String deviceType() {
    return DeviceId.CUDA_TYPE;
  }

  @Override
  public DeviceSet open(int count) {
    CudaRuntime runtime = CudaRuntime.load();
    CudaBackend[] b = runtime.backends();
    if (b.length == 0) {
      return new DeviceSet(List.of(), false, runtime.reason(), null);
    }
    HostAllocator.usePinnedMemory(runtime.pinnedMemory());
    return new DeviceSet(List.of(b), false, null, runtime.summary());
  }
}
