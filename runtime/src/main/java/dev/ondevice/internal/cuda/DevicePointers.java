package dev.ondevice.internal.cuda;

import jcuda.driver.CUdeviceptr;

/**
 * Device addresses as plain longs, and back: the allocator, the storages and the kernel arguments
 * work with addresses, the JCuda calls with {@link CUdeviceptr}s. Internal.
 */
final class DevicePointers {
  private static final CUdeviceptr NULL = new CUdeviceptr();

  private DevicePointers() {}

  /** A pointer to {@code address}. */
  static CUdeviceptr at(long address) {
    return NULL.withByteOffset(address);
  }

  /** A pointer to be filled in by the driver, whose address can then be read. */
  static Out out() {
    return new Out();
  }

  /** A device pointer the driver writes, and that says its address. */
  static final class Out extends CUdeviceptr {
    /** The address the driver wrote. */
    long address() {
      return getNativePointer() + getByteOffset();
    }
  }
}
