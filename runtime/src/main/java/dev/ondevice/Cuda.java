package dev.ondevice;

import dev.ondevice.annotations.HostSync;
import dev.ondevice.backend.DeviceRegistry;
import dev.ondevice.backend.cuda.CudaBackend;
import java.util.Optional;

/**
 * CUDA availability and device memory, as {@code torch.cuda}. The availability queries never
 * throw: on a machine without CUDA they say so, and {@link #unavailableReason()} says why. The CUDA
 * driver is loaded on the first of these calls (or the first CUDA tensor), never by a program
 * that stays on the CPU.
 *
 * <p>Device memory is held by a caching allocator, as in PyTorch: memory of tensors that are no
 * longer reachable returns to the cache once the garbage collector has noticed (the allocator
 * asks for a collection when its memory has grown), and {@link #emptyCache()} gives the cache
 * back to the driver.
 */
public final class Cuda {
  private Cuda() {}

  /** Whether at least one CUDA device can be used (real or, when asked for, emulated). */
  public static boolean isAvailable() {
    return DeviceRegistry.cudaAvailable();
  }

  /** The number of CUDA devices; 0 without CUDA. */
  public static int deviceCount() {
    return DeviceRegistry.cudaDeviceCount();
  }

  /** Whether the CUDA devices are emulated ones (see {@link EmulatedCuda}). */
  public static boolean isEmulated() {
    return DeviceRegistry.cudaEmulated();
  }

  /**
   * The CUDA devices for people, in one line: the driver's version, each device's name, compute
   * capability and memory, and what runs matrix products; or why there are none. Never throws.
   */
  public static String summary() {
    return DeviceRegistry.cudaSummary();
  }

  /** Why CUDA is not available, in one line; empty when it is. */
  public static Optional<String> unavailableReason() {
    return Optional.ofNullable(DeviceRegistry.cudaUnavailableReason());
  }

  /**
   * The name of CUDA device {@code index}, as {@code NVIDIA H200}; {@code cuda:0 (emulated)} for an
   * emulated one.
   *
   * @throws IllegalStateException if there is no such device, saying how many there are
   */
  public static String deviceName(int index) {
    Device d = Device.cuda(index);
    DeviceRegistry.backend(d);
    CudaBackend b = DeviceRegistry.cudaBackend(d);
    return b == null ? d.describe() : b.name();
  }

  /** Bytes held by the tensors on {@code device} ({@code torch.cuda.memory_allocated}). */
  public static long memoryAllocated(Device device) {
    return DeviceRegistry.memory(device)[0];
  }

  /**
   * Bytes the caching allocator of {@code device} holds from the driver: the tensors' and the
   * cache's ({@code torch.cuda.memory_reserved}).
   */
  public static long memoryReserved(Device device) {
    return DeviceRegistry.memory(device)[1];
  }

  /** The most bytes the tensors on {@code device} held at once ({@code torch.cuda.max_memory_allocated}). */
  public static long maxMemoryAllocated(Device device) {
    return DeviceRegistry.memory(device)[2];
  }

  /**
   * Gives the cached memory of every CUDA device back to the driver ({@code
   * torch.cuda.empty_cache}): for other processes, or before a large allocation. Waits for the
   * devices' queued work first.
   */
  public static void emptyCache() {
    DeviceRegistry.emptyCache();
  }

  /** Waits for all work queued on every CUDA device; a host synchronisation on each. */
  @HostSync
  public static void synchronize() {
    for (int i = 0; i < deviceCount(); i++) {
      synchronize(Device.cuda(i));
    }
  }

  /** Waits for all work queued on {@code device}; a host synchronisation. */
  @HostSync
  public static void synchronize(Device device) {
    DeviceRegistry.backend(device).synchronize();
  }
}
