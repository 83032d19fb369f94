package dev.ondevice.internal.backend;

import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A block of host memory handed out by {@link HostAllocator}: its buffer, its size class, whether
 * it is page-locked, and, for each device, the last asynchronous copy that reads or writes it. A
 * block goes back to the cache when its storage becomes unreachable, but is handed out again only
 * once those copies have finished: a DMA transfer still in flight must never see a new owner's
 * data. One event per device, since each device's copies are ordered on its own stream only.
 */
final class HostBlock {
  final ByteBuffer buffer;
  final long size;

  /** Whether the block belongs to the pinned pool. */
  final boolean pinned;

  /** Whether the buffer is page-locked memory of a {@link PinnedMemory} that must free it. */
  final boolean pageLocked;

  private final Map<DeviceId, Event> lastUse = new ConcurrentHashMap<>(2);

  HostBlock(ByteBuffer buffer, long size, boolean pinned, boolean pageLocked) {
    this.buffer = buffer;
    this.size = size;
    this.pinned = pinned;
    this.pageLocked = pageLocked;
  }

  /**
   * Records that an asynchronous copy using this block completes with {@code event}, after every
   * earlier copy of the same device.
   */
  void usedUntil(Event event) {
    lastUse.put(event.device(), event);
  }

  /** Whether no asynchronous copy may still be using the block; never waits. */
  boolean idle() {
    for (Event e : lastUse.values()) {
      if (!e.isDone()) {
        return false;
      }
    }
    return true;
  }

  /** Waits until no asynchronous copy is using the block; counts no synchronisation. */
  void awaitIdle() {
    for (Event e : lastUse.values()) {
      e.streamWait();
    }
  }
}
