package dev.ondevice.internal.cuda;

import static dev.ondevice.internal.cuda.CudaDriver.check;

import dev.ondevice.internal.backend.DeviceId;
import dev.ondevice.internal.backend.Event;
import java.lang.ref.Cleaner;
import java.lang.ref.Reference;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import jcuda.driver.CUcontext;
import jcuda.driver.CUdevice;
import jcuda.driver.CUdevice_attribute;
import jcuda.driver.CUevent;
import jcuda.driver.CUevent_flags;
import jcuda.driver.CUresult;
import jcuda.driver.CUstream;
import jcuda.driver.CUstream_flags;
import jcuda.driver.JCudaDriver;

/**
 * One CUDA device: its primary context, the one stream on which all of its work runs in order, its
 * caching allocator, kernels and error record. Every driver call for the device first makes its
 * context current on the calling thread; the context and the stream are made at the first such
 * call, so that a process that uses one GPU of a machine does not hold a context (and its memory)
 * on every other. Internal to the runtime.
 */
final class CudaDevice {
  private static final Cleaner CLEANER = Cleaner.create();

  /** The device whose context is current on each thread, as far as this runtime set it. */
  private static final ThreadLocal<CudaDevice> CURRENT = new ThreadLocal<>();

  private final DeviceId device;
  private final CUdevice handle = new CUdevice();
  private final CUcontext context = new CUcontext();
  private final CUstream stream = new CUstream();
  private final String name;
  private final int major;
  private final int minor;
  private final int multiprocessors;
  private final long totalMemory;
  private final CachingAllocator allocator;
  private final KernelLibrary kernels;
  private volatile DeviceErrors errors;
  private volatile boolean open;
  private final Set<DeviceId> peers = ConcurrentHashMap.newKeySet();

  CudaDevice(int ordinal) {
    this.device = DeviceId.cuda(ordinal);
    check(JCudaDriver.cuDeviceGet(handle, ordinal), "cuDeviceGet", device);
    byte[] raw = new byte[256];
    check(JCudaDriver.cuDeviceGetName(raw, raw.length, handle), "cuDeviceGetName", device);
    int end = 0;
    while (end < raw.length && raw[end] != 0) {
      end++;
    }
    this.name = new String(raw, 0, end, StandardCharsets.UTF_8);
    this.major = attribute(CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
    this.minor = attribute(CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
    this.multiprocessors = attribute(CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
    long[] total = new long[1];
    check(JCudaDriver.cuDeviceTotalMem(total, handle), "cuDeviceTotalMem", device);
    this.totalMemory = total[0];
    this.allocator =
        new CachingAllocator(device.toString(), new CudaDeviceMemory(this), this::drain);
    this.kernels = new KernelLibrary(this);
  }

  /** Retains the primary context and creates the stream and the error sink, once. */
  private synchronized void open() {
    if (open) {
      return;
    }
    check(
        JCudaDriver.cuDevicePrimaryCtxRetain(context, handle), "cuDevicePrimaryCtxRetain", device);
    check(JCudaDriver.cuCtxSetCurrent(context), "cuCtxSetCurrent", device);
    CURRENT.set(this);
    check(
        JCudaDriver.cuStreamCreate(stream, CUstream_flags.CU_STREAM_NON_BLOCKING),
        "cuStreamCreate",
        device);
    open = true;
    errors = new DeviceErrors(this);
  }

  private int attribute(int attribute) {
    int[] v = new int[1];
    check(JCudaDriver.cuDeviceGetAttribute(v, attribute, handle), "cuDeviceGetAttribute", device);
    return v[0];
  }

  DeviceId device() {
    return device;
  }

  /** The device's name, as {@code NVIDIA H200}. */
  String name() {
    return name;
  }

  /** The compute capability, as {@code 9.0}. */
  String computeCapability() {
    return major + "." + minor;
  }

  int computeCapabilityMajor() {
    return major;
  }

  int multiprocessors() {
    return multiprocessors;
  }

  long totalMemory() {
    return totalMemory;
  }

  CUcontext context() {
    makeCurrent();
    return context;
  }

  CUstream stream() {
    makeCurrent();
    return stream;
  }

  CachingAllocator allocator() {
    return allocator;
  }

  KernelLibrary kernels() {
    return kernels;
  }

  DeviceErrors errors() {
    makeCurrent();
    DeviceErrors e = errors;
    if (e == null) {
      synchronized (this) {
        e = errors; // open() assigns it while holding the lock
      }
    }
    return e;
  }

  /**
   * Makes this device's context current on the calling thread, making the context first if need be.
   */
  void makeCurrent() {
    if (!open) {
      open();
    }
    if (CURRENT.get() != this) {
      check(JCudaDriver.cuCtxSetCurrent(context), "cuCtxSetCurrent", device);
      CURRENT.set(this);
    }
  }

  /** An event after all work queued on the stream so far. */
  Event record() {
    makeCurrent();
    CUevent e = new CUevent();
    check(
        JCudaDriver.cuEventCreate(e, CUevent_flags.CU_EVENT_DISABLE_TIMING),
        "cuEventCreate",
        device);
    check(JCudaDriver.cuEventRecord(e, stream), "cuEventRecord", device);
    Completion c = new Completion(this, e);
    CLEANER.register(c, new EventDestroyer(this, e));
    return Event.of(device, c);
  }

  /**
   * Lets this device's copy engines reach {@code other}'s memory directly (NVLink or PCIe peer to
   * peer) where the hardware allows, once per pair; without it the driver stages peer copies
   * through host memory.
   */
  void enablePeerAccess(CudaDevice other) {
    if (other == this || !peers.add(other.device)) {
      return;
    }
    int[] can = new int[1];
    if (JCudaDriver.cuDeviceCanAccessPeer(can, handle, other.handle) != CUresult.CUDA_SUCCESS
        || can[0] == 0) {
      return;
    }
    CUcontext target = other.context();
    makeCurrent();
    int r = JCudaDriver.cuCtxEnablePeerAccess(target, 0);
    if (r != CUresult.CUDA_SUCCESS && r != CUresult.CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED) {
      throw new CudaCallException("cuCtxEnablePeerAccess", r, device + " to " + other.device);
    }
  }

  /**
   * Makes this device's stream wait, on the device, for {@code event} of another device's stream.
   */
  void streamWait(Event event, CudaDevice of) {
    Completion c = Completion.of(event);
    if (c == null) {
      event.hostWait();
      return;
    }
    makeCurrent();
    try {
      check(
          JCudaDriver.cuStreamWaitEvent(stream, c.event, 0),
          "cuStreamWaitEvent",
          device + " for " + of.device);
    } finally {
      // The CUDA event must outlive the call: its cleaner destroys it once the Event is
      // unreachable.
      Reference.reachabilityFence(event);
    }
  }

  /**
   * Waits until everything queued so far has run, without counting a host synchronisation, and
   * throws the first error the work raised.
   */
  void drain() {
    makeCurrent();
    int r = JCudaDriver.cuStreamSynchronize(stream);
    if (r != CUresult.CUDA_SUCCESS) {
      throw new CudaCallException("cuStreamSynchronize", r, device.toString());
    }
    errors().throwPending();
  }

  @Override
  public String toString() {
    return device + " (" + name + ", compute capability " + computeCapability() + ")";
  }

  /** The completion of an event recorded on this device's stream, backed by a CUDA event. */
  static final class Completion implements Event.Completion {
    private final CudaDevice owner;
    private final CUevent event;

    Completion(CudaDevice owner, CUevent event) {
      this.owner = owner;
      this.event = event;
    }

    /** The CUDA completion behind {@code event}, or null for an event of another kind. */
    static Completion of(Event event) {
      return event.completion() instanceof Completion c ? c : null;
    }

    @Override
    public boolean isDone() {
      owner.makeCurrent();
      try {
        return JCudaDriver.cuEventQuery(event) != CUresult.CUDA_ERROR_NOT_READY;
      } finally {
        Reference.reachabilityFence(this);
      }
    }

    @Override
    public void await() {
      owner.makeCurrent();
      try {
        int r = JCudaDriver.cuEventSynchronize(event);
        if (r != CUresult.CUDA_SUCCESS) {
          throw new CudaCallException("cuEventSynchronize", r, owner.device.toString());
        }
      } finally {
        Reference.reachabilityFence(this);
      }
    }

    @Override
    public void throwPendingError() {
      owner.errors().throwPending();
    }
  }

  /** Destroys a CUDA event once its completion is unreachable. Holds no reference to it. */
  private record EventDestroyer(CudaDevice owner, CUevent event) implements Runnable {
    @Override
    public void run() {
      owner.makeCurrent();
      JCudaDriver.cuEventDestroy(event);
    }
  }
}
