package dev.ondevice.internal.backend;

import java.util.concurrent.atomic.AtomicLong;

/**
 * A backend whose memory is host memory ({@link HostStorage}) and whose kernels run on host
 * threads: the CPU (kernels run on the calling thread) and each emulated CUDA device (kernels are
 * queued on the device's own {@link Stream}). {@link Transfers} copies between them through this
 * interface; the CPU backend's class is registered by {@link BackendProvider}, never named here.
 */
public interface HostBackend extends Backend {
  /** Whether work runs asynchronously on a stream (an emulated device). */
  boolean isAsync();

  /** Queues work on this device's stream, or runs it now on the CPU. */
  void enqueue(Runnable work);

  /** An event after all work queued so far. */
  Event record();

  /** Page-locked host memory; only meaningful on the CPU backend. */
  HostStorage allocatePinned(long bytes);

  /**
   * Copies {@code from} into {@code to} (host memory both, any strides and dtypes) on the calling
   * thread, now: for staging buffers and for work already ordered on a stream.
   */
  void copyNow(Strided from, Strided to);

  /**
   * Bytes of this emulated device's storages that are still reachable (the CPU's are not counted).
   */
  AtomicLong liveBytes();

  /** The most bytes of this emulated device's storages that were reachable at once. */
  AtomicLong peakBytes();

  /** The number of threads the kernels split their work over. */
  int threads();

  /** What runs matrix products, for people (OpenBLAS and its version, or why not). */
  String matmulLibrary();
}
