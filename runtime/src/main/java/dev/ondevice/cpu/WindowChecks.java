package dev.ondevice.cpu;

import dev.ondevice.DType;
import dev.ondevice.backend.Strided;
import dev.ondevice.backend.Window2d;
import java.util.Arrays;

/**
 * The argument checks of the sliding-window kernels: operand sizes against the window, dtypes,
 * and every element a view can address inside its storage. Each failure names the kernel, the
 * operand and the sizes, so a caller's mistake never surfaces as a bare buffer index error.
 */
public final class WindowChecks {
  private WindowChecks() {}

  /** Throws unless {@code s} is a floating-point operand of rank {@code rank}. */
  public static void floating(String op, String name, Strided s, int rank) {
    if (s.rank() != rank) {
      throw new IllegalArgumentException(op + ": " + name + " must have " + rank + " dimensions, got sizes "
          + Arrays.toString(s.sizes()));
    }
    if (!s.dtype().isFloatingPoint()) {
      throw new IllegalArgumentException(op + ": " + name + " must be float32 or float64, got " + s.dtype());
    }
  }

  /** Throws unless {@code s} has the dtype of {@code reference}. */
  public static void sameType(String op, String name, Strided s, DType reference) {
    if (s.dtype() != reference) {
      throw new IllegalArgumentException(op + ": " + name + " is " + s.dtype() + " but the input is " + reference);
    }
  }

  /** Throws unless {@code s} has exactly the sizes {@code expected}. */
  public static void sizes(String op, String name, Strided s, int[] expected, Window2d window) {
    if (!Arrays.equals(s.sizes(), expected)) {
      throw new IllegalArgumentException(op + ": " + name + " has sizes " + Arrays.toString(s.sizes())
          + " but the window (" + window + ") needs " + Arrays.toString(expected));
    }
  }

  /** Throws unless every element of {@code s} lies inside its storage. */
  public static void inStorage(String op, String name, Strided s) {
    if (s.numel() == 0) {
      return;
    }
    long lo = s.offset();
    long hi = s.offset();
    for (int d = 0; d < s.rank(); d++) {
      long reach = (long) (s.size(d) - 1) * s.stride(d);
      if (reach < 0) {
        lo += reach;
      } else {
        hi += reach;
      }
    }
    long capacity = s.storage().byteSize() / s.dtype().byteSize();
    if (lo < 0 || hi >= capacity) {
      throw new IndexOutOfBoundsException(op + ": " + name + " (sizes " + Arrays.toString(s.sizes()) + ", strides "
          + Arrays.toString(s.strides()) + ", offset " + s.offset() + ") reaches elements " + lo + " to " + hi
          + " of a storage of " + capacity);
    }
  }
}
