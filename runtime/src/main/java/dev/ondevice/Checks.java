package dev.ondevice;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/** Argument validation shared by the ops: devices, dimensions, dtypes and shapes. */
final class Checks {
  private Checks() {}

  /** Throws unless {@code other} is on the device of {@code self} (or is a 0-dim CPU scalar). */
  static void sameDevice(String op, Tensor self, String argument, Tensor other) {
    Device a = self.device();
    Device b = other.device();
    if (!a.equals(b) && !isCpuScalar(other) && !isCpuScalar(self)) {
      throw new DeviceMismatchException(a, b, argument, op);
    }
  }

  /** Throws a NullPointerException naming {@code op} for a null list or a null element of it. */
  static void noNulls(String op, List<Tensor> tensors) {
    Objects.requireNonNull(tensors, op + ": the list of tensors is null");
    for (int i = 0; i < tensors.size(); i++) {
      if (tensors.get(i) == null) {
        throw new NullPointerException(op + ": tensor " + i + " of " + tensors.size() + " is null");
      }
    }
  }

  /** Throws unless every tensor is on the device of the first. */
  static void sameDevice(String op, String argument, Iterable<Tensor> tensors) {
    Tensor first = null;
    for (Tensor t : tensors) {
      if (first == null) {
        first = t;
      } else if (!t.device().equals(first.device())) {
        throw new DeviceMismatchException(first.device(), t.device(), argument, op);
      }
    }
  }

  /** PyTorch's one exception to device consistency: a 0-dim CPU tensor acts as a scalar. */
  static boolean isCpuScalar(Tensor t) {
    return t.dim() == 0 && t.device().isCpu();
  }

  /** {@code dim} in {@code [-rank, rank)}, made non-negative. */
  static int dim(String op, int dim, int rank) {
    int r = Math.max(rank, 1);
    if (dim < -r || dim >= r) {
      throw new IndexOutOfBoundsException(
          op
              + ": dimension "
              + dim
              + " is out of range for a tensor of rank "
              + rank
              + " (expected a dimension in ["
              + -r
              + ", "
              + (r - 1)
              + "])");
    }
    return dim < 0 ? dim + r : dim;
  }

  /** Sorted, non-negative, distinct dimensions. */
  static int[] dims(String op, int[] dims, int rank) {
    int[] d = new int[dims.length];
    for (int i = 0; i < dims.length; i++) {
      d[i] = rank == 0 ? dim(op, dims[i], 0) : dim(op, dims[i], rank);
    }
    Arrays.sort(d);
    for (int i = 1; i < d.length; i++) {
      if (d[i] == d[i - 1]) {
        throw new IllegalArgumentException(
            op + ": dimension " + d[i] + " appears more than once in " + Arrays.toString(dims));
      }
    }
    return d;
  }

  static void floating(String op, String argument, Tensor t) {
    if (!t.dtype().isFloatingPoint()) {
      throw new IllegalArgumentException(
          op
              + ": argument '"
              + argument
              + "' must have a floating-point dtype, got "
              + t.dtype()
              + "; convert it with to(DType.FLOAT32)");
    }
  }

  static void index(String op, String argument, Tensor t) {
    if (t.dtype() != DType.INT64) {
      throw new IllegalArgumentException(
          op
              + ": argument '"
              + argument
              + "' must be an int64 tensor of"
              + " indices, got "
              + t.dtype());
    }
  }

  static void bool(String op, String argument, Tensor t) {
    if (t.dtype() != DType.BOOL) {
      throw new IllegalArgumentException(
          op
              + ": argument '"
              + argument
              + "' must be a bool tensor, got "
              + t.dtype()
              + "; compare it first, as in mask.ne(0)");
    }
  }

  /** The broadcast of two shapes, or an exception naming the op and both shapes. */
  static int[] broadcast(String op, int[] a, String aName, int[] b, String bName) {
    int rank = Math.max(a.length, b.length);
    int[] out = new int[rank];
    for (int i = 0; i < rank; i++) {
      int da = i - (rank - a.length);
      int db = i - (rank - b.length);
      int sa = da >= 0 ? a[da] : 1;
      int sb = db >= 0 ? b[db] : 1;
      if (sa != sb && sa != 1 && sb != 1) {
        throw new IllegalArgumentException(
            op
                + ": shapes "
                + Arrays.toString(a)
                + " ("
                + aName
                + ") and "
                + Arrays.toString(b)
                + " ("
                + bName
                + ") cannot be broadcast together: size "
                + sa
                + " vs "
                + sb
                + " at dimension "
                + (i - rank));
      }
      out[i] = sa == 1 ? sb : sa;
    }
    return out;
  }

  static int toInt(String op, long size) {
    if (size < 0 || size > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(op + ": size " + size + " is out of range");
    }
    return (int) size;
  }

  /** Sizes as ints, rejecting negative ones and more than 2^31 - 1 elements. */
  static int[] sizes(String op, long[] dims) {
    int[] s = new int[dims.length];
    long n = 1;
    for (int i = 0; i < dims.length; i++) {
      if (dims[i] < 0) {
        throw new IllegalArgumentException(
            op
                + ": negative size "
                + dims[i]
                + " at dimension "
                + i
                + " of shape "
                + Arrays.toString(dims));
      }
      n *= dims[i];
      if (n > Integer.MAX_VALUE) {
        throw new IllegalArgumentException(
            op
                + ": shape "
                + Arrays.toString(dims)
                + " has more than 2^31 - 1 elements, the limit of one tensor in this runtime");
      }
      s[i] = (int) dims[i];
    }
    return s;
  }
}
