package dev.ondevice;

import dev.ondevice.annotations.ZeroDim;
import java.util.Arrays;

/**
 * The sizes of a tensor's dimensions: an immutable value. A 0-dim (scalar) tensor has shape {@code
 * []}.
 */
public final class Shape {
  private static final Shape SCALAR = new Shape(new long[0]);
  private final long[] dims;

  private Shape(long[] dims) {
    this.dims = dims;
  }

  /**
   * A shape with the given sizes.
   *
   * @throws IllegalArgumentException if a size is negative
   */
  public static Shape of(@ZeroDim long... dims) {
    for (int i = 0; i < dims.length; i++) {
      if (dims[i] < 0) {
        throw new IllegalArgumentException(
            "Shape "
                + Arrays.toString(dims)
                + " has a negative size "
                + dims[i]
                + " at dimension "
                + i);
      }
    }
    return dims.length == 0 ? SCALAR : new Shape(dims.clone());
  }

  static Shape of(int[] dims) {
    long[] l = new long[dims.length];
    for (int i = 0; i < dims.length; i++) {
      l[i] = dims[i];
    }
    return of(l);
  }

  /** The shape of a 0-dim tensor. */
  @ZeroDim
  public static Shape scalar() {
    return SCALAR;
  }

  /** The number of dimensions. */
  public int rank() {
    return dims.length;
  }

  /** The size of dimension {@code dim}; negative values count from the end. */
  public long get(int dim) {
    return dims[normalize(dim)];
  }

  /** The number of elements: the product of the sizes (1 for a 0-dim shape). */
  public long numel() {
    long n = 1;
    for (long d : dims) {
      n *= d;
    }
    return n;
  }

  /** A copy of the sizes. */
  public long[] toArray() {
    return dims.clone();
  }

  int[] toIntArray() {
    int[] r = new int[dims.length];
    for (int i = 0; i < dims.length; i++) {
      r[i] = Math.toIntExact(dims[i]);
    }
    return r;
  }

  private int normalize(int dim) {
    int d = dim < 0 ? dim + dims.length : dim;
    if (d < 0 || d >= dims.length) {
      throw new IndexOutOfBoundsException(
          "Dimension " + dim + " is out of range for shape " + this + " of rank " + dims.length);
    }
    return d;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Shape s && Arrays.equals(s.dims, dims);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(dims);
  }

  /** The sizes in brackets, as in {@code [2, 3]}. */
  @Override
  public String toString() {
    return Arrays.toString(dims);
  }
}
