package dev.ondevice.internal.cuda;

import static dev.ondevice.internal.cuda.CudaDriver.check;

import dev.ondevice.internal.backend.AsyncDeviceException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import jcuda.Pointer;
import jcuda.driver.JCudaDriver;

/**
 * The error sink of one device ({@code ErrorSink} of {@code ondevice.cuh}): a claim word in device
 * memory and an {@code ErrorRecord} in mapped host memory, where kernels report data-dependent
 * errors (an index out of range, a probability outside [0, 1]) that the host cannot check without
 * reading the data. The first thread to claim the word with a device atomic writes the record with
 * plain stores (atomics on host memory need PCIe atomics, which not every machine has). After every
 * synchronisation the host reads the record and throws the error as an {@link AsyncDeviceException}
 * with the message the CPU kernels give, as a CUDA device assertion surfaces at the next
 * synchronising call; then it clears the record and re-arms the claim in stream order. Internal to
 * the runtime.
 */
final class DeviceErrors {
  /** {@code ErrorCode} of {@code ondevice.cuh}. */
  static final int INDEX = 1;

  static final int PROBABILITY = 2;
  static final int POSITION = 3;

  /** {@code ErrorOp} of {@code ondevice.cuh}, by value. */
  static final String[] OPS = {
    "gather", "scatterAdd", "indexSelect", "indexAdd", "bernoulli", "maxPool2dBackward"
  };

  private static final int SIZE = 32;

  private final CudaDevice device;
  private final ByteBuffer record;
  private final long recordAddress;
  private final long claimAddress;

  DeviceErrors(CudaDevice device) {
    this.device = device;
    device.makeCurrent();
    Pointer host = new Pointer();
    check(
        JCudaDriver.cuMemHostAlloc(
            host,
            SIZE,
            JCudaDriver.CU_MEMHOSTALLOC_DEVICEMAP | JCudaDriver.CU_MEMHOSTALLOC_PORTABLE),
        "cuMemHostAlloc(error record)",
        device.device());
    this.record = host.getByteBuffer(0, SIZE).order(ByteOrder.nativeOrder());
    for (int i = 0; i < SIZE; i++) {
      record.put(i, (byte) 0);
    }
    DevicePointers.Out d = DevicePointers.out();
    check(
        JCudaDriver.cuMemHostGetDevicePointer(d, host, 0),
        "cuMemHostGetDevicePointer",
        device.device());
    this.recordAddress = d.address();
    DevicePointers.Out claim = DevicePointers.out();
    check(JCudaDriver.cuMemAlloc(claim, 4), "cuMemAlloc(error claim)", device.device());
    this.claimAddress = claim.address();
    arm();
    check(JCudaDriver.cuStreamSynchronize(device.stream()), "cuStreamSynchronize", device.device());
  }

  /** Packs the {@code ErrorSink} of the kernels' arguments. */
  KernelArgs pack(KernelArgs args) {
    return args.pointer(claimAddress).pointer(recordAddress);
  }

  /** Clears the claim word, after all work queued so far. */
  private void arm() {
    device.makeCurrent();
    check(
        JCudaDriver.cuMemsetD32Async(DevicePointers.at(claimAddress), 0, 1, device.stream()),
        "cuMemsetD32Async",
        device.device());
  }

  /**
   * Throws the error a kernel reported, once, and clears the record. Call after a synchronisation,
   * when no kernel can be writing it.
   */
  synchronized void throwPending() {
    int code = record.getInt(0);
    if (code <= 0) {
      return;
    }
    int op = record.getInt(4);
    long value = record.getLong(8);
    long limit = record.getLong(16);
    long extra = record.getLong(24);
    record.putInt(0, 0);
    arm();
    String name = op >= 0 && op < OPS.length ? OPS[op] : "kernel " + op;
    RuntimeException cause =
        switch (code) {
          case INDEX ->
              new IndexOutOfBoundsException(
                  name
                      + ": index "
                      + value
                      + " is out of bounds for dimension "
                      + extra
                      + " with size "
                      + limit
                      + " (argument 'index')");
          case PROBABILITY ->
              new IllegalArgumentException(
                  name
                      + ": probabilities must be in [0, 1], got "
                      + Double.longBitsToDouble(value)
                      + " (argument 'p')");
          case POSITION ->
              new IndexOutOfBoundsException(
                  name
                      + ": position "
                      + value
                      + " is outside a plane of "
                      + limit
                      + "x"
                      + extra
                      + " (argument 'indices')");
          default -> new IllegalStateException(name + " reported error " + code);
        };
    throw new AsyncDeviceException(device.device(), cause);
  }
}
