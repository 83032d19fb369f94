package dev.ondevice.internal.cpu;

import dev.ondevice.internal.backend.HostStorage;
import dev.ondevice.internal.backend.ScalarType;
import dev.ondevice.internal.backend.WindowGrid;
import java.nio.DoubleBuffer;
import java.nio.FloatBuffer;
import java.util.Arrays;

/**
 * Per-thread heap scratch for the sliding-window kernels, in the operand's float type: one image
 * plane and a few rows of window positions. The kernels move whole blocks between tensor memory and
 * these arrays with bulk copies, and do their arithmetic on the arrays, where the JIT drops bounds
 * checks and vectorises; the type dispatch costs one virtual call per block, never one per element.
 */
abstract class Planes {
  /**
   * A scratch of one plane of {@code planeSize} elements and {@code rowCount} zeroed rows of {@code
   * rowSize}.
   */
  static Planes of(ScalarType dtype, int planeSize, int rowSize, int rowCount) {
    return dtype == ScalarType.FLOAT64
        ? new Doubles(planeSize, rowSize, rowCount)
        : new Floats(planeSize, rowSize, rowCount);
  }

  /**
   * Reads the {@code rows x cols} block at {@code base} (strides {@code rs}, {@code cs}) into the
   * plane.
   */
  abstract void loadPlane(HostStorage s, int base, int rs, int cs, int rows, int cols);

  /** Writes the plane to the {@code rows x cols} block at {@code base}. */
  abstract void storePlane(HostStorage s, int base, int rs, int cs, int rows, int cols);

  /** Sets the plane to zeros. */
  abstract void zeroPlane();

  /** Reads a {@code rows x cols} block into row {@code k}. */
  abstract void loadRow(int k, HostStorage s, int base, int rs, int cs, int rows, int cols);

  /** Writes row {@code k} to a {@code rows x cols} block. */
  abstract void storeRow(int k, HostStorage s, int base, int rs, int cs, int rows, int cols);

  /**
   * Copies a block of the plane into row {@code k}: for {@code r < rows} and {@code t < count},
   * {@code row[k][dst + r * dstRowStep + t] = plane[src + r * srcRowStep + t * step]}.
   */
  abstract void gather(
      int k, int src, int srcRowStep, int dst, int dstRowStep, int rows, int count, int step);

  /**
   * Adds a block of row {@code k} into the plane: for {@code r < rows} and {@code t < count},
   * {@code plane[dst + r * dstRowStep + t * step] += row[k][src + r * srcRowStep + t]}.
   */
  abstract void scatterAdd(
      int k, int src, int srcRowStep, int dst, int dstRowStep, int rows, int count, int step);

  /**
   * Max pooling of the plane (a {@code grid.height() x grid.width()} image) into row {@code k}, one
   * element per window position, and the flat plane position of each maximum into {@code
   * positions}. As PyTorch: the first maximum wins, a NaN beats any number, padding never wins.
   */
  abstract void maxPool(int k, WindowGrid grid, long[] positions);

  /** {@code plane[positions[t]] += row[k][t]} for {@code t < count}. */
  abstract void addAt(int k, long[] positions, int count);

  /** float32 scratch. */
  private static final class Floats extends Planes {
    private final float[] plane;
    private final float[][] rows;

    Floats(int planeSize, int rowSize, int rowCount) {
      plane = new float[planeSize];
      rows = new float[rowCount][rowSize];
    }

    private static void load(
        FloatBuffer b, int base, int rs, int cs, int rows, int cols, float[] into) {
      if (cs == 1 && rs == cols) {
        b.get(base, into, 0, rows * cols);
      } else if (cs == 1) {
        for (int r = 0; r < rows; r++) {
          b.get(base + r * rs, into, r * cols, cols);
        }
      } else {
        for (int r = 0, k = 0; r < rows; r++) {
          for (int c = 0, p = base + r * rs; c < cols; c++, p += cs) {
            into[k++] = b.get(p);
          }
        }
      }
    }

    private static void store(
        FloatBuffer b, int base, int rs, int cs, int rows, int cols, float[] from) {
      if (cs == 1 && rs == cols) {
        b.put(base, from, 0, rows * cols);
      } else if (cs == 1) {
        for (int r = 0; r < rows; r++) {
          b.put(base + r * rs, from, r * cols, cols);
        }
      } else {
        for (int r = 0, k = 0; r < rows; r++) {
          for (int c = 0, p = base + r * rs; c < cols; c++, p += cs) {
            b.put(p, from[k++]);
          }
        }
      }
    }

    @Override
    void loadPlane(HostStorage s, int base, int rs, int cs, int rows, int cols) {
      load(s.floats(), base, rs, cs, rows, cols, plane);
    }

    @Override
    void storePlane(HostStorage s, int base, int rs, int cs, int rows, int cols) {
      store(s.floats(), base, rs, cs, rows, cols, plane);
    }

    @Override
    void zeroPlane() {
      Arrays.fill(plane, 0f);
    }

    @Override
    void loadRow(int k, HostStorage s, int base, int rs, int cs, int rows, int cols) {
      load(s.floats(), base, rs, cs, rows, cols, this.rows[k]);
    }

    @Override
    void storeRow(int k, HostStorage s, int base, int rs, int cs, int rows, int cols) {
      store(s.floats(), base, rs, cs, rows, cols, this.rows[k]);
    }

    @Override
    void gather(
        int k, int src, int srcRowStep, int dst, int dstRowStep, int rows, int count, int step) {
      float[] row = this.rows[k];
      for (int r = 0, from = src, to = dst; r < rows; r++, from += srcRowStep, to += dstRowStep) {
        if (step == 1) {
          System.arraycopy(plane, from, row, to, count);
        } else {
          for (int t = 0; t < count; t++) {
            row[to + t] = plane[from + t * step];
          }
        }
      }
    }

    @Override
    void scatterAdd(
        int k, int src, int srcRowStep, int dst, int dstRowStep, int rows, int count, int step) {
      float[] row = this.rows[k];
      float[] p = plane;
      for (int r = 0, from = src, to = dst; r < rows; r++, from += srcRowStep, to += dstRowStep) {
        for (int t = 0; t < count; t++) {
          p[to + t * step] += row[from + t];
        }
      }
    }

    /**
     * Without branches on the data, which mispredict on every other element of real activations:
     * the comparison becomes a bit mask that selects both the value and the position. 2x2 windows
     * at stride 2, the usual pooling, take {@link #maxPoolPairs}.
     */
    @Override
    void maxPool(int k, WindowGrid grid, long[] positions) {
      if (grid.isDisjointPairs()) {
        maxPoolPairs(rows[k], grid, positions);
        return;
      }
      float[] row = rows[k];
      float[] x = plane;
      int width = grid.width();
      for (int oh = 0, t = 0; oh < grid.outHeight(); oh++) {
        int r0 = grid.firstRow(oh) * width;
        int r1 = grid.endRow(oh) * width;
        for (int ow = 0; ow < grid.outWidth(); ow++, t++) {
          int c0 = grid.firstColumn(ow);
          int c1 = grid.endColumn(ow);
          int best = r0 + c0;
          int max = Float.floatToRawIntBits(Float.NEGATIVE_INFINITY);
          for (int r = r0; r < r1; r += width) {
            for (int at = r + c0, end = r + c1; at < end; at++) {
              float v = x[at];
              // Both sides are evaluated on purpose: the inner loop stays free of branches.
              @SuppressWarnings("ShortCircuitBoolean")
              int wins = v > Float.intBitsToFloat(max) | Float.isNaN(v) ? -1 : 0;
              max = (Float.floatToRawIntBits(v) & wins) | (max & ~wins);
              best = (at & wins) | (best & ~wins);
            }
          }
          row[t] = Float.intBitsToFloat(max);
          positions[t] = best;
        }
      }
    }

    /**
     * 2x2 windows at stride 2 without padding: the maximum by {@code Math.max}, which propagates
     * NaN, then the position from a mask of the elements equal to it (the first, as PyTorch keeps
     * the first maximum), or of the NaNs when it is NaN (the last, as PyTorch's scan ends there).
     */
    private void maxPoolPairs(float[] row, WindowGrid grid, long[] positions) {
      float[] x = plane;
      int width = grid.width();
      for (int oh = 0, t = 0; oh < grid.outHeight(); oh++) {
        int top = 2 * oh * width;
        for (int ow = 0; ow < grid.outWidth(); ow++, t++) {
          int at = top + 2 * ow;
          float a = x[at];
          float b = x[at + 1];
          float c = x[at + width];
          float d = x[at + width + 1];
          float max = Math.max(Math.max(a, b), Math.max(c, d));
          int k;
          if (!Float.isNaN(max)) {
            k =
                Integer.numberOfTrailingZeros(
                    (a == max ? 1 : 0) | (b == max ? 2 : 0) | (c == max ? 4 : 0) | 8);
          } else {
            k =
                31
                    - Integer.numberOfLeadingZeros(
                        (Float.isNaN(a) ? 1 : 0)
                            | (Float.isNaN(b) ? 2 : 0)
                            | (Float.isNaN(c) ? 4 : 0)
                            | (Float.isNaN(d) ? 8 : 0));
          }
          int best = at + (k >> 1) * width + (k & 1);
          row[t] = x[best];
          positions[t] = best;
        }
      }
    }

    @Override
    void addAt(int k, long[] positions, int count) {
      float[] row = rows[k];
      for (int t = 0; t < count; t++) {
        plane[(int) positions[t]] += row[t];
      }
    }
  }

  /** float64 scratch. */
  private static final class Doubles extends Planes {
    private final double[] plane;
    private final double[][] rows;

    Doubles(int planeSize, int rowSize, int rowCount) {
      plane = new double[planeSize];
      rows = new double[rowCount][rowSize];
    }

    private static void load(
        DoubleBuffer b, int base, int rs, int cs, int rows, int cols, double[] into) {
      if (cs == 1 && rs == cols) {
        b.get(base, into, 0, rows * cols);
      } else if (cs == 1) {
        for (int r = 0; r < rows; r++) {
          b.get(base + r * rs, into, r * cols, cols);
        }
      } else {
        for (int r = 0, k = 0; r < rows; r++) {
          for (int c = 0, p = base + r * rs; c < cols; c++, p += cs) {
            into[k++] = b.get(p);
          }
        }
      }
    }

    private static void store(
        DoubleBuffer b, int base, int rs, int cs, int rows, int cols, double[] from) {
      if (cs == 1 && rs == cols) {
        b.put(base, from, 0, rows * cols);
      } else if (cs == 1) {
        for (int r = 0; r < rows; r++) {
          b.put(base + r * rs, from, r * cols, cols);
        }
      } else {
        for (int r = 0, k = 0; r < rows; r++) {
          for (int c = 0, p = base + r * rs; c < cols; c++, p += cs) {
            b.put(p, from[k++]);
          }
        }
      }
    }

    @Override
    void loadPlane(HostStorage s, int base, int rs, int cs, int rows, int cols) {
      load(s.doubles(), base, rs, cs, rows, cols, plane);
    }

    @Override
    void storePlane(HostStorage s, int base, int rs, int cs, int rows, int cols) {
      store(s.doubles(), base, rs, cs, rows, cols, plane);
    }

    @Override
    void zeroPlane() {
      Arrays.fill(plane, 0.0);
    }

    @Override
    void loadRow(int k, HostStorage s, int base, int rs, int cs, int rows, int cols) {
      load(s.doubles(), base, rs, cs, rows, cols, this.rows[k]);
    }

    @Override
    void storeRow(int k, HostStorage s, int base, int rs, int cs, int rows, int cols) {
      store(s.doubles(), base, rs, cs, rows, cols, this.rows[k]);
    }

    @Override
    void gather(
        int k, int src, int srcRowStep, int dst, int dstRowStep, int rows, int count, int step) {
      double[] row = this.rows[k];
      for (int r = 0, from = src, to = dst; r < rows; r++, from += srcRowStep, to += dstRowStep) {
        if (step == 1) {
          System.arraycopy(plane, from, row, to, count);
        } else {
          for (int t = 0; t < count; t++) {
            row[to + t] = plane[from + t * step];
          }
        }
      }
    }

    @Override
    void scatterAdd(
        int k, int src, int srcRowStep, int dst, int dstRowStep, int rows, int count, int step) {
      double[] row = this.rows[k];
      double[] p = plane;
      for (int r = 0, from = src, to = dst; r < rows; r++, from += srcRowStep, to += dstRowStep) {
        for (int t = 0; t < count; t++) {
          p[to + t * step] += row[from + t];
        }
      }
    }

    @Override
    void maxPool(int k, WindowGrid grid, long[] positions) {
      double[] row = rows[k];
      double[] x = plane;
      int width = grid.width();
      int outWidth = grid.outWidth();
      for (int oh = 0, t = 0; oh < grid.outHeight(); oh++) {
        int r0 = grid.firstRow(oh) * width;
        int r1 = grid.endRow(oh) * width;
        for (int ow = 0; ow < outWidth; ow++, t++) {
          int c0 = grid.firstColumn(ow);
          int c1 = grid.endColumn(ow);
          int best = r0 + c0;
          double max = Double.NEGATIVE_INFINITY;
          for (int r = r0; r < r1; r += width) {
            for (int at = r + c0, end = r + c1; at < end; at++) {
              double v = x[at];
              if (v > max || Double.isNaN(v)) {
                max = v;
                best = at;
              }
            }
          }
          row[t] = max;
          positions[t] = best;
        }
      }
    }

    @Override
    void addAt(int k, long[] positions, int count) {
      double[] row = rows[k];
      for (int t = 0; t < count; t++) {
        plane[(int) positions[t]] += row[t];
      }
    }
  }
}
