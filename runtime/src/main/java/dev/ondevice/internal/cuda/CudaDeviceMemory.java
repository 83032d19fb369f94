package dev.ondevice.internal.cuda;

import static dev.ondevice.internal.cuda.CudaDriver.check;

import jcuda.driver.CUresult;
import jcuda.driver.JCudaDriver;

/** Device memory straight from the driver: {@code cuMemAlloc} and {@code cuMemFree}. */
final class CudaDeviceMemory implements DeviceMemory {
  private final CudaDevice device;

  CudaDeviceMemory(CudaDevice device) {
    this.device = device;
  }

  @Override
  public long allocate(long bytes) {
    device.makeCurrent();
    DevicePointers.Out p = DevicePointers.out();
    int r = JCudaDriver.cuMemAlloc(p, bytes);
    if (r == CUresult.CUDA_ERROR_OUT_OF_MEMORY) {
      return 0;
    }
    check(r, "cuMemAlloc(" + bytes + ")", device.device());
    return p.address();
  }

  @Override
  public void free(long address) {
    device.makeCurrent();
    check(JCudaDriver.cuMemFree(DevicePointers.at(address)), "cuMemFree", device.device());
  }

  @Override
  public long totalBytes() {
    return device.totalMemory();
  }

  @Override
  public long freeBytes() {
    device.makeCurrent();
    long[] free = new long[1];
    long[] total = new long[1];
    return JCudaDriver.cuMemGetInfo(free, total) == CUresult.CUDA_SUCCESS ? free[0] : -1;
  }
}
