package dev.ondevice.internal.cuda;

import dev.ondevice.internal.backend.Coalesced;
import dev.ondevice.internal.backend.ReduceOp;
import dev.ondevice.internal.backend.ReductionSpace;
import dev.ondevice.internal.backend.ScalarType;
import dev.ondevice.internal.backend.Strided;
import dev.ondevice.internal.cuda.KernelLibrary.Module;
import java.util.Arrays;

/**
 * Reductions and softmax on a CUDA device: the launch plans of {@code reduce.cu}. Each output
 * reduces a region of the input; short regions, or many outputs over regions that are not
 * contiguous, get one thread per output, the rest one block per output, and few outputs over long
 * regions split each region into parts combined in order by a second kernel. Internal.
 */
final class CudaReductions {
  /**
   * Threads per block of the block kernels ({@code OD_REDUCE_THREADS}, {@code OD_SOFTMAX_THREADS}).
   */
  static final int REDUCE_THREADS = 256;

  static final int SOFTMAX_THREADS = 128;

  /** Bytes of one partial state ({@code ReduceState}). */
  static final int STATE_BYTES = 24;

  /** Regions up to this long are reduced by one thread each. */
  static final int SHORT_REGION = 32;

  /** Elements each thread of a block should reduce before a region is split further. */
  static final int ELEMENTS_PER_THREAD = 16;

  private CudaReductions() {}

  /** How one reduction is launched. */
  record Plan(boolean perThread, int parts) {}

  /**
   * The plan for {@code outputs} regions of {@code length} elements, innermost step {@code step}.
   */
  static Plan plan(int outputs, int length, int step, int multiprocessors) {
    if (length <= SHORT_REGION || (outputs >= REDUCE_THREADS * multiprocessors && step != 1)) {
      return new Plan(true, 1);
    }
    int wanted = Math.max(1, 4 * multiprocessors / Math.max(1, outputs));
    int useful = Math.max(1, length / (REDUCE_THREADS * ELEMENTS_PER_THREAD));
    return new Plan(false, Math.min(wanted, useful));
  }

  /**
   * Reduces {@code in} over {@code dims} into {@code out}; with {@code values}, an index reduction
   * with values.
   */
  static void reduce(
      CudaBackend b, ReduceOp op, Strided in, int[] dims, Strided out, Strided values) {
    if (in.dtype() == ScalarType.BOOL) {
      Strided wide = b.empty(ScalarType.INT64, in.sizes());
      b.copy(in, wide);
      reduce(b, op, wide, dims, out, values);
      return;
    }
    ScalarType outType = op.returnsIndices() ? ScalarType.INT64 : in.dtype();
    if (out.dtype() != outType || (values != null && values.dtype() != in.dtype())) {
      Strided o = b.empty(outType, out.sizes());
      Strided v = values == null ? null : b.empty(in.dtype(), values.sizes());
      reduce(b, op, in, dims, o, v);
      b.copy(o, out);
      if (values != null) {
        b.copy(v, values);
      }
      return;
    }
    ReductionSpace space = ReductionSpace.of(op, in, dims, out, values);
    Coalesced keptC = space.kept;
    Coalesced redC = space.reduced;
    int numOut = space.outputs();
    int numRed = space.length();
    if (numOut == 0
        || (numRed == 0 && (op == ReduceOp.MAX || op == ReduceOp.MIN || op.returnsIndices()))) {
      return;
    }
    int step = redC.strides[0][redC.sizes.length - 1];
    Plan plan = plan(numOut, numRed, step, b.multiprocessors());
    CudaStorage work =
        plan.parts() > 1 ? b.allocate((long) plan.parts() * numOut * STATE_BYTES) : null;
    String suffix = CudaBackend.suffix(in.dtype());
    Launcher.args()
        .keep(work)
        .dims(keptC.sizes)
        .view(in, keptC.strides[0])
        .view(out, keptC.strides[1])
        .view(values == null ? out : values, keptC.strides[2])
        .dims(redC.sizes)
        .view(in, redC.strides[0])
        .pointer(work == null ? 0 : work.address())
        .i32(KernelCodes.of(op))
        .i32(plan.parts())
        .i32(values == null ? 0 : 1)
        .i32(numRed);
    if (plan.perThread()) {
      b.launch(
          Module.REDUCE,
          "reduce_rows_" + suffix,
          LaunchConfig.elementwise(numOut, b.multiprocessors()));
      return;
    }
    b.launch(
        Module.REDUCE,
        "reduce_blocks_" + suffix,
        LaunchConfig.blocks((long) numOut * plan.parts(), REDUCE_THREADS, b.multiprocessors()));
    if (plan.parts() > 1) {
      // The argument buffer still holds the same struct, and keeps the workspace reachable: the
      // finishing kernel reads the parts.
      b.launch(
          Module.REDUCE,
          "reduce_finish_" + suffix,
          LaunchConfig.elementwise(numOut, b.multiprocessors()));
    }
  }

  /** Softmax (or log-softmax) of {@code in} along {@code dim} into contiguous {@code out}. */
  static void softmax(CudaBackend b, Strided in, int dim, boolean log, Strided out) {
    if (!in.dtype().isFloatingPoint()) {
      throw new IllegalArgumentException(
          "softmax: expected a float32 or float64 operand, got " + in.dtype());
    }
    int size = in.size(dim);
    if (size == 0 || in.numel() == 0) {
      return;
    }
    Coalesced outer =
        Coalesced.of(
            Arrays.copyOfRange(in.sizes(), 0, dim),
            new int[][] {Arrays.copyOfRange(in.strides(), 0, dim)});
    Coalesced inner =
        Coalesced.of(
            Arrays.copyOfRange(in.sizes(), dim + 1, in.rank()),
            new int[][] {Arrays.copyOfRange(in.strides(), dim + 1, in.rank())});
    Launcher.args()
        .dims(outer.sizes)
        .view(in, outer.strides[0])
        .dims(inner.sizes)
        .view(in, inner.strides[0])
        .view(out, new int[0])
        .i32(size)
        .i32(in.stride(dim))
        .i32(log ? 1 : 0);
    long lines = (long) outer.numel() * inner.numel();
    b.launch(
        Module.REDUCE,
        "softmax_" + CudaBackend.suffix(in.dtype()),
        LaunchConfig.blocks(lines, SOFTMAX_THREADS, b.multiprocessors()));
  }
}
