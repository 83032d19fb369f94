package dev.ondevice.internal.cuda;

/**
 * Raw memory of one device, as the driver hands it out: what {@link CachingAllocator} caches.
 * Internal; the real one calls {@code cuMemAlloc} and {@code cuMemFree}, tests count.
 */
interface DeviceMemory {
  /** The address of {@code bytes} of fresh device memory, or 0 when the device is out of memory. */
  long allocate(long bytes);

  /** Returns memory from {@link #allocate} to the driver. */
  void free(long address);

  /** The device's total memory in bytes. */
  long totalBytes();

  /** The memory the driver could still hand out, in bytes. */
  long freeBytes();
}
