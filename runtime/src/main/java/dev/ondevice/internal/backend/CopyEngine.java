package dev.ondevice.internal.backend;

/**
 * A backend whose memory the host cannot address, so that copies to and from it go through its
 * driver: the CUDA backend. {@link Transfers} hands it every copy that involves one of its devices;
 * it counts them in {@link TransferCounters} and follows PyTorch's {@code non_blocking} rules.
 * Internal to the runtime.
 */
public interface CopyEngine extends Backend {
  /**
   * Copies host memory {@code src} into {@code dst} on this device (equal sizes, any strides,
   * dtypes converted). Asynchronous only from page-locked memory with {@code nonBlocking}; the
   * source is read before the call returns otherwise.
   */
  void copyFromHost(Strided src, Strided dst, boolean nonBlocking);

  /**
   * Copies {@code src} on this device into host memory {@code dst}. Blocking copies wait for the
   * device (a host synchronisation); a non-blocking one into page-locked memory returns at once and
   * marks {@code dst} pending, so that any read of it waits for the copy first.
   */
  void copyToHost(Strided src, Strided dst, boolean nonBlocking);

  /**
   * Copies {@code src}, on another device of this backend's kind, into {@code dst} on this one,
   * ordered after the work queued on both.
   */
  void copyFromPeer(Strided src, Strided dst);
}
