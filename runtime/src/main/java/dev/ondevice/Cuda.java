package dev.ondevice;

import dev.ondevice.annotations.HostSync;
import dev.ondevice.internal.backend.Backends;
import dev.ondevice.internal.backend.DeviceId;
import java.util.Optional;

/**
 * CUDA availability and device memory, as {@code torch.cuda}. The availability queries never throw:
 * on a machine without CUDA they say so, and {@link #unavailableReason()} says why. The CUDA driver
 * is loaded on the first of these calls (or the first CUDA tensor), never by a program that stays
 * on the CPU.
 *
 * <p>Device memory is held by a caching allocator, as in PyTorch: memory of tensors that are no
 * longer reachable returns to the cache once the garbage collector has noticed (the allocator asks
 * for a collection when its memory has grown), and {@link #emptyCache()} gives the cache back to
 * the driver.
 */
public final class Cuda {
  private static final String CUDA = DeviceId.CUDA_TYPE;

  private Cuda() {}

  /**
   * {@link Device#describe()}: {@code cuda:0 (emulated)} for an emulated device; opens no device.
   */
  static String describe(Device device) {
    return device.isCpu() ? device.toString() : Backends.describe(BackendTypes.id(device));
  }

  /** {@code [allocated, reserved, peak allocated]} bytes of {@code device}. */
  private static long[] memory(Device device) {
    return Backends.of(BackendTypes.id(device)).memory();
  }

  /** Whether at least one CUDA device can be used (real or, when asked for, emulated). */
  public static boolean isAvailable() {
    return Backends.deviceCount(CUDA) > 0;
  }

  /** The number of CUDA devices; 0 without CUDA. */
  public static int deviceCount() {
    return Backends.deviceCount(CUDA);
  }

  /** Whether the CUDA devices are emulated ones (see {@link EmulatedCuda}). */
  public static boolean isEmulated() {
    return Backends.emulated(CUDA);
  }

  /**
   * The CUDA devices for people, in one line: the driver's version, each device's name, compute
   * capability and memory, and what runs matrix products; or why there are none. Never throws.
   */
  public static String summary() {
    return Backends.summary(CUDA);
  }

  /** Why CUDA is not available, in one line; empty when it is. */
  public static Optional<String> unavailableReason() {
    return Optional.ofNullable(Backends.unavailableReason(CUDA));
  }

  /**
   * The name of CUDA device {@code index}, as {@code NVIDIA H200}; {@code cuda:0 (emulated)} for an
   * emulated one.
   *
   * @throws IllegalStateException if there is no such device, saying how many there are
   */
  public static String deviceName(int index) {
    return Backends.of(DeviceId.cuda(Device.cuda(index).index())).name();
  }

  /** Bytes held by the tensors on {@code device} ({@code torch.cuda.memory_allocated}). */
  public static long memoryAllocated(Device device) {
    return memory(device)[0];
  }

  /**
   * Bytes the caching allocator of {@code device} holds from the driver: the tensors' and the
   * cache's ({@code torch.cuda.memory_reserved}).
   */
  public static long memoryReserved(Device device) {
    return memory(device)[1];
  }

  /**
   * The most bytes the tensors on {@code device} held at once ({@code
   * torch.cuda.max_memory_allocated}).
   */
  public static long maxMemoryAllocated(Device device) {
    return memory(device)[2];
  }

  /**
   * Gives the cached memory of every CUDA device back to the driver ({@code
   * torch.cuda.empty_cache}): for other processes, or before a large allocation. Waits for the
   * devices' queued work first.
   */
  public static void emptyCache() {
    Backends.emptyCache();
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
    Backends.of(BackendTypes.id(device)).synchronize();
  }
}
