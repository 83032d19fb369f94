package dev.ondevice.internal.backend;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * A block of memory on one device that tensors view. Internal to the runtime.
 *
 * <p>The version counter is bumped by every in-place write; autograd uses it to detect a saved
 * tensor that was modified before backward.
 *
 * <p>Memory goes back to its allocator when the storage becomes unreachable, or at once when the
 * runtime knows it is dead ({@link #free}): a backward pass freeing what only it could see, an
 * optimizer dropping a gradient. A freed storage refuses every later access with {@link
 * FreedMemoryException}, so the memory that its allocator hands to the next request is never read
 * through it.
 */
public abstract class Storage {
  private final Backend backend;
  private final long byteSize;
  private final AtomicInteger version = new AtomicInteger();
  private volatile String freedBy;

  protected Storage(Backend backend, long byteSize) {
    this.backend = backend;
    this.byteSize = byteSize;
  }

  /** The backend that owns this memory and runs ops on it. */
  public final Backend backend() {
    return backend;
  }

  /** The device of this memory. */
  public final DeviceId device() {
    return backend.device();
  }

  /** Size in bytes. */
  public final long byteSize() {
    return byteSize;
  }

  /** The number of in-place writes so far. */
  public final int version() {
    return version.get();
  }

  /** Records an in-place write. */
  public final void bumpVersion() {
    version.incrementAndGet();
  }

  /**
   * Hands the memory back to its allocator now; {@code freedBy} says what freed it and how to keep
   * it, for the message of a later access. Freeing twice does nothing.
   */
  public final void free(String freedBy) {
    if (this.freedBy == null) {
      release(freedBy);
    }
  }

  /**
   * Marks this storage freed by {@code by} and gives its memory back, in the order of the device's
   * work: work queued before still reads the memory, work queued after is refused.
   */
  protected abstract void release(String by);

  /** Records that the storage is freed; subclasses call it from {@link #release}. */
  protected final void markFreed(String by) {
    freedBy = by;
  }

  /** Whether {@link #free} was called. */
  public final boolean isFreed() {
    return freedBy != null;
  }

  /**
   * Throws if the storage was freed: every access to its memory calls this first.
   *
   * @throws FreedMemoryException naming what freed it and how to keep it
   */
  protected final void checkLive() {
    String by = freedBy;
    if (by != null) {
      throw new FreedMemoryException(byteSize, device(), by);
    }
  }
}
