package dev.ondevice.internal.cpu;

import dev.ondevice.internal.backend.Coalesced;

/**
 * Iteration over strided index spaces: dimensions are coalesced where every operand allows it, the
 * space is split over threads, and a row kernel handles each run along the innermost dimension.
 */
final class Loops {
  /** Elements per thread below which a loop stays on the calling thread. */
  static final int GRAIN = 128 * 1024;

  private Loops() {}

  /**
   * Handles {@code n} elements along the innermost dimension: operand {@code k} starts at {@code
   * offsets[k]} and advances by {@code steps[k]}. Must not modify the arrays.
   */
  @FunctionalInterface
  interface Row {
    void run(int n, int[] offsets, int[] steps);
  }

  /**
   * Runs {@code row} over the index space {@code sizes}; {@code strides[k]} are operand k's
   * strides.
   */
  static void forEach(int[] sizes, int[][] strides, int[] offsets, Row row) {
    forEach(sizes, strides, offsets, row, true);
  }

  /**
   * As {@link #forEach(int[], int[][], int[], Row)}, on the calling thread alone when not {@code
   * parallel}.
   */
  static void forEach(int[] sizes, int[][] strides, int[] offsets, Row row, boolean parallel) {
    int total = 1;
    for (int s : sizes) {
      total *= s;
    }
    if (total == 0) {
      return;
    }
    Coalesced c = Coalesced.of(sizes, strides);
    if (parallel) {
      Parallel.forRange(total, GRAIN, (from, to) -> runRange(c, offsets, row, from, to));
    } else {
      runRange(c, offsets, row, 0, total);
    }
  }

  static void runRange(Coalesced c, int[] base, Row row, int from, int to) {
    int[] sizes = c.sizes;
    int[][] strides = c.strides;
    int rank = sizes.length;
    int k = strides.length;
    int[] coord = new int[rank];
    int[] off = new int[k];
    int[] steps = new int[k];
    int rem = from;
    for (int d = rank - 1; d >= 0; d--) {
      coord[d] = rem % sizes[d];
      rem /= sizes[d];
    }
    for (int j = 0; j < k; j++) {
      int o = base[j];
      for (int d = 0; d < rank; d++) {
        o += coord[d] * strides[j][d];
      }
      off[j] = o;
      steps[j] = strides[j][rank - 1];
    }
    int inner = sizes[rank - 1];
    int idx = from;
    while (idx < to) {
      int n = Math.min(inner - coord[rank - 1], to - idx);
      row.run(n, off, steps);
      idx += n;
      coord[rank - 1] += n;
      for (int j = 0; j < k; j++) {
        off[j] += n * steps[j];
      }
      int d = rank - 1;
      while (d > 0 && coord[d] == sizes[d]) {
        for (int j = 0; j < k; j++) {
          off[j] -= sizes[d] * strides[j][d];
          off[j] += strides[j][d - 1];
        }
        coord[d] = 0;
        d--;
        coord[d]++;
      }
    }
  }
}
