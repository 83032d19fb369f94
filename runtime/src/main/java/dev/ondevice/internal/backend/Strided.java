package dev.ondevice.internal.backend;

import java.util.Arrays;

/**
 * A strided view of a storage: element type, offset, sizes and strides (in elements). The operand
 * type of every backend kernel. Internal to the runtime.
 */
public final class Strided {
  private final Storage storage;
  private final ScalarType dtype;
  private final int offset;
  private final int[] sizes;
  private final int[] strides;

  /** A view; the arrays are owned by the view afterwards. */
  public Strided(Storage storage, ScalarType dtype, int offset, int[] sizes, int[] strides) {
    this.storage = storage;
    this.dtype = dtype;
    this.offset = offset;
    this.sizes = sizes;
    this.strides = strides;
  }

  /** A contiguous view of the whole of {@code storage} with the given sizes. */
  public static Strided contiguous(Storage storage, ScalarType dtype, int[] sizes) {
    return new Strided(storage, dtype, 0, sizes, contiguousStrides(sizes));
  }

  /** Row-major strides for the given sizes. */
  public static int[] contiguousStrides(int[] sizes) {
    int[] s = new int[sizes.length];
    int acc = 1;
    for (int i = sizes.length - 1; i >= 0; i--) {
      s[i] = acc;
      acc *= Math.max(sizes[i], 1);
    }
    return s;
  }

  public Storage storage() {
    return storage;
  }

  /** The storage as host memory; only for host backends. */
  public HostStorage host() {
    return (HostStorage) storage;
  }

  public ScalarType dtype() {
    return dtype;
  }

  public DeviceId device() {
    return storage.device();
  }

  public int offset() {
    return offset;
  }

  /** The sizes; callers must not modify the array. */
  public int[] sizes() {
    return sizes;
  }

  /** The strides; callers must not modify the array. */
  public int[] strides() {
    return strides;
  }

  public int rank() {
    return sizes.length;
  }

  public int size(int dim) {
    return sizes[dim];
  }

  public int stride(int dim) {
    return strides[dim];
  }

  public int numel() {
    int n = 1;
    for (int s : sizes) {
      n *= s;
    }
    return n;
  }

  /** Whether the elements are laid out row-major without gaps from {@link #offset()}. */
  public boolean isContiguous() {
    int expected = 1;
    for (int i = sizes.length - 1; i >= 0; i--) {
      if (sizes[i] != 1) {
        if (strides[i] != expected) {
          return false;
        }
        expected *= sizes[i];
      }
    }
    return true;
  }

  /** The same view with other sizes and strides. */
  public Strided withLayout(int newOffset, int[] newSizes, int[] newStrides) {
    return new Strided(storage, dtype, newOffset, newSizes, newStrides);
  }

  @Override
  public String toString() {
    return dtype
        + Arrays.toString(sizes)
        + " strides "
        + Arrays.toString(strides)
        + " at "
        + offset
        + " on "
        + device();
  }
}
