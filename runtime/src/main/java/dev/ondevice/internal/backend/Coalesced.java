package dev.ondevice.internal.backend;

import java.util.Arrays;

/**
 * An index space with size-1 dimensions dropped and neighbours merged wherever every operand allows
 * it (rank at least 1): the loops of the CPU kernels and the launches of the CUDA kernels work on
 * it, so that a contiguous tensor of any shape is one run. Internal to the runtime.
 */
public final class Coalesced {
  /** The merged sizes; callers must not modify them. */
  public final int[] sizes;

  /** {@code strides[k]}: operand k's strides over {@link #sizes}; callers must not modify them. */
  public final int[][] strides;

  private Coalesced(int[] sizes, int[][] strides) {
    this.sizes = sizes;
    this.strides = strides;
  }

  /** Coalesces the index space {@code sizes}, where {@code strides[k]} are operand k's strides. */
  public static Coalesced of(int[] sizes, int[][] strides) {
    int k = strides.length;
    int[] cs = new int[Math.max(1, sizes.length)];
    int[][] cst = new int[k][Math.max(1, sizes.length)];
    int r = 0;
    for (int d = 0; d < sizes.length; d++) {
      if (sizes[d] == 1) {
        continue;
      }
      if (r > 0 && mergeable(cs[r - 1], cst, r - 1, strides, d, sizes[d])) {
        cs[r - 1] *= sizes[d];
        for (int j = 0; j < k; j++) {
          cst[j][r - 1] = strides[j][d];
        }
        continue;
      }
      cs[r] = sizes[d];
      for (int j = 0; j < k; j++) {
        cst[j][r] = strides[j][d];
      }
      r++;
    }
    if (r == 0) {
      return new Coalesced(new int[] {1}, new int[k][1]);
    }
    int[] fs = Arrays.copyOf(cs, r);
    int[][] fst = new int[k][];
    for (int j = 0; j < k; j++) {
      fst[j] = Arrays.copyOf(cst[j], r);
    }
    return new Coalesced(fs, fst);
  }

  /** Whether outer dimension (kept at {@code outer}) can absorb inner dimension {@code d}. */
  private static boolean mergeable(
      int outerSize, int[][] cst, int outer, int[][] strides, int d, int innerSize) {
    for (int j = 0; j < strides.length; j++) {
      if ((long) cst[j][outer] != (long) strides[j][d] * innerSize) {
        return false;
      }
    }
    return outerSize > 0;
  }

  /** The number of elements. */
  public int numel() {
    int n = 1;
    for (int s : sizes) {
      n *= s;
    }
    return n;
  }
}
