package dev.ondevice.internal.cuda;

import static dev.ondevice.internal.cuda.CudaDriver.check;

import dev.ondevice.internal.backend.Backends;
import dev.ondevice.internal.backend.Event;
import dev.ondevice.internal.backend.HostStorage;
import dev.ondevice.internal.backend.Strided;
import dev.ondevice.internal.backend.TransferCounters;
import java.lang.ref.Reference;
import jcuda.Pointer;
import jcuda.driver.JCudaDriver;

/**
 * Copies between one CUDA device and the host or another device, all queued on the device's stream,
 * with PyTorch's {@code non_blocking} rules:
 *
 * <ul>
 *   <li>Host to device from page-locked memory with {@code nonBlocking}: an asynchronous DMA
 *       transfer; the source block is not reused before it has finished.
 *   <li>Host to device otherwise: the source is copied into a page-locked staging block before the
 *       call returns, and the transfer from there is asynchronous. Unlike a plain {@code
 *       cuMemcpyHtoD} from pageable memory, this never waits for the device's queued work.
 *   <li>Device to host: blocking copies wait for the device (a counted host synchronisation); a
 *       non-blocking one into page-locked memory returns at once and marks the destination pending,
 *       so that reading it waits for the copy first.
 *   <li>Device to device: ordered after the queued work of both devices.
 * </ul>
 *
 * Strided or converting copies go through a contiguous buffer on the side that can rearrange them.
 * Internal to the runtime.
 */
final class CudaCopies {
  private final CudaBackend backend;

  CudaCopies(CudaBackend backend) {
    this.backend = backend;
  }

  private CudaDevice device() {
    return backend.cudaDevice();
  }

  private static long bytes(Strided s) {
    return (long) s.numel() * s.dtype().byteSize();
  }

  private static Pointer host(Strided s) {
    return Pointer.to(s.host().bytes()).withByteOffset((long) s.offset() * s.dtype().byteSize());
  }

  /**
   * {@code dst} itself when a raw copy of {@code src}'s bytes can land in it, else a contiguous
   * buffer.
   */
  private Strided landing(Strided src, Strided dst) {
    return dst.isContiguous() && dst.dtype() == src.dtype()
        ? dst
        : backend.empty(src.dtype(), src.sizes());
  }

  /** Host memory {@code src} into {@code dst} on this device. */
  void fromHost(Strided src, Strided dst, boolean nonBlocking) {
    long bytes = bytes(src);
    TransferCounters.of(backend.device()).recordHostToDevice(bytes);
    if (bytes == 0) {
      return;
    }
    Strided landing = landing(src, dst);
    HostStorage hs = src.host();
    hs.awaitReady();
    Strided source = src;
    if (!(nonBlocking && hs.isPageLocked() && src.isContiguous())) {
      source =
          Strided.contiguous(
              Backends.cpu().allocatePinned(bytes), src.dtype(), src.sizes().clone());
      Backends.cpu().copyNow(src, source);
    }
    CudaDevice d = device();
    d.makeCurrent();
    check(
        JCudaDriver.cuMemcpyHtoDAsync(
            DevicePointers.at(CudaBackend.address(landing)), host(source), bytes, d.stream()),
        "cuMemcpyHtoDAsync",
        d.device());
    source.host().usedUntil(d.record());
    if (landing != dst) {
      backend.copy(landing, dst);
    }
  }

  /** {@code src} on this device into host memory {@code dst}. */
  void toHost(Strided src, Strided dst, boolean nonBlocking) {
    long bytes = bytes(src);
    TransferCounters.of(backend.device()).recordDeviceToHost(bytes);
    if (bytes == 0) {
      return;
    }
    Strided dense = src;
    if (!src.isContiguous()) {
      dense = backend.empty(src.dtype(), src.sizes());
      backend.copy(src, dense);
    }
    HostStorage hd = dst.host();
    boolean direct = dst.isContiguous() && dst.dtype() == src.dtype();
    Strided into =
        direct
            ? dst
            : Strided.contiguous(Backends.cpu().allocate(bytes), src.dtype(), src.sizes().clone());
    hd.awaitReady();
    CudaDevice d = device();
    d.makeCurrent();
    try {
      check(
          JCudaDriver.cuMemcpyDtoHAsync(
              host(into), DevicePointers.at(CudaBackend.address(dense)), bytes, d.stream()),
          "cuMemcpyDtoHAsync",
          d.device());
    } finally {
      // A temporary whose block went back to the cache before the copy was queued could be
      // overwritten by another thread's work queued ahead of it.
      Reference.reachabilityFence(dense);
    }
    Event done = d.record();
    if (direct && nonBlocking && hd.isPageLocked()) {
      hd.setPending(done);
      hd.usedUntil(done);
      return;
    }
    done.hostWait();
    if (!direct) {
      Backends.cpu().copyNow(into, dst);
    }
  }

  /** {@code src} on another CUDA device into {@code dst} on this one. */
  void fromPeer(Strided src, Strided dst) {
    long bytes = bytes(src);
    TransferCounters.of(backend.device()).recordDeviceToDevice(bytes);
    if (bytes == 0) {
      return;
    }
    CudaBackend from = (CudaBackend) src.storage().backend();
    Strided dense = src;
    if (!src.isContiguous()) {
      dense = from.empty(src.dtype(), src.sizes());
      from.copy(src, dense);
    }
    Strided landing = landing(src, dst);
    CudaDevice to = device();
    CudaDevice of = from.cudaDevice();
    of.streamWait(to.record(), to);
    of.enablePeerAccess(to);
    of.makeCurrent();
    try {
      check(
          JCudaDriver.cuMemcpyPeerAsync(
              DevicePointers.at(CudaBackend.address(landing)),
              to.context(),
              DevicePointers.at(CudaBackend.address(dense)),
              of.context(),
              bytes,
              of.stream()),
          "cuMemcpyPeerAsync",
          of.device() + " to " + to.device());
    } finally {
      Reference.reachabilityFence(dense);
    }
    to.streamWait(of.record(), of);
    if (landing != dst) {
      backend.copy(landing, dst);
    }
  }
}
