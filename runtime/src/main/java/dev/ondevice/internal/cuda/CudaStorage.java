package dev.ondevice.internal.cuda;

import dev.ondevice.internal.backend.Backend;
import dev.ondevice.internal.backend.Storage;
import java.lang.ref.Cleaner;

/**
 * Device memory that tensors view: a block of a device's caching allocator, handed back to it
 * when the storage becomes unreachable. Internal to the runtime.
 */
final class CudaStorage extends Storage {
  private static final Cleaner CLEANER = Cleaner.create();
  private final long address;

  private CudaStorage(Backend backend, long byteSize, long address) {
    super(backend, byteSize);
    this.address = address;
  }

  /** Storage of at least {@code bytes} on {@code device}, contents unspecified. */
  static CudaStorage allocate(Backend backend, CachingAllocator allocator, long bytes) {
    CachingAllocator.Block block = allocator.allocate(bytes);
    CudaStorage s = new CudaStorage(backend, bytes, block.address());
    CLEANER.register(s, new Release(allocator, block));
    return s;
  }

  /** The device address of the first byte. */
  long address() {
    return address;
  }

  /** Hands a block back once its storage is unreachable. Holds no reference to it. */
  private record Release(CachingAllocator allocator, CachingAllocator.Block block) implements Runnable {
    @Override
    public void run() {
      allocator.release(block);
    }
  }
}
