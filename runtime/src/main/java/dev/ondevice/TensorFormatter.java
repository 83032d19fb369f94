package dev.ondevice;

import java.util.Arrays;
import java.util.Locale;
import java.util.function.IntConsumer;

/**
 * Prints tensors as PyTorch does: nested brackets, a common number format per tensor, summarised
 * with {@code ...} beyond 1000 elements, and a suffix for the device, non-default dtypes and {@code
 * requiresGrad}. As in PyTorch, the number format of a summarised tensor is chosen from the
 * elements printed, not from all of them: printing ten million elements costs what printing a
 * thousand does.
 */
final class TensorFormatter {
  private static final int THRESHOLD = 1000;
  private static final int EDGE = 3;

  private TensorFormatter() {}

  static String format(Tensor t) {
    Tensor host = t.detach();
    double[] values = host.toDoubleArray();
    long[] sizes = t.shape().toArray();
    boolean summarize = values.length > THRESHOLD;
    NumberFormat nf =
        NumberFormat.of(t.dtype(), sizes.length == 0 ? values : printed(values, sizes, summarize));
    StringBuilder sb = new StringBuilder("tensor(");
    if (sizes.length == 0) {
      sb.append(nf.format(values[0]).trim());
    } else {
      appendDim(sb, values, sizes, 0, 0, nf, summarize, "tensor(".length());
    }
    if (!t.device().isCpu()) {
      sb.append(", device='").append(t.device().describe()).append('\'');
    }
    if (t.dtype() == DType.FLOAT64 || (values.length == 0 && t.dtype() != DType.FLOAT32)) {
      sb.append(", dtype=").append(t.dtype());
    }
    if (t.gradFnName() != null) {
      sb.append(", gradFn=").append(t.gradFnName());
    } else if (t.requiresGrad()) {
      sb.append(", requiresGrad=true");
    }
    return sb.append(')').toString();
  }

  private static void appendDim(
      StringBuilder sb,
      double[] v,
      long[] sizes,
      int dim,
      int offset,
      NumberFormat nf,
      boolean summarize,
      int indent) {
    int size = (int) sizes[dim];
    int stride = 1;
    for (int d = dim + 1; d < sizes.length; d++) {
      stride *= (int) sizes[d];
    }
    sb.append('[');
    boolean last = dim == sizes.length - 1;
    for (int i = 0; i < size; i++) {
      if (summarize && size > 2 * EDGE && i == EDGE) {
        sb.append(
            last
                ? " ..., "
                : "...,\n" + newlines(sizes.length - dim - 2) + " ".repeat(indent + dim + 1));
        i = size - EDGE;
      }
      if (last) {
        sb.append(nf.format(v[offset + i]));
      } else {
        appendDim(sb, v, sizes, dim + 1, offset + i * stride, nf, summarize, indent);
      }
      if (i < size - 1) {
        sb.append(
            last ? ", " : ",\n" + newlines(sizes.length - dim - 2) + " ".repeat(indent + dim + 1));
      }
    }
    sb.append(']');
  }

  /** The elements {@link #appendDim} prints, in order. */
  private static double[] printed(double[] v, long[] sizes, boolean summarize) {
    if (!summarize) {
      return v;
    }
    double[][] out = {new double[64]};
    int[] count = {0};
    visit(
        sizes,
        0,
        0,
        summarize,
        i -> {
          if (count[0] == out[0].length) {
            out[0] = Arrays.copyOf(out[0], 2 * count[0]);
          }
          out[0][count[0]++] = v[i];
        });
    return Arrays.copyOf(out[0], count[0]);
  }

  /**
   * Calls {@code element} with the flat index of each element printed, skipping as {@link
   * #appendDim} does.
   */
  private static void visit(
      long[] sizes, int dim, int offset, boolean summarize, IntConsumer element) {
    int size = (int) sizes[dim];
    int stride = 1;
    for (int d = dim + 1; d < sizes.length; d++) {
      stride *= (int) sizes[d];
    }
    for (int i = 0; i < size; i++) {
      if (summarize && size > 2 * EDGE && i == EDGE) {
        i = size - EDGE;
      }
      if (dim == sizes.length - 1) {
        element.accept(offset + i);
      } else {
        visit(sizes, dim + 1, offset + i * stride, summarize, element);
      }
    }
  }

  private static String newlines(int count) {
    return "\n".repeat(Math.max(0, count));
  }

  /** One format for all elements of a tensor, chosen from their range. */
  private static final class NumberFormat {
    private final DType dtype;
    private final boolean integral;
    private final boolean scientific;
    private final int width;

    private NumberFormat(DType dtype, boolean integral, boolean scientific, int width) {
      this.dtype = dtype;
      this.integral = integral;
      this.scientific = scientific;
      this.width = width;
    }

    static NumberFormat of(DType dtype, double[] values) {
      boolean integral = true;
      double maxAbs = 0;
      double minAbs = Double.POSITIVE_INFINITY;
      for (double v : values) {
        if (Double.isFinite(v)) {
          integral &= v == Math.rint(v);
          maxAbs = Math.max(maxAbs, Math.abs(v));
          if (v != 0) {
            minAbs = Math.min(minAbs, Math.abs(v));
          }
        }
      }
      boolean scientific =
          dtype.isFloatingPoint()
              && maxAbs > 0
              && (maxAbs / minAbs > 1000 || maxAbs > 1e8 || minAbs < 1e-4);
      NumberFormat probe = new NumberFormat(dtype, integral, scientific, 0);
      int width = 0;
      for (double v : values) {
        if (!dtype.isFloatingPoint() || Double.isFinite(v)) {
          width = Math.max(width, probe.plain(v).length());
        }
      }
      return new NumberFormat(dtype, integral, scientific, width);
    }

    String format(double v) {
      String s = plain(v);
      return " ".repeat(Math.max(0, width - s.length())) + s;
    }

    private String plain(double v) {
      if (dtype == DType.BOOL) {
        return v != 0 ? "True" : "False";
      }
      if (dtype == DType.INT64) {
        return Long.toString((long) v);
      }
      if (Double.isNaN(v)) {
        return "nan";
      }
      if (Double.isInfinite(v)) {
        return v > 0 ? "inf" : "-inf";
      }
      if (scientific) {
        return String.format(Locale.ROOT, "%.4e", v);
      }
      if (integral) {
        return String.format(Locale.ROOT, "%.0f.", v);
      }
      return String.format(Locale.ROOT, "%.4f", v);
    }
  }
}
