package dev.ondevice.internal.cpu;

import dev.ondevice.internal.backend.Strided;

/**
 * The lines of a tensor along one dimension, as softmax and cross entropy walk them: {@code outer *
 * inner} lines of {@code size} elements, line {@code o * inner + i} holding the elements whose
 * coordinates before the dimension make outer index {@code o} and after it inner index {@code i}.
 */
final class Lines {
  /** Elements per line: the size of the dimension. */
  final int size;

  /** The number of lines. */
  final int count;

  private final int dim;
  private final int inner;

  Lines(int[] sizes, int dim) {
    int outer = 1;
    for (int d = 0; d < dim; d++) {
      outer *= sizes[d];
    }
    int in = 1;
    for (int d = dim + 1; d < sizes.length; d++) {
      in *= sizes[d];
    }
    this.dim = dim;
    this.size = sizes[dim];
    this.inner = in;
    this.count = outer * in;
  }

  /** The offset in {@code s}, which has the lines' sizes, of the first element of {@code line}. */
  int offset(Strided s, int line) {
    return s.offset()
        + offsetOf(line / inner, 0, dim, s)
        + offsetOf(line % inner, dim + 1, s.rank(), s);
  }

  /**
   * The offset in {@code s}, which has the lines' sizes without the dimension (a class target, a
   * loss per line), of the element of {@code line}.
   */
  int offsetWithout(Strided s, int line) {
    return s.offset()
        + offsetOf(line / inner, 0, dim, s)
        + offsetOf(line % inner, dim, s.rank(), s);
  }

  /** The offset of linear index {@code idx} over the dimensions {@code [from, to)} of {@code s}. */
  private static int offsetOf(int idx, int from, int to, Strided s) {
    int off = 0;
    for (int d = to - 1; d >= from; d--) {
      off += (idx % s.size(d)) * s.stride(d);
      idx /= s.size(d);
    }
    return off;
  }
}
