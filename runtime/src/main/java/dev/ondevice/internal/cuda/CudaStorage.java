package dev.ondevice.internal.cuda;

import dev.ondevice.internal.backend.Backend;
import dev.ondevice.internal.backend.Storage;
import java.lang.ref.Cleaner;

/**
 * Device memory that tensors view: a block of a device's caching allocator, handed back to it when
 * the storage is freed or becomes unreachable, whichever comes first. Handing it back at once is
 * safe: the device's kernels all run on its one stream, so the next owner's work runs after the
 * work queued on this block, and kernels take the address when they are queued, which a freed
 * storage refuses. Internal to the runtime.
 */
final class CudaStorage extends Storage {
  private static final Cleaner CLEANER = Cleaner.create();
  private final long address;
  private Cleaner.Cleanable release;

  private CudaStorage(Backend backend, long byteSize, long address) {
    super(backend, byteSize);
    this.address = address;
  }

  /** Storage of at least {@code bytes} on {@code device}, contents unspecified. */
  static CudaStorage allocate(Backend backend, CachingAllocator allocator, long bytes) {
    CachingAllocator.Block block = allocator.allocate(bytes);
    CudaStorage s = new CudaStorage(backend, bytes, block.address());
    s.release = CLEANER.register(s, new Release(allocator, block));
    return s;
  }

  @Override
  protected void release(String by) {
    markFreed(by);
    release.clean();
  }

  /**
   * The device address of the first byte.
   *
   * @throws dev.ondevice.internal.backend.FreedMemoryException if the storage was freed
   */
  long address() {
    checkLive();
    return address;
  }

  /**
   * Hands a block back once its storage is freed or unreachable (runs once). Holds no reference to
   * it.
   */
  private record Release(CachingAllocator allocator, CachingAllocator.Block block)
      implements Runnable {
    @Override
    public void run() {
      allocator.release(block);
    }
  }
}
