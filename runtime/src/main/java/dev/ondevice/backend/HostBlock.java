package dev.ondevice.backend;

import java.nio.ByteBuffer;

/**
 * A block of host memory handed out by {@link HostAllocator}: its buffer, its size class, whether
 * it is page-locked, and the last asynchronous copy that reads or writes it. A block goes back to
 * the cache when its storage becomes unreachable, but is handed out again only once that copy has
 * finished: a DMA transfer still in flight must never see a new owner's data.
 */
final class HostBlock {
  final ByteBuffer buffer;
  final long size;
  /** Whether the block belongs to the pinned pool. */
  final boolean pinned;
  /** Whether the buffer is page-locked memory of a {@link PinnedMemory} that must free it. */
  final boolean pageLocked;
  private volatile Event lastUse;

  HostBlock(ByteBuffer buffer, long size, boolean pinned, boolean pageLocked) {
    this.buffer = buffer;
    this.size = size;
    this.pinned = pinned;
    this.pageLocked = pageLocked;
  }

  /** Records that an asynchronous copy using this block completes with {@code event}. */
  void usedUntil(Event event) {
    lastUse = event;
  }

  /** Whether no asynchronous copy may still be using the block; never waits. */
  boolean idle() {
    Event e = lastUse;
    return e == null || e.isDone();
  }

  /** Waits until no asynchronous copy is using the block; counts no synchronisation. */
  void awaitIdle() {
    Event e = lastUse;
    if (e != null) {
      e.streamWait();
    }
  }
}
