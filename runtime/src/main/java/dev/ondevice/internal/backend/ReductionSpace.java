package dev.ondevice.internal.backend;

import java.util.Locale;

/**
 * The index spaces of a reduction, as every backend iterates them: the kept dimensions (one output
 * each, with the strides of the input, the output and the values of an index reduction) and the
 * reduced ones (with the input's strides), each coalesced. Internal to the runtime.
 */
public final class ReductionSpace {
  /**
   * The outputs: strides {@code [0]} of the input, {@code [1]} of the output, {@code [2]} of the
   * values (0 without).
   */
  public final Coalesced kept;

  /** The region each output reduces: strides {@code [0]} of the input. */
  public final Coalesced reduced;

  private ReductionSpace(Coalesced kept, Coalesced reduced) {
    this.kept = kept;
    this.reduced = reduced;
  }

  /**
   * The spaces of reducing {@code in} over {@code dims} into {@code out} (same rank, size 1 on the
   * reduced dimensions), with {@code values} for an index reduction that also writes them.
   *
   * @throws IllegalArgumentException for a max, min or index reduction over an empty region with
   *     outputs to write
   */
  public static ReductionSpace of(
      ReduceOp op, Strided in, int[] dims, Strided out, Strided values) {
    boolean[] reduced = new boolean[in.rank()];
    for (int d : dims) {
      reduced[d] = true;
    }
    int kept = in.rank() - dims.length;
    int[] keptSizes = new int[kept];
    int[] keptIn = new int[kept];
    int[] keptOut = new int[kept];
    int[] keptVal = new int[kept];
    int[] redSizes = new int[dims.length];
    int[] redStrides = new int[dims.length];
    for (int d = 0, k = 0, r = 0; d < in.rank(); d++) {
      if (reduced[d]) {
        redSizes[r] = in.size(d);
        redStrides[r++] = in.stride(d);
      } else {
        keptSizes[k] = in.size(d);
        keptIn[k] = in.stride(d);
        keptOut[k] = out.stride(d);
        keptVal[k++] = values == null ? 0 : values.stride(d);
      }
    }
    ReductionSpace s =
        new ReductionSpace(
            Coalesced.of(keptSizes, new int[][] {keptIn, keptOut, keptVal}),
            Coalesced.of(redSizes, new int[][] {redStrides}));
    if (s.length() == 0
        && s.outputs() > 0
        && (op == ReduceOp.MAX || op == ReduceOp.MIN || op.returnsIndices())) {
      throw new IllegalArgumentException(
          "Cannot compute " + op.name().toLowerCase(Locale.ROOT) + " over an empty dimension");
    }
    return s;
  }

  /** The number of outputs. */
  public int outputs() {
    return kept.numel();
  }

  /** The number of elements each output reduces. */
  public int length() {
    return reduced.numel();
  }
}
