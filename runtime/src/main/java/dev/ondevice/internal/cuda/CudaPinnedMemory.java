package dev.ondevice.internal.cuda;

import static dev.ondevice.internal.cuda.CudaDriver.check;

import dev.ondevice.internal.backend.Bytes;
import dev.ondevice.internal.backend.PinnedMemory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import jcuda.Pointer;
import jcuda.driver.CUresult;
import jcuda.driver.JCudaDriver;

/**
 * Page-locked host memory from the CUDA driver, usable by every device's copies ({@code
 * cuMemHostAlloc} with {@code CU_MEMHOSTALLOC_PORTABLE}). Internal to the runtime.
 */
final class CudaPinnedMemory implements PinnedMemory {
  private final CudaDevice device;

  CudaPinnedMemory(CudaDevice device) {
    this.device = device;
  }

  @Override
  public ByteBuffer allocate(long bytes) {
    device.makeCurrent();
    Pointer p = new Pointer();
    int r = JCudaDriver.cuMemHostAlloc(p, bytes, JCudaDriver.CU_MEMHOSTALLOC_PORTABLE);
    if (r == CUresult.CUDA_ERROR_OUT_OF_MEMORY) {
      throw new OutOfMemoryError(
          "Cannot lock "
              + Bytes.human(bytes)
              + " of host memory for copies to"
              + " CUDA devices (cuMemHostAlloc: CUDA_ERROR_OUT_OF_MEMORY); pin fewer or smaller batches");
    }
    check(r, "cuMemHostAlloc(" + bytes + ")", "the host");
    return p.getByteBuffer(0, bytes).order(ByteOrder.nativeOrder());
  }

  @Override
  public void free(ByteBuffer buffer) {
    device.makeCurrent();
    check(JCudaDriver.cuMemFreeHost(Pointer.to(buffer)), "cuMemFreeHost", "the host");
  }
}
