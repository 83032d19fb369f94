package dev.ondevice.nn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import dev.ondevice.Tensor;
import java.util.Arrays;

/**
 * Plain float64 loops that the layers are checked against, written from the definitions (PyTorch's
 * documentation), and a comparison that names the first differing element.
 */
final class Reference {
  private Reference() {}

  /**
   * Cross-correlation of {@code x [n,c,h,w]} with {@code w [o,c,kh,kw]} plus {@code b} (or null).
   */
  static double[] conv2d(
      double[] x,
      int n,
      int c,
      int h,
      int wd,
      double[] w,
      int o,
      int kh,
      int kw,
      double[] b,
      int stride,
      int pad) {
    int oh = (h + 2 * pad - kh) / stride + 1;
    int ow = (wd + 2 * pad - kw) / stride + 1;
    double[] out = new double[n * o * oh * ow];
    for (int in = 0; in < n; in++) {
      for (int io = 0; io < o; io++) {
        for (int y = 0; y < oh; y++) {
          for (int z = 0; z < ow; z++) {
            double s = b == null ? 0 : b[io];
            for (int ic = 0; ic < c; ic++) {
              for (int i = 0; i < kh; i++) {
                for (int j = 0; j < kw; j++) {
                  int r = y * stride - pad + i;
                  int q = z * stride - pad + j;
                  if (r >= 0 && r < h && q >= 0 && q < wd) {
                    s += x[((in * c + ic) * h + r) * wd + q] * w[((io * c + ic) * kh + i) * kw + j];
                  }
                }
              }
            }
            out[((in * o + io) * oh + y) * ow + z] = s;
          }
        }
      }
    }
    return out;
  }

  /**
   * Max pooling of {@code x [planes, h, w]}: the first maximum of each window in row-major order (a
   * NaN wins; padding never does). Returns the values, and the flat plane positions into {@code
   * positions} when it is not null.
   */
  static double[] maxPool2d(
      double[] x, int planes, int h, int w, int k, int stride, int pad, long[] positions) {
    int oh = (h + 2 * pad - k) / stride + 1;
    int ow = (w + 2 * pad - k) / stride + 1;
    double[] out = new double[planes * oh * ow];
    for (int p = 0; p < planes; p++) {
      for (int y = 0; y < oh; y++) {
        for (int z = 0; z < ow; z++) {
          double max = Double.NEGATIVE_INFINITY;
          long best = -1;
          for (int r = Math.max(0, y * stride - pad); r < Math.min(h, y * stride - pad + k); r++) {
            for (int q = Math.max(0, z * stride - pad);
                q < Math.min(w, z * stride - pad + k);
                q++) {
              double v = x[(p * h + r) * w + q];
              if (best < 0 || v > max || Double.isNaN(v)) {
                max = v;
                best = (long) r * w + q;
              }
            }
          }
          int t = (p * oh + y) * ow + z;
          out[t] = max;
          if (positions != null) {
            positions[t] = best;
          }
        }
      }
    }
    return out;
  }

  /** Average pooling of {@code x [planes, h, w]}, zeros of the padding counted. */
  static double[] avgPool2d(double[] x, int planes, int h, int w, int k, int stride, int pad) {
    int oh = (h + 2 * pad - k) / stride + 1;
    int ow = (w + 2 * pad - k) / stride + 1;
    double[] out = new double[planes * oh * ow];
    for (int p = 0; p < planes; p++) {
      for (int y = 0; y < oh; y++) {
        for (int z = 0; z < ow; z++) {
          double s = 0;
          for (int r = y * stride - pad; r < y * stride - pad + k; r++) {
            for (int q = z * stride - pad; q < z * stride - pad + k; q++) {
              if (r >= 0 && r < h && q >= 0 && q < w) {
                s += x[(p * h + r) * w + q];
              }
            }
          }
          out[(p * oh + y) * ow + z] = s / (k * k);
        }
      }
    }
    return out;
  }

  /** {@code log(sum(exp(row)))} of each row of a {@code [rows, cols]} matrix, computed stably. */
  static double[] logSumExp(double[] x, int rows, int cols) {
    double[] out = new double[rows];
    for (int r = 0; r < rows; r++) {
      double max = Double.NEGATIVE_INFINITY;
      for (int c = 0; c < cols; c++) {
        max = Math.max(max, x[r * cols + c]);
      }
      double s = 0;
      for (int c = 0; c < cols; c++) {
        s += Math.exp(x[r * cols + c] - max);
      }
      out[r] = max + Math.log(s);
    }
    return out;
  }

  /** Fails unless {@code actual} holds {@code expected} to {@code tolerance}, NaN matching NaN. */
  static void assertClose(String what, double[] expected, Tensor actual, double tolerance) {
    double[] got = actual.toDoubleArray();
    assertEquals(expected.length, got.length, what + ": element count");
    for (int i = 0; i < got.length; i++) {
      boolean same =
          Double.isNaN(expected[i])
              ? Double.isNaN(got[i])
              : Math.abs(expected[i] - got[i]) <= tolerance * Math.max(1, Math.abs(expected[i]));
      if (!same) {
        fail(
            what
                + ": element "
                + i
                + " is "
                + got[i]
                + ", expected "
                + expected[i]
                + "\nexpected: "
                + Arrays.toString(expected)
                + "\nactual:   "
                + Arrays.toString(got));
      }
    }
  }
}
