package dev.ondevice.backend.cuda;

import jcuda.Pointer;
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

  /** The address of a host pointer from the driver ({@code cuMemAllocHost}). */
  static long address(Pointer p) {
    return new HostAddress(p).address();
  }

  /** A device pointer the driver writes, and that says its address. */
  static final class Out extends CUdeviceptr {
    /** The address the driver wrote. */
    long address() {
      return getNativePointer() + getByteOffset();
    }
  }

  /** Reads the address of a host pointer through the protected accessors. */
  private static final class HostAddress extends Pointer {
    private final long value;

    HostAddress(Pointer p) {
      super(p);
      value = getNativePointer() + getByteOffset();
    }

    long address() {
      return value;
    }
  }
}
