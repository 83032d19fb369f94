package dev.ondevice.internal.backend;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * A block of memory on one device that tensors view. Internal to the runtime.
 *
 * <p>The version counter is bumped by every in-place write; autograd uses it to detect a saved
 * tensor that was modified before backward.
 */
public abstract class Storage {
  private final Backend backend;
  private final long byteSize;
  private final AtomicInteger version = new AtomicInteger();

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
}
