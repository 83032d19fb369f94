package dev.ondevice.internal.cpu;

import dev.ondevice.internal.backend.Coalesced;
import dev.ondevice.internal.backend.HostStorage;
import dev.ondevice.internal.backend.ReduceOp;
import dev.ondevice.internal.backend.ReductionSpace;
import dev.ondevice.internal.backend.ScalarType;
import dev.ondevice.internal.backend.Strided;
import java.nio.DoubleBuffer;
import java.nio.FloatBuffer;
import java.nio.LongBuffer;

/**
 * Reductions over dimensions on host memory. Each output element reduces a strided region of the
 * input; many outputs are split over threads, and a few large regions are split themselves, with
 * partial results combined in order. Floats are summed in double precision.
 */
public final class ReduceKernels {
  private ReduceKernels() {}

  /** Reduces {@code in} over {@code dims} into {@code out} (same rank, size 1 on reduced dims). */
  public static void reduce(ReduceOp op, Strided in, int[] dims, Strided out) {
    run(op, in, dims, out, null);
  }

  /** Max or min over {@code dim}: values into {@code values}, positions into {@code indices}. */
  public static void reduceWithIndices(
      boolean max, Strided in, int dim, Strided values, Strided indices) {
    run(max ? ReduceOp.ARGMAX : ReduceOp.ARGMIN, in, new int[] {dim}, indices, values);
  }

  private static void run(ReduceOp op, Strided in, int[] dims, Strided out, Strided values) {
    ReductionSpace space = ReductionSpace.of(op, in, dims, out, values);
    Coalesced keptC = space.kept;
    Coalesced redC = space.reduced;
    int numOut = space.outputs();
    int numRed = space.length();
    if (numRed == 0 && (op == ReduceOp.MAX || op == ReduceOp.MIN || op.returnsIndices())) {
      return;
    }
    int count = numRed;
    boolean perOutput = numOut >= Parallel.THREADS || numRed < Loops.GRAIN;
    if (perOutput && ColumnSums.applies(op, in.dtype(), keptC, redC, numOut)) {
      ColumnSums.run(op == ReduceOp.MEAN, in, keptC, redC, out, count);
      return;
    }
    if (perOutput) {
      int grain = Math.max(1, Loops.GRAIN / Math.max(1, numRed));
      Parallel.forRange(
          numOut,
          grain,
          (from, to) -> {
            int[] base = new int[3];
            for (int j = from; j < to; j++) {
              offsets(
                  keptC, j, in.offset(), out.offset(), values == null ? 0 : values.offset(), base);
              Accumulator acc = new Accumulator(op, in.dtype());
              visit(in.host(), redC, base[0], 0, count, acc);
              acc.write(out, base[1], values, base[2], count);
            }
          });
      return;
    }
    int[] base = new int[3];
    for (int j = 0; j < numOut; j++) {
      offsets(keptC, j, in.offset(), out.offset(), values == null ? 0 : values.offset(), base);
      int b0 = base[0];
      Accumulator[] parts = new Accumulator[Parallel.THREADS];
      int chunks = parts.length;
      Parallel.forRange(
          chunks,
          1,
          (from, to) -> {
            for (int c = from; c < to; c++) {
              Accumulator acc = new Accumulator(op, in.dtype());
              int lo = (int) ((long) count * c / chunks);
              int hi = (int) ((long) count * (c + 1) / chunks);
              acc.pos = lo;
              visit(in.host(), redC, b0, lo, hi, acc);
              parts[c] = acc;
            }
          });
      Accumulator total = parts[0];
      for (int c = 1; c < chunks; c++) {
        total.merge(parts[c]);
      }
      total.write(out, base[1], values, base[2], count);
    }
  }

  /** Offsets of output number {@code j} in the input, the output and the values output. */
  private static void offsets(Coalesced c, int j, int in0, int out0, int val0, int[] base) {
    int a = in0;
    int b = out0;
    int v = val0;
    int rem = j;
    for (int d = c.sizes.length - 1; d >= 0; d--) {
      int coord = rem % c.sizes[d];
      rem /= c.sizes[d];
      a += coord * c.strides[0][d];
      b += coord * c.strides[1][d];
      v += coord * c.strides[2][d];
    }
    base[0] = a;
    base[1] = b;
    base[2] = v;
  }

  private static void visit(
      HostStorage s, Coalesced region, int base, int from, int to, Accumulator acc) {
    if (from >= to) {
      return;
    }
    if (region.sizes.length == 1) {
      int step = region.strides[0][0];
      acc.add(s, base + from * step, step, to - from);
      return;
    }
    Loops.runRange(
        region, new int[] {base}, (n, off, st) -> acc.add(s, off[0], st[0], n), from, to);
  }

  /** The running state of one reduction. */
  private static final class Accumulator {
    private final ReduceOp op;
    private final ScalarType dtype;
    private double sum;
    private long longSum;
    private double product = 1;
    private long longProduct = 1;
    private double best = Double.NaN;
    private long bestLong;
    private long bestPos = -1;
    long pos;

    Accumulator(ReduceOp op, ScalarType dtype) {
      this.op = op;
      this.dtype = dtype;
    }

    void add(HostStorage s, int off, int step, int n) {
      switch (op) {
        case SUM, MEAN -> addSum(s, off, step, n);
        case PROD -> {
          for (int i = 0, p = off; i < n; i++, p += step) {
            if (dtype == ScalarType.INT64) {
              longProduct *= s.longs().get(p);
            } else {
              product *= Elements.getDouble(s, dtype, p);
            }
          }
        }
        default -> addExtreme(s, off, step, n, op == ReduceOp.MAX || op == ReduceOp.ARGMAX);
      }
      pos += n;
    }

    private void addSum(HostStorage s, int off, int step, int n) {
      switch (dtype) {
        case FLOAT32 -> {
          FloatBuffer f = s.floats();
          double acc = 0;
          for (int i = 0, p = off; i < n; i++, p += step) {
            acc += f.get(p);
          }
          sum += acc;
        }
        case FLOAT64 -> {
          DoubleBuffer f = s.doubles();
          double acc = 0;
          for (int i = 0, p = off; i < n; i++, p += step) {
            acc += f.get(p);
          }
          sum += acc;
        }
        default -> {
          LongBuffer f = s.longs();
          long acc = 0;
          for (int i = 0, p = off; i < n; i++, p += step) {
            acc += f.get(p);
          }
          longSum += acc;
        }
      }
    }

    private void addExtreme(HostStorage s, int off, int step, int n, boolean max) {
      if (dtype == ScalarType.INT64) {
        LongBuffer f = s.longs();
        for (int i = 0, p = off; i < n; i++, p += step) {
          long v = f.get(p);
          if (bestPos < 0 || (max ? v > bestLong : v < bestLong)) {
            bestLong = v;
            bestPos = pos + i;
          }
        }
        return;
      }
      for (int i = 0, p = off; i < n; i++, p += step) {
        double v = Elements.getDouble(s, dtype, p);
        if (bestPos < 0
            || (!Double.isNaN(best) && (Double.isNaN(v) || (max ? v > best : v < best)))) {
          best = v;
          bestPos = pos + i;
        }
      }
    }

    /** Folds in the state of the region that follows this one. */
    void merge(Accumulator later) {
      sum += later.sum;
      longSum += later.longSum;
      product *= later.product;
      longProduct *= later.longProduct;
      if (later.bestPos < 0) {
        return;
      }
      boolean max = op == ReduceOp.MAX || op == ReduceOp.ARGMAX;
      boolean take;
      if (bestPos < 0) {
        take = true;
      } else if (dtype == ScalarType.INT64) {
        take = max ? later.bestLong > bestLong : later.bestLong < bestLong;
      } else {
        take =
            !Double.isNaN(best)
                && (Double.isNaN(later.best) || (max ? later.best > best : later.best < best));
      }
      if (take) {
        best = later.best;
        bestLong = later.bestLong;
        bestPos = later.bestPos;
      }
    }

    void write(Strided out, int outOff, Strided values, int valOff, int count) {
      HostStorage o = out.host();
      switch (op) {
        case SUM -> {
          if (dtype == ScalarType.INT64) {
            o.longs().put(outOff, longSum);
          } else {
            Elements.setDouble(o, out.dtype(), outOff, sum);
          }
        }
        case MEAN ->
            Elements.setDouble(
                o, out.dtype(), outOff, (dtype == ScalarType.INT64 ? longSum : sum) / count);
        case PROD -> {
          if (dtype == ScalarType.INT64) {
            o.longs().put(outOff, longProduct);
          } else {
            Elements.setDouble(o, out.dtype(), outOff, product);
          }
        }
        case MAX, MIN -> writeBest(o, out.dtype(), outOff);
        default -> {
          o.longs().put(outOff, bestPos);
          if (values != null) {
            writeBest(values.host(), values.dtype(), valOff);
          }
        }
      }
    }

    private void writeBest(HostStorage o, ScalarType t, int off) {
      if (dtype == ScalarType.INT64) {
        Elements.setLong(o, t, off, bestLong);
      } else {
        Elements.setDouble(o, t, off, best);
      }
    }
  }
}
