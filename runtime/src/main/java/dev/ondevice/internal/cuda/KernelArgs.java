package dev.ondevice.internal.cuda;

import dev.ondevice.internal.backend.Strided;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The one struct argument of a kernel, packed with C's layout rules for the structs of {@code
 * runtime/src/main/cuda/ondevice.cuh}: each field at a multiple of its size, the whole padded to 8
 * bytes. {@code Dims} is {@code {int rank; int numel; int sizes[10];}} and {@code View} is {@code
 * {char* data; int strides[10];}}; the fields are written in the order the struct declares them.
 * Internal to the runtime.
 */
final class KernelArgs {
  /** Dimensions a view may have after coalescing ({@code OD_MAX_DIMS}). */
  static final int MAX_DIMS = 10;

  /** The largest argument struct: well inside the 4 KiB CUDA allows for parameters. */
  static final int CAPACITY = 2048;

  private final ByteBuffer bytes =
      ByteBuffer.allocateDirect(CAPACITY).order(ByteOrder.nativeOrder());

  /**
   * The storages whose addresses the struct holds, kept reachable until the next struct: a storage
   * that became unreachable before its launch was queued could hand its block to another thread's
   * work queued ahead of it.
   */
  private final List<Object> keep = new ArrayList<>();

  /** Starts a new struct. */
  KernelArgs reset() {
    bytes.clear();
    keep.clear();
    return this;
  }

  /** Keeps {@code storage} reachable until the next struct is started. */
  KernelArgs keep(Object storage) {
    keep.add(storage);
    return this;
  }

  /** The packed struct, from position 0 to its padded size. */
  ByteBuffer buffer() {
    return bytes;
  }

  /** The packed size so far, padded to 8 bytes. */
  int size() {
    align(8);
    return bytes.position();
  }

  private void align(int n) {
    int p = bytes.position();
    int q = (p + n - 1) / n * n;
    for (int i = p; i < q; i++) {
      bytes.put((byte) 0);
    }
  }

  KernelArgs i32(int v) {
    align(4);
    bytes.putInt(v);
    return this;
  }

  KernelArgs i64(long v) {
    align(8);
    bytes.putLong(v);
    return this;
  }

  KernelArgs f64(double v) {
    align(8);
    bytes.putDouble(v);
    return this;
  }

  /** A device address ({@code char*} or any pointer). */
  KernelArgs pointer(long address) {
    return i64(address);
  }

  /**
   * A {@code Dims}: rank, element count and sizes.
   *
   * @throws IllegalArgumentException for more than {@link #MAX_DIMS} dimensions
   */
  KernelArgs dims(int[] sizes) {
    checkRank(sizes);
    long numel = 1;
    for (int s : sizes) {
      numel *= s;
    }
    i32(sizes.length);
    i32((int) numel);
    for (int d = 0; d < MAX_DIMS; d++) {
      bytes.putInt(d < sizes.length ? sizes[d] : 1);
    }
    return this;
  }

  /** The {@code View} of {@code s} with the given strides, its storage kept reachable. */
  KernelArgs view(Strided s, int[] strides) {
    keep(s.storage());
    return view(CudaBackend.address(s), strides);
  }

  /** A {@code View}: the address of the first element and the strides in elements. */
  KernelArgs view(long address, int[] strides) {
    checkRank(strides);
    pointer(address);
    for (int d = 0; d < MAX_DIMS; d++) {
      bytes.putInt(d < strides.length ? strides[d] : 0);
    }
    return this;
  }

  private static void checkRank(int[] a) {
    if (a.length > MAX_DIMS) {
      throw new IllegalArgumentException(
          "CUDA kernels take tensors of at most "
              + MAX_DIMS
              + " dimensions that cannot be merged, got "
              + a.length
              + " "
              + Arrays.toString(a)
              + "; make the tensor contiguous first");
    }
  }
}
