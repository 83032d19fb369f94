package dev.ondevice.internal.backend;

import java.lang.ref.Cleaner;
import java.nio.ByteBuffer;
import java.nio.DoubleBuffer;
import java.nio.FloatBuffer;
import java.nio.LongBuffer;

/**
 * Storage in host memory: a direct, native-order buffer. Backs the CPU and the emulated CUDA
 * devices. Internal to the runtime.
 *
 * <p>A host storage may be <em>pending</em>: it is the destination of a non-blocking copy from a
 * device that has not finished yet. Every read of its contents waits for that copy first, so a
 * stale value can never be observed.
 */
public final class HostStorage extends Storage {
  private final HostBlock block;
  private final ByteBuffer bytes;
  private FloatBuffer floats;
  private DoubleBuffer doubles;
  private LongBuffer longs;
  private volatile Event pending;
  private Cleaner.Cleanable release;

  HostStorage(Backend backend, HostBlock block, long byteSize) {
    super(backend, byteSize);
    this.block = block;
    this.bytes = block.buffer;
  }

  /**
   * Sets what gives the block back to the allocator, once: at {@link #free} or when unreachable.
   */
  void releasedBy(Cleaner.Cleanable cleanable) {
    release = cleanable;
  }

  /**
   * On the CPU, gives the block back now; on an emulated device, as a task of its stream, so that
   * the kernels queued before it still read the memory and those queued after it are refused.
   */
  @Override
  protected void release(String by) {
    if (backend() instanceof HostBackend h && h.isAsync()) {
      h.enqueue(() -> releaseNow(by));
    } else {
      releaseNow(by);
    }
  }

  private void releaseNow(String by) {
    markFreed(by);
    release.clean();
  }

  /**
   * The bytes, native order, position 0. Shared: use absolute access only.
   *
   * @throws FreedMemoryException if the storage was freed
   */
  public ByteBuffer bytes() {
    checkLive();
    return bytes;
  }

  /**
   * The memory as floats.
   *
   * @throws FreedMemoryException if the storage was freed
   */
  public FloatBuffer floats() {
    checkLive();
    FloatBuffer f = floats;
    if (f == null) {
      f = bytes.asFloatBuffer();
      floats = f;
    }
    return f;
  }

  /**
   * The memory as doubles.
   *
   * @throws FreedMemoryException if the storage was freed
   */
  public DoubleBuffer doubles() {
    checkLive();
    DoubleBuffer d = doubles;
    if (d == null) {
      d = bytes.asDoubleBuffer();
      doubles = d;
    }
    return d;
  }

  /**
   * The memory as longs.
   *
   * @throws FreedMemoryException if the storage was freed
   */
  public LongBuffer longs() {
    checkLive();
    LongBuffer l = longs;
    if (l == null) {
      l = bytes.asLongBuffer();
      longs = l;
    }
    return l;
  }

  /**
   * Whether this is page-locked memory from a CUDA driver, which copies to and from a device can
   * reach asynchronously; false for pinned storages of emulated devices, which only carry the flag.
   */
  public boolean isPageLocked() {
    return block.pageLocked;
  }

  /** Whether this is page-locked memory, the source of truly asynchronous host-to-device copies. */
  public boolean isPinned() {
    return block.pinned;
  }

  /**
   * Records that an asynchronous copy reads or writes this memory until {@code event}: the block is
   * not handed to another storage before then, even if this one becomes unreachable.
   */
  public void usedUntil(Event event) {
    block.usedUntil(event);
  }

  /** Marks this storage as the destination of a copy that completes with {@code event}. */
  public void setPending(Event event) {
    pending = event;
  }

  /** The unfinished copy into this storage, or null. */
  Event pending() {
    return pending;
  }

  /**
   * Waits until no copy into this storage is outstanding. Counts a host synchronisation on the
   * source device when it had to wait for one, and throws an error of that device's queued work.
   */
  public void awaitReady() {
    Event e = pending;
    if (e != null) {
      e.hostWait();
      pending = null;
    }
  }

  /**
   * Whether the contents can be read without waiting for a copy in flight. Observing that the copy
   * has completed ends the pending state without a host synchronisation: a later read does not wait
   * and is not counted as one.
   */
  public boolean isReady() {
    Event e = pending;
    if (e == null) {
      return true;
    }
    if (!e.query()) {
      return false;
    }
    pending = null;
    return true;
  }
}
