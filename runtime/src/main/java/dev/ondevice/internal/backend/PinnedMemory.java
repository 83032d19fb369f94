package dev.ondevice.internal.backend;

import java.nio.ByteBuffer;

/**
 * Page-locked host memory from a device driver ({@code cuMemAllocHost}): the memory that makes
 * host-to-device copies truly asynchronous. Internal; the CUDA backend provides it, and without one
 * pinned storages are ordinary direct buffers that only carry the flag (as on emulated devices,
 * where every copy is asynchronous anyway).
 */
public interface PinnedMemory {
  /**
   * A direct, native-order buffer over {@code bytes} of page-locked memory.
   *
   * @throws OutOfMemoryError if the driver cannot lock that much memory
   */
  ByteBuffer allocate(long bytes);

  /** Unlocks and frees a buffer from {@link #allocate}; no copy may still be using it. */
  void free(ByteBuffer buffer);
}
