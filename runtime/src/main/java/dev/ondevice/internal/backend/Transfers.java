package dev.ondevice.internal.backend;

/**
 * Copies between devices, with PyTorch's {@code non_blocking} rules, and host reads. Every copy
 * between the host and a device is counted, and so is every host synchronisation.
 *
 * <ul>
 *   <li>Host to device: asynchronous only from pinned memory with {@code nonBlocking}; otherwise
 *       the data is copied before the call returns.
 *   <li>Device to host: blocking copies wait for the device (a host synchronisation); non-blocking
 *       ones return at once, and the destination is marked pending so that any read of it waits for
 *       the copy first. Either lands after any earlier copy into the destination.
 *   <li>Device to device: ordered after the pending work of both devices; the destination device
 *       waits for the copy before its later work.
 * </ul>
 */
public final class Transfers {
  private Transfers() {}

  /**
   * A contiguous copy of {@code src} on {@code target}. A non-blocking copy from a {@link
   * CopyEngine} device to the host lands in pinned memory, as in PyTorch, so that it can be
   * asynchronous.
   */
  public static Strided copy(Strided src, DeviceId target, boolean nonBlocking) {
    Backend from = src.storage().backend();
    Backend to = Backends.of(target);
    long bytes = (long) src.numel() * src.dtype().byteSize();
    Storage memory =
        nonBlocking && from instanceof CopyEngine && to == Backends.cpu()
            ? Backends.cpu().allocatePinned(bytes)
            : to.allocate(bytes);
    Strided dst = Strided.contiguous(memory, src.dtype(), src.sizes().clone());
    copyInto(src, dst, nonBlocking);
    return dst;
  }

  /** Copies {@code src} into the existing {@code dst} of equal sizes, on any two devices. */
  public static void copyInto(Strided src, Strided dst, boolean nonBlocking) {
    Backend from = src.storage().backend();
    Backend to = dst.storage().backend();
    if (from instanceof HostBackend h && to instanceof HostBackend d) {
      copyInto(src, h, dst, d, nonBlocking);
    } else if (from == to) {
      from.copy(src, dst);
    } else if (to instanceof CopyEngine e && from == Backends.cpu()) {
      e.copyFromHost(src, dst, nonBlocking);
    } else if (from instanceof CopyEngine e && to == Backends.cpu()) {
      e.copyToHost(src, dst, nonBlocking);
    } else if (to instanceof CopyEngine e && from instanceof CopyEngine) {
      e.copyFromPeer(src, dst);
    } else {
      throw new IllegalStateException(
          "Cannot copy from " + from.describe() + " to " + to.describe());
    }
  }

  private static void copyInto(
      Strided src, HostBackend from, Strided dst, HostBackend to, boolean nonBlocking) {
    long bytes = (long) src.numel() * src.dtype().byteSize();
    if (!from.isAsync() && !to.isAsync()) {
      src.host().awaitReady();
      dst.host().awaitReady();
      Backends.cpu().copyNow(src, dst);
    } else if (!from.isAsync()) {
      TransferCounters.of(to.device()).recordHostToDevice(bytes);
      if (nonBlocking && src.host().isPinned()) {
        Event ready = src.host().pending();
        to.enqueue(
            () -> {
              if (ready != null) {
                ready.streamWait();
              }
              Backends.cpu().copyNow(src, dst);
            });
      } else {
        src.host().awaitReady();
        to.enqueue(() -> Backends.cpu().copyNow(src, dst));
        to.record().streamWait();
      }
    } else if (!to.isAsync()) {
      TransferCounters.of(from.device()).recordDeviceToHost(bytes);
      dst.host().awaitReady();
      from.enqueue(() -> Backends.cpu().copyNow(src, dst));
      Event done = from.record();
      if (nonBlocking) {
        dst.host().setPending(done);
      } else {
        done.hostWait();
      }
    } else {
      TransferCounters.of(to.device()).recordDeviceToDevice(bytes);
      Event dstReady = to.record();
      from.enqueue(
          () -> {
            dstReady.streamWait();
            Backends.cpu().copyNow(src, dst);
          });
      Event done = from.record();
      to.enqueue(done::streamWait);
    }
  }

  /**
   * Makes {@code src} readable by the host and counts the read: a CPU view is returned as it is
   * (after any pending copy into it has finished); a device view is copied to the host, which waits
   * for the device.
   */
  public static Strided readable(Strided src) {
    if (src.storage().backend() instanceof CopyEngine e) {
      Strided host =
          Strided.contiguous(
              Backends.cpu().allocate((long) src.numel() * src.dtype().byteSize()),
              src.dtype(),
              src.sizes().clone());
      e.copyToHost(src, host, false);
      return host;
    }
    HostBackend from = (HostBackend) src.storage().backend();
    if (!from.isAsync()) {
      src.host().awaitReady();
      TransferCounters.of(from.device()).recordHostRead();
      return src;
    }
    Strided host =
        Strided.contiguous(
            Backends.cpu().allocate((long) src.numel() * src.dtype().byteSize()),
            src.dtype(),
            src.sizes().clone());
    copyInto(src, from, host, Backends.cpu(), false);
    return host;
  }

  /** A copy of host view {@code src} in pinned memory. */
  public static Strided pin(Strided src) {
    HostBackend cpu = Backends.cpu();
    Strided dst =
        Strided.contiguous(
            cpu.allocatePinned((long) src.numel() * src.dtype().byteSize()),
            src.dtype(),
            src.sizes().clone());
    src.host().awaitReady();
    Backends.cpu().copyNow(src, dst);
    return dst;
  }
}
