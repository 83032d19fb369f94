package dev.ondevice.internal.cpu;

import dev.ondevice.internal.backend.HostStorage;
import dev.ondevice.internal.backend.Storage;
import java.util.ArrayList;
import java.util.List;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.Pointer;

/**
 * Memory for the copies of one call's operands in a primitive's own layout, taken from the
 * backend's allocator and handed back when the call ends: the same blocks serve every shape and
 * every call, where memory kept per shape would stay resident for each batch size ever seen (an
 * evaluation batch of 1,000 images held 175 MB).
 */
final class DnnlScratch implements AutoCloseable {
  private static final String FREED_BY = "by a oneDNN convolution, which used it as scratch";

  private final CpuBackend backend;
  private final List<Storage> taken = new ArrayList<>();

  DnnlScratch(CpuBackend backend) {
    this.backend = backend;
  }

  /** At least {@code bytes} of host memory, until {@link #close}. */
  Pointer take(long bytes) {
    Storage s = backend.allocate(bytes);
    taken.add(s);
    return new BytePointer(((HostStorage) s).bytes());
  }

  /** Hands every block back. */
  @Override
  public void close() {
    for (Storage s : taken) {
      s.free(FREED_BY);
    }
    taken.clear();
  }
}
