package dev.ondevice;

import static dev.ondevice.Close.assertClose;
import static dev.ondevice.Close.assertF32;
import static dev.ondevice.Close.assertF64;
import static dev.ondevice.Close.assertI64;
import static dev.ondevice.Close.f32;
import static dev.ondevice.Close.f64;
import static dev.ondevice.Close.i64;
import static dev.ondevice.Close.meta;
import static dev.ondevice.Close.shape;
import static dev.ondevice.Close.widen;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Matrix products with PyTorch's matmul rules, and softmax / log-softmax. */
class LinearAlgebraTest {
  /** {@code [m, k] x [k, n]} in double, row-major. */
  private static double[] mm(double[] a, double[] b, int m, int k, int n) {
    double[] c = new double[m * n];
    for (int i = 0; i < m; i++) {
      for (int j = 0; j < n; j++) {
        double s = 0;
        for (int p = 0; p < k; p++) {
          s += a[i * k + p] * b[p * n + j];
        }
        c[i * n + j] = s;
      }
    }
    return c;
  }

  /** {@code sum_p |a[i,p] * b[p,j]|}: the scale of the rounding error of each product element. */
  private static double[] mmAbs(double[] a, double[] b, int m, int k, int n) {
    double[] c = new double[m * n];
    for (int i = 0; i < m; i++) {
      for (int j = 0; j < n; j++) {
        double s = 0;
        for (int p = 0; p < k; p++) {
          s += Math.abs(a[i * k + p] * b[p * n + j]);
        }
        c[i * n + j] = s;
      }
    }
    return c;
  }

  /** The row-major transpose of an {@code [r, c]} array. */
  private static double[] transpose(double[] a, int r, int c) {
    double[] t = new double[a.length];
    for (int i = 0; i < r; i++) {
      for (int j = 0; j < c; j++) {
        t[j * r + i] = a[i * c + j];
      }
    }
    return t;
  }

  /** Asserts a float32 product within {@code 1e-5 * sum|a*b| + 1e-6} of the float64 reference. */
  private static void assertProduct(Tensor actual, double[] expected, double[] scale) {
    assertEquals(DType.FLOAT32, actual.dtype());
    double[] got = actual.toDoubleArray();
    assertEquals(expected.length, got.length);
    for (int i = 0; i < got.length; i++) {
      double tol = 1e-5 * scale[i] + 1e-6;
      if (!(Math.abs(got[i] - expected[i]) <= tol)) {
        fail(
            "element "
                + i
                + ": expected "
                + expected[i]
                + " but was "
                + got[i]
                + " (tolerance "
                + tol
                + ")");
      }
    }
  }

  private static double[] slice(double[] v, int from, int length) {
    double[] s = new double[length];
    System.arraycopy(v, from, s, 0, length);
    return s;
  }

  // ---------------------------------------------------------------- vectors and matrices

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void vectorAndMatrixCombinations(Device d) {
    Tensor u = f32(d, new float[] {1, 2, 3});
    Tensor w = f32(d, new float[] {4, 5, 6});
    Tensor dot = u.matmul(w);
    meta(dot, DType.FLOAT32, d);
    assertEquals(32.0, dot.item());

    Tensor m32 = f32(d, new float[] {1, 2, 3, 4, 5, 6}, 3, 2);
    Tensor mv = m32.matmul(f32(d, new float[] {1, -1}));
    meta(mv, DType.FLOAT32, d, 3);
    assertF32(mv, -1, -1, -1);

    Tensor vm = u.matmul(m32);
    meta(vm, DType.FLOAT32, d, 2);
    assertF32(vm, 22, 28);

    Tensor m23 = f32(d, new float[] {1, 2, 3, 4, 5, 6}, 2, 3);
    Tensor mm = m23.matmul(m32);
    meta(mm, DType.FLOAT32, d, 2, 2);
    assertF32(mm, 22, 28, 49, 64);
    assertF32(m32.matmul(m23), 9, 12, 15, 19, 26, 33, 29, 40, 51);

    Tensor one = f32(d, new float[] {3}, 1, 1).matmul(f32(d, new float[] {4}, 1, 1));
    meta(one, DType.FLOAT32, d, 1, 1);
    assertF32(one, 12);
    // Outer product via [n, 1] x [1, m].
    assertF32(u.unsqueeze(1).matmul(f32(d, new float[] {1, 10}, 1, 2)), 1, 10, 2, 20, 3, 30);
    // K = 0 gives zeros.
    Tensor empty = Tensor.zeros(Shape.of(2, 0), d).matmul(Tensor.zeros(Shape.of(0, 3), d));
    meta(empty, DType.FLOAT32, d, 2, 3);
    assertF32(empty, 0, 0, 0, 0, 0, 0);
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void oddSizesAgainstReference(Device d) {
    int[][] sizes = {{1, 1, 1}, {17, 33, 9}, {1, 64, 7}, {5, 1, 3}, {9, 17, 1}, {31, 2, 45}};
    int seed = 100;
    for (int[] s : sizes) {
      int m = s[0];
      int k = s[1];
      int n = s[2];
      float[] a = Close.uniform(seed++, m * k, -1, 1);
      float[] b = Close.uniform(seed++, k * n, -1, 1);
      Tensor c = f32(d, a, m, k).matmul(f32(d, b, k, n));
      meta(c, DType.FLOAT32, d, m, n);
      assertProduct(c, mm(widen(a), widen(b), m, k, n), mmAbs(widen(a), widen(b), m, k, n));
    }
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void large256AgainstFloat64TripleLoop(Device d) {
    int n = 256;
    float[] a = Close.uniform(7, n * n, -1, 1);
    float[] b = Close.uniform(8, n * n, -1, 1);
    double[] expected = mm(widen(a), widen(b), n, n, n);
    double[] scale = mmAbs(widen(a), widen(b), n, n, n);
    assertProduct(f32(d, a, n, n).matmul(f32(d, b, n, n)), expected, scale);
    // Through transposed views of the transposed data: no copy, same product.
    Tensor at = f32(d, a, n, n).t().contiguous().t();
    Tensor bt = f32(d, b, n, n).t().contiguous().t();
    assertProduct(at.matmul(bt), expected, scale);
  }

  /**
   * Products big enough to be split into bands of C over the threads: wide ones (bands of columns)
   * and tall ones (bands of rows), with each operand plain or a transposed view.
   */
  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void productsSplitIntoBandsAgainstFloat64(Device d) {
    int[][] shapes = {{96, 150, 300}, {300, 150, 96}};
    long seed = 40;
    for (int[] s : shapes) {
      int m = s[0];
      int k = s[1];
      int n = s[2];
      float[] a = Close.uniform(seed++, m * k, -1, 1);
      float[] b = Close.uniform(seed++, k * n, -1, 1);
      double[] expected = mm(widen(a), widen(b), m, k, n);
      double[] scale = mmAbs(widen(a), widen(b), m, k, n);
      Tensor plainA = f32(d, a, m, k);
      Tensor plainB = f32(d, b, k, n);
      Tensor viewA = plainA.t().contiguous().t();
      Tensor viewB = plainB.t().contiguous().t();
      for (Tensor x : new Tensor[] {plainA, viewA}) {
        for (Tensor y : new Tensor[] {plainB, viewB}) {
          assertProduct(x.matmul(y), expected, scale);
        }
      }
    }
  }

  /**
   * A product of more than 2^32 flops runs on OpenBLAS's own threads; its halves, each below that,
   * are split over the runtime's: both give the same rows.
   */
  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void aLargeProductMatchesItsHalves(Device d) {
    int n = 1300;
    Tensor a = f32(d, Close.uniform(50, n * n, -1, 1), n, n);
    Tensor b = f32(d, Close.uniform(51, n * n, -1, 1), n, n).t();
    float[] whole = a.matmul(b).toFloatArray();
    float[] top = a.slice(0, 0, n / 2).matmul(b).toFloatArray();
    float[] bottom = a.slice(0, n / 2, n).matmul(b).toFloatArray();
    for (int i = 0; i < whole.length; i++) {
      float half = i < top.length ? top[i] : bottom[i - top.length];
      assertTrue(
          Math.abs(whole[i] - half) <= 1e-4f * (1 + Math.abs(half)),
          "element " + i + ": whole " + whole[i] + ", half " + half);
    }
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void transposedOperands(Device d) {
    int m = 6;
    int k = 5;
    int n = 4;
    float[] aT = Close.uniform(11, k * m, -1, 1);
    float[] bT = Close.uniform(12, n * k, -1, 1);
    double[] a = transpose(widen(aT), k, m);
    double[] b = transpose(widen(bT), n, k);
    double[] expected = mm(a, b, m, k, n);
    double[] scale = mmAbs(a, b, m, k, n);
    Tensor ta = f32(d, aT, k, m).t();
    Tensor tb = f32(d, bT, n, k).t();
    Tensor ca = Tensor.of(toFloats(a), Shape.of(m, k), d);
    Tensor cb = Tensor.of(toFloats(b), Shape.of(k, n), d);
    assertProduct(ta.matmul(cb), expected, scale);
    assertProduct(ca.matmul(tb), expected, scale);
    assertProduct(ta.matmul(tb), expected, scale);
    // A strided slice that BLAS cannot take directly (every other column of a wider matrix).
    float[] wide = new float[m * 2 * k];
    for (int i = 0; i < m; i++) {
      for (int p = 0; p < k; p++) {
        wide[i * 2 * k + 2 * p] = (float) a[i * k + p];
        wide[i * 2 * k + 2 * p + 1] = 99;
      }
    }
    Tensor stepped = f32(d, wide, m, 2L * k).slice(1, 0, 2L * k, 2);
    assertProduct(stepped.matmul(cb), expected, scale);
    // Vector times a transposed matrix.
    Tensor v = f32(d, new float[] {1, 2, 3, 4, 5, 6});
    double[] vRef = new double[n];
    for (int j = 0; j < n; j++) {
      for (int i = 0; i < m; i++) {
        vRef[j] += (i + 1) * mm(a, b, m, k, n)[i * n + j];
      }
    }
    assertClose(v.matmul(ta.matmul(tb)), vRef, 1e-5, 1e-5);
  }

  private static float[] toFloats(double[] v) {
    float[] f = new float[v.length];
    for (int i = 0; i < v.length; i++) {
      f[i] = (float) v[i];
    }
    return f;
  }

  // ---------------------------------------------------------------- batches

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void batched(Device d) {
    int batch = 3;
    int m = 4;
    int k = 5;
    int n = 2;
    float[] a = Close.uniform(13, batch * m * k, -1, 1);
    float[] b = Close.uniform(14, batch * k * n, -1, 1);
    Tensor c = f32(d, a, batch, m, k).matmul(f32(d, b, batch, k, n));
    meta(c, DType.FLOAT32, d, batch, m, n);
    double[] expected = new double[batch * m * n];
    double[] scale = new double[batch * m * n];
    for (int i = 0; i < batch; i++) {
      double[] ai = slice(widen(a), i * m * k, m * k);
      double[] bi = slice(widen(b), i * k * n, k * n);
      System.arraycopy(mm(ai, bi, m, k, n), 0, expected, i * m * n, m * n);
      System.arraycopy(mmAbs(ai, bi, m, k, n), 0, scale, i * m * n, m * n);
    }
    assertProduct(c, expected, scale);
    // The same with the batch in a non-leading position of the memory.
    Tensor ap = f32(d, a, batch, m, k).permute(1, 0, 2).contiguous().permute(1, 0, 2);
    assertProduct(ap.matmul(f32(d, b, batch, k, n)), expected, scale);
    // Batched matrices times their transposes.
    Tensor x = f32(d, a, batch, m, k);
    Tensor g = x.matmul(x.transpose(1, 2));
    shape(g, batch, m, m);
    double[] gv = g.toDoubleArray();
    for (int i = 0; i < batch; i++) {
      double[] ai = slice(widen(a), i * m * k, m * k);
      double[] gram = mm(ai, transpose(ai, m, k), m, k, m);
      assertClose(slice(gv, i * m * m, m * m), gram, 1e-5, 1e-5);
    }
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void broadcastBatches(Device d) {
    int m = 3;
    int k = 4;
    int n = 2;
    float[] a3 = Close.uniform(15, 2 * m * k, -1, 1);
    float[] b2 = Close.uniform(16, k * n, -1, 1);
    // [2, m, k] x [k, n] -> [2, m, n]
    Tensor c1 = f32(d, a3, 2, m, k).matmul(f32(d, b2, k, n));
    meta(c1, DType.FLOAT32, d, 2, m, n);
    double[] e1 = new double[2 * m * n];
    for (int i = 0; i < 2; i++) {
      System.arraycopy(
          mm(slice(widen(a3), i * m * k, m * k), widen(b2), m, k, n), 0, e1, i * m * n, m * n);
    }
    assertClose(c1, e1, 1e-5, 1e-5);

    // [m, k] x [2, k, n] -> [2, m, n]
    float[] a2 = Close.uniform(17, m * k, -1, 1);
    float[] b3 = Close.uniform(18, 2 * k * n, -1, 1);
    Tensor c2 = f32(d, a2, m, k).matmul(f32(d, b3, 2, k, n));
    meta(c2, DType.FLOAT32, d, 2, m, n);
    double[] e2 = new double[2 * m * n];
    for (int i = 0; i < 2; i++) {
      System.arraycopy(
          mm(widen(a2), slice(widen(b3), i * k * n, k * n), m, k, n), 0, e2, i * m * n, m * n);
    }
    assertClose(c2, e2, 1e-5, 1e-5);

    // [2, 1, m, k] x [3, k, n] -> [2, 3, m, n]
    float[] a4 = Close.uniform(19, 2 * m * k, -1, 1);
    float[] b33 = Close.uniform(20, 3 * k * n, -1, 1);
    Tensor c3 = f32(d, a4, 2, 1, m, k).matmul(f32(d, b33, 3, k, n));
    meta(c3, DType.FLOAT32, d, 2, 3, m, n);
    double[] e3 = new double[2 * 3 * m * n];
    for (int i = 0; i < 2; i++) {
      for (int j = 0; j < 3; j++) {
        double[] r =
            mm(slice(widen(a4), i * m * k, m * k), slice(widen(b33), j * k * n, k * n), m, k, n);
        System.arraycopy(r, 0, e3, (i * 3 + j) * m * n, m * n);
      }
    }
    assertClose(c3, e3, 1e-5, 1e-5);

    // [2, 3, m, k] x [3, k, n] -> [2, 3, m, n]
    float[] a5 = Close.uniform(21, 6 * m * k, -1, 1);
    Tensor c4 = f32(d, a5, 2, 3, m, k).matmul(f32(d, b33, 3, k, n));
    meta(c4, DType.FLOAT32, d, 2, 3, m, n);
    double[] e4 = new double[6 * m * n];
    for (int i = 0; i < 2; i++) {
      for (int j = 0; j < 3; j++) {
        double[] r =
            mm(
                slice(widen(a5), (i * 3 + j) * m * k, m * k),
                slice(widen(b33), j * k * n, k * n),
                m,
                k,
                n);
        System.arraycopy(r, 0, e4, (i * 3 + j) * m * n, m * n);
      }
    }
    assertClose(c4, e4, 1e-5, 1e-5);

    // A vector against a batch: [k] x [2, k, n] -> [2, n], and [2, m, k] x [k] -> [2, m].
    float[] v = {1, -1, 2, 0.5f};
    Tensor c5 = f32(d, v).matmul(f32(d, b3, 2, k, n));
    meta(c5, DType.FLOAT32, d, 2, n);
    double[] e5 = new double[2 * n];
    for (int i = 0; i < 2; i++) {
      System.arraycopy(mm(widen(v), slice(widen(b3), i * k * n, k * n), 1, k, n), 0, e5, i * n, n);
    }
    assertClose(c5, e5, 1e-5, 1e-5);
    Tensor c6 = f32(d, a3, 2, m, k).matmul(f32(d, v));
    meta(c6, DType.FLOAT32, d, 2, m);
    assertClose(c6, mm(widen(a3), widen(v), 2 * m, k, 1), 1e-5, 1e-5);
  }

  // ---------------------------------------------------------------- dtypes

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void float64AndInt64(Device d) {
    double[] a = Close.uniformDoubles(23, 7 * 5, -1, 1);
    double[] b = Close.uniformDoubles(24, 5 * 3, -1, 1);
    Tensor c = f64(d, a, 7, 5).matmul(f64(d, b, 5, 3));
    meta(c, DType.FLOAT64, d, 7, 3);
    assertClose(c, mm(a, b, 7, 5, 3), 1e-13, 1e-14);
    assertClose(
        f64(d, transpose(a, 7, 5), 5, 7).t().matmul(f64(d, b, 5, 3)),
        mm(a, b, 7, 5, 3),
        1e-13,
        1e-14);

    long big = 1L << 40;
    Tensor li = i64(d, new long[] {1, 2, 3, 4, 5, 6}, 2, 3);
    Tensor lj = i64(d, new long[] {big, 1, -1, 2, 0, big}, 3, 2);
    Tensor lc = li.matmul(lj);
    meta(lc, DType.INT64, d, 2, 2);
    assertI64(lc, big - 2, 5 + 3 * big, 4 * big - 5, 14 + 6 * big);
    assertI64(li.t().matmul(i64(d, new long[] {1, 1})), 5, 7, 9);
    assertI64(i64(d, new long[] {1, 2, 3}).matmul(i64(d, new long[] {4, 5, 6})), 32);
    // Batched int64.
    Tensor lb = Tensor.arange(0, 8, d).reshape(2, 2, 2);
    assertI64(lb.matmul(lb), 2, 3, 6, 11, 46, 55, 66, 79);

    // Mixed dtypes promote.
    Tensor mixed = li.matmul(f32(d, new float[] {0.5f, 0.5f, 0.5f}));
    meta(mixed, DType.FLOAT32, d, 2);
    assertF32(mixed, 3, 7.5);
    Tensor mixed64 = f32(d, new float[] {1, 2}).matmul(f64(d, new double[] {0.1, 0.2}));
    meta(mixed64, DType.FLOAT64, d);
    assertF64(mixed64.reshape(1), 0.1 + 2 * 0.2);
  }

  // ---------------------------------------------------------------- softmax

  /** Softmax of a [2, 3, 4] array along {@code dim}, in double. */
  private static double[] softmaxRef(float[] v, int dim, boolean log) {
    int[] sizes = {2, 3, 4};
    int[] strides = {12, 4, 1};
    double[] out = new double[24];
    for (int flat = 0; flat < 24; flat++) {
      int[] idx = {flat / 12, flat / 4 % 3, flat % 4};
      double max = Double.NEGATIVE_INFINITY;
      for (int j = 0; j < sizes[dim]; j++) {
        max = Math.max(max, v[flat + (j - idx[dim]) * strides[dim]]);
      }
      double sum = 0;
      for (int j = 0; j < sizes[dim]; j++) {
        sum += Math.exp(v[flat + (j - idx[dim]) * strides[dim]] - max);
      }
      out[flat] = log ? v[flat] - max - Math.log(sum) : Math.exp(v[flat] - max) / sum;
    }
    return out;
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void softmaxAndLogSoftmaxOverEachDimension(Device d) {
    float[] v = Close.uniform(25, 24, -3, 3);
    Tensor x = f32(d, v, 2, 3, 4);
    int[] sizes = {2, 3, 4};
    for (int dim = 0; dim < 3; dim++) {
      Tensor s = x.softmax(dim);
      meta(s, DType.FLOAT32, d, 2, 3, 4);
      assertClose(s, softmaxRef(v, dim, false), 1e-6, 1e-7);
      assertClose(x.softmax(dim - 3), softmaxRef(v, dim, false), 1e-6, 1e-7);
      Tensor ls = x.logSoftmax(dim);
      meta(ls, DType.FLOAT32, d, 2, 3, 4);
      assertClose(ls, softmaxRef(v, dim, true), 1e-6, 1e-6);
      // Sums along the dimension are 1.
      double[] sums = s.sum(dim).toDoubleArray();
      assertEquals(24 / sizes[dim], sums.length);
      for (double t : sums) {
        assertEquals(1.0, t, 1e-6);
      }
      double[] expSums = ls.exp().sum(dim).toDoubleArray();
      for (double t : expSums) {
        assertEquals(1.0, t, 1e-6);
      }
    }
    // A non-contiguous input: softmax over dim 1 of the transpose is softmax over dim 1 of x,
    // transposed.
    Tensor xt = x.transpose(0, 2);
    assertClose(xt.softmax(1).transpose(0, 2).contiguous(), softmaxRef(v, 1, false), 1e-6, 1e-7);
    assertClose(xt.softmax(0).transpose(0, 2).contiguous(), softmaxRef(v, 2, false), 1e-6, 1e-7);
    // float64.
    Tensor x64 = x.to(DType.FLOAT64);
    meta(x64.softmax(2), DType.FLOAT64, d, 2, 3, 4);
    assertClose(x64.softmax(2), softmaxRef(v, 2, false), 1e-14, 1e-15);
    assertClose(x64.logSoftmax(0), softmaxRef(v, 0, true), 1e-14, 1e-14);
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void softmaxIsStableForLargeInputs(Device d) {
    double lo = 1 / (1 + Math.E);
    double hi = Math.E / (1 + Math.E);
    Tensor x = f32(d, new float[] {1000, 1001});
    assertF32(x.softmax(0), lo, hi);
    assertF32(x.logSoftmax(0), Math.log(lo), Math.log(hi));
    assertF32(f32(d, new float[] {-1000, -1001}).softmax(0), hi, lo);
    assertF64(f64(d, new double[] {1000, 1001}).softmax(0), lo, hi);
    assertF64(f64(d, new double[] {1e300, 1e300}).logSoftmax(0), -Math.log(2), -Math.log(2));
    // Rows of a batch, each with huge values.
    Tensor b = f32(d, new float[] {1000, 1001, 0, 1, -500, -499}, 3, 2);
    assertF32(b.softmax(1), lo, hi, lo, hi, lo, hi);
    // -inf gets probability 0.
    assertF32(f32(d, new float[] {0, Float.NEGATIVE_INFINITY}).softmax(0), 1, 0);
    assertF32(
        f32(d, new float[] {0, Float.NEGATIVE_INFINITY}).logSoftmax(0),
        0,
        Double.NEGATIVE_INFINITY);
    for (double p : f32(d, new float[] {88, 89, 90}).softmax(0).toDoubleArray()) {
      assertTrue(Double.isFinite(p));
    }
    // A 0-dim tensor: softmax 1, log-softmax 0.
    assertEquals(1.0, Tensor.scalar(5.0, d).softmax(0).item());
    assertEquals(0.0, Tensor.scalar(5.0, d).logSoftmax(0).item());
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void linearIsInputTimesWeightTransposedPlusBias(Device d) {
    Tensor x = Tensor.of(new float[] {1, 2, 3, 4, 5, 6}, 2, 3).to(d);
    Tensor w = Tensor.of(new float[] {1, 0, -1, 2, 1, 0}, 2, 3).to(d);
    Tensor b = Tensor.of(new float[] {10, 20}).to(d);
    org.junit.jupiter.api.Assertions.assertArrayEquals(
        new float[] {8, 24, 8, 33}, Tensor.linear(x, w, b).toFloatArray());
    org.junit.jupiter.api.Assertions.assertArrayEquals(
        new float[] {-2, 4, -2, 13}, Tensor.linear(x, w, null).toFloatArray());
    IllegalArgumentException e =
        org.junit.jupiter.api.Assertions.assertThrows(
            IllegalArgumentException.class, () -> Tensor.linear(x, w.t(), b));
    org.junit.jupiter.api.Assertions.assertTrue(
        e.getMessage().contains("linear: input [2, 3], weight [3, 2]"), e.getMessage());
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void linearPromotesMixedFloatingDtypesAsMatmulDoes(Device d) {
    // 0.1 is not a float32: a float64 input must not be rounded to the float32 weight's dtype.
    Tensor x = Tensor.of(new double[] {0.1, 0.2, 0.3}, 1, 3).to(d).requiresGrad(true);
    Tensor w = Tensor.of(new float[] {1, 2, 3}, 1, 3).to(d).requiresGrad(true);
    Tensor b = Tensor.of(new float[] {0.5f}).to(d).requiresGrad(true);
    Tensor y = Tensor.linear(x, w, b);
    meta(y, DType.FLOAT64, d, 1, 1);
    assertF64(y.reshape(1), 0.1 + 0.4 + 0.9 + 0.5);
    y.sum().backward();
    assertEquals(DType.FLOAT64, x.grad().dtype(), "each gradient in its operand's dtype");
    assertEquals(DType.FLOAT32, w.grad().dtype());
    assertEquals(DType.FLOAT32, b.grad().dtype());
    assertF64(x.grad().reshape(3), 1, 2, 3);
    org.junit.jupiter.api.Assertions.assertArrayEquals(
        new float[] {0.1f, 0.2f, 0.3f}, w.grad().toFloatArray());
  }
}
