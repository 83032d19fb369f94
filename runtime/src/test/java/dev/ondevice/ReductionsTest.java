package dev.ondevice;

import static dev.ondevice.Close.assertBool;
import static dev.ondevice.Close.assertClose;
import static dev.ondevice.Close.assertF32;
import static dev.ondevice.Close.assertF64;
import static dev.ondevice.Close.assertI64;
import static dev.ondevice.Close.f32;
import static dev.ondevice.Close.f64;
import static dev.ondevice.Close.i64;
import static dev.ondevice.Close.meta;
import static dev.ondevice.Close.shape;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Reductions: over all elements, one or several dimensions, non-contiguous and large inputs. */
class ReductionsTest {
  private static final double NAN = Double.NaN;

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void overAllElements(Device d) {
    Tensor x = f32(d, new float[] {1, 5, 3, 4, 2, 6}, 2, 3);
    Tensor s = x.sum();
    meta(s, DType.FLOAT32, d);
    assertEquals(21.0, s.item());
    assertEquals(3.5, x.mean().item());
    assertEquals(720.0, x.prod().item());
    assertEquals(6.0, x.max().item());
    assertEquals(1.0, x.min().item());
    Tensor am = x.argmax();
    meta(am, DType.INT64, d);
    assertEquals(5L, am.itemAsLong());
    assertEquals(0L, x.argmin().itemAsLong());
    meta(x.max(), DType.FLOAT32, d);

    Tensor y = f64(d, new double[] {0.1, 0.2, 0.3});
    meta(y.sum(), DType.FLOAT64, d);
    assertEquals(0.1 + 0.2 + 0.3, y.sum().item(), 1e-16);
    assertEquals(0.1 * 0.2 * 0.3, y.prod().item(), 1e-17);
    assertEquals((0.1 + 0.2 + 0.3) / 3, y.mean().item(), 1e-16);

    // A 0-dim tensor reduces to itself.
    Tensor z = Tensor.scalar(4.0, d);
    assertEquals(4.0, z.sum().item());
    assertEquals(4.0, z.max().item());
    assertEquals(0L, z.argmax().itemAsLong());
    assertEquals(4.0, z.sum(0).item());
    // Empty tensors: the sum is 0, the product 1.
    Tensor e = Tensor.zeros(Shape.of(0), d);
    assertEquals(0.0, e.sum().item());
    assertEquals(1.0, e.prod().item());
    assertTrue(Double.isNaN(e.mean().item()));
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void overOneDimension(Device d) {
    Tensor x = f32(d, new float[] {1, 5, 3, 4, 2, 6}, 2, 3);
    Tensor s0 = x.sum(0);
    meta(s0, DType.FLOAT32, d, 3);
    assertF32(s0, 5, 7, 9);
    assertF32(x.sum(1), 9, 12);
    assertF32(x.sum(-1), 9, 12);
    Tensor k0 = x.sum(0, true);
    shape(k0, 1, 3);
    assertF32(k0, 5, 7, 9);
    shape(x.sum(-1, true), 2, 1);
    shape(x.sum(1, false), 2);
    assertF32(x.mean(0), 2.5, 3.5, 4.5);
    assertF32(x.mean(1), 3, 4);
    shape(x.mean(1, true), 2, 1);
    assertF32(x.mean(1, true), 3, 4);

    ValuesAndIndices mx = x.max(1, false);
    shape(mx.values(), 2);
    assertF32(mx.values(), 5, 6);
    assertI64(mx.indices(), 1, 2);
    ValuesAndIndices mk = x.max(0, true);
    shape(mk.values(), 1, 3);
    shape(mk.indices(), 1, 3);
    assertF32(mk.values(), 4, 5, 6);
    assertI64(mk.indices(), 1, 0, 1);
    ValuesAndIndices mn = x.min(1, false);
    assertF32(mn.values(), 1, 2);
    assertI64(mn.indices(), 0, 1);
    ValuesAndIndices mn0 = x.min(-2, true);
    assertF32(mn0.values(), 1, 2, 3);
    assertI64(mn0.indices(), 0, 1, 0);

    Tensor a1 = x.argmax(1, false);
    meta(a1, DType.INT64, d, 2);
    assertI64(a1, 1, 2);
    Tensor a0 = x.argmin(0, true);
    meta(a0, DType.INT64, d, 1, 3);
    assertI64(a0, 0, 1, 0);
    assertI64(x.argmax(0, false), 1, 0, 1);
    assertI64(x.argmin(-1, false), 0, 1);
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void tiesGoToTheFirstPosition(Device d) {
    Tensor x = f32(d, new float[] {2, 7, 7, 1, 1, 7});
    assertEquals(1L, x.argmax().itemAsLong());
    assertEquals(3L, x.argmin().itemAsLong());
    Tensor m = f32(d, new float[] {3, 3, 1, 1}, 2, 2);
    assertI64(m.argmax(1, false), 0, 0);
    assertI64(m.max(1, false).indices(), 0, 0);
    assertI64(m.min(0, false).indices(), 1, 1);
  }

  /** Reference sum of a [2, 3, 4] array over the dimensions flagged in {@code reduce}. */
  private static double[] sumRef(float[] v, boolean[] reduce) {
    int[] sizes = {2, 3, 4};
    int[] outSizes = new int[3];
    for (int i = 0; i < 3; i++) {
      outSizes[i] = reduce[i] ? 1 : sizes[i];
    }
    double[] out = new double[outSizes[0] * outSizes[1] * outSizes[2]];
    for (int i = 0; i < 2; i++) {
      for (int j = 0; j < 3; j++) {
        for (int k = 0; k < 4; k++) {
          int oi = reduce[0] ? 0 : i;
          int oj = reduce[1] ? 0 : j;
          int ok = reduce[2] ? 0 : k;
          out[(oi * outSizes[1] + oj) * outSizes[2] + ok] += v[(i * 3 + j) * 4 + k];
        }
      }
    }
    return out;
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void overSeveralDimensions(Device d) {
    float[] v = Close.uniform(21, 24, -1, 1);
    Tensor x = f32(d, v, 2, 3, 4);
    double[] s02 = sumRef(v, new boolean[] {true, false, true});
    Tensor a = x.sum(new int[] {0, 2}, false);
    meta(a, DType.FLOAT32, d, 3);
    assertF32(a, s02);
    Tensor b = x.sum(new int[] {2, 0}, true);
    shape(b, 1, 3, 1);
    assertF32(b, s02);
    assertF32(x.sum(new int[] {-1, 0}, false), s02);
    double[] s12 = sumRef(v, new boolean[] {false, true, true});
    double[] mean12 = s12.clone();
    for (int i = 0; i < mean12.length; i++) {
      mean12[i] /= 12;
    }
    Tensor m = x.mean(new int[] {1, 2}, false);
    shape(m, 2);
    assertF32(m, mean12);
    shape(x.mean(new int[] {1, 2}, true), 2, 1, 1);
    double[] all = sumRef(v, new boolean[] {true, true, true});
    Tensor s = x.sum(new int[] {0, 1, 2}, false);
    shape(s);
    assertF32(s, all);
    shape(x.sum(new int[] {0, 1, 2}, true), 1, 1, 1);
    assertF32(x.sum(new int[] {1}, false), sumRef(v, new boolean[] {false, true, false}));
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void onNonContiguousInputs(Device d) {
    // m is [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]]; mt is its transpose.
    Tensor m = Tensor.arange(0, 12, 1, DType.FLOAT32, d).reshape(3, 4);
    Tensor mt = m.t();
    assertF32(mt.sum(0), 6, 22, 38);
    assertF32(mt.sum(1), 12, 15, 18, 21);
    assertF32(mt.sum(1, true), 12, 15, 18, 21);
    shape(mt.sum(1, true), 4, 1);
    assertF32(mt.mean(0), 1.5, 5.5, 9.5);
    assertF32(mt.max(0, false).values(), 3, 7, 11);
    assertI64(mt.max(0, false).indices(), 3, 3, 3);
    assertI64(mt.argmin(1, false), 0, 0, 0, 0);
    assertEquals(11L, mt.argmax().itemAsLong(), "flat position in the transposed order");
    assertEquals(66.0, mt.sum().item());
    assertEquals(0.0, mt.prod().item());
    // A strided slice: columns 1 and 3.
    Tensor cols = m.slice(1, 1, 4, 2);
    assertF32(cols.sum(0), 15, 21);
    assertF32(cols.sum(1), 4, 12, 20);
    assertF32(cols.prod(), 1.0 * 3 * 5 * 7 * 9 * 11);

    // A permuted 3-d tensor against loops.
    float[] v = Close.uniform(22, 24, -1, 1);
    Tensor p = f32(d, v, 2, 3, 4).permute(2, 0, 1);
    // p[k][i][j] = v[i][j][k]; reduce over p's dims 0 and 2 (k and j): a vector over i.
    double[] expected = new double[2];
    double[] maxOverK = new double[6];
    long[] argOverK = new long[6];
    for (int i = 0; i < 2; i++) {
      for (int j = 0; j < 3; j++) {
        double best = Double.NEGATIVE_INFINITY;
        for (int k = 0; k < 4; k++) {
          double val = v[(i * 3 + j) * 4 + k];
          expected[i] += val;
          if (val > best) {
            best = val;
            argOverK[i * 3 + j] = k;
          }
        }
        maxOverK[i * 3 + j] = best;
      }
    }
    assertF32(p.sum(new int[] {0, 2}, false), expected);
    assertF32(p.max(0, false).values(), maxOverK);
    assertI64(p.argmax(0, false), argOverK);
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void int64AndBool(Device d) {
    long big = 1L << 40;
    Tensor x = i64(d, new long[] {big, 3, -5, 2 * big});
    Tensor s = x.sum();
    meta(s, DType.INT64, d);
    assertEquals(3 * big - 2, s.itemAsLong());
    assertI64(i64(d, new long[] {1, 2, 3, 4, 5, 6}, 2, 3).sum(0), 5, 7, 9);
    assertI64(i64(d, new long[] {1, 2, 3, 4, 5, 6}, 2, 3).sum(1, true), 6, 15);
    assertI64(i64(d, new long[] {2, 3, 4}).prod(), 24);
    long huge = 1L << 53;
    Tensor h = i64(d, new long[] {huge, huge + 1, -huge - 1});
    meta(h.max(), DType.INT64, d);
    assertEquals(huge + 1, h.max().itemAsLong());
    assertEquals(-huge - 1, h.min().itemAsLong());
    assertEquals(1L, h.argmax().itemAsLong());
    ValuesAndIndices mv = h.max(0, false);
    meta(mv.values(), DType.INT64, d);
    assertEquals(huge + 1, mv.values().itemAsLong());
    assertEquals(huge, h.sum().itemAsLong());

    Tensor b = Tensor.of(true, false, true, true).to(d);
    Tensor bs = b.sum();
    meta(bs, DType.INT64, d);
    assertEquals(3L, bs.itemAsLong());
    Tensor bm = Tensor.of(new boolean[] {true, false, true, true}, 2, 2).to(d);
    assertI64(bm.sum(0), 2, 1);
    assertI64(bm.sum(1), 1, 2);
    meta(b.max(), DType.BOOL, d);
    assertBool(b.max().reshape(1), true);
    assertBool(b.min().reshape(1), false);
    assertEquals(1L, b.argmin().itemAsLong());
    // Counting with a comparison.
    assertEquals(3L, f32(d, new float[] {1, 5, 3, 7}).gt(2.5).sum().itemAsLong());
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void varianceAndStandardDeviation(Device d) {
    Tensor x = f32(d, new float[] {1, 2, 3, 4, 2, 4, 6, 8}, 2, 4);
    Tensor vu = x.var(new int[] {1}, true, false);
    meta(vu, DType.FLOAT32, d, 2);
    assertF32(vu, 5.0 / 3, 20.0 / 3);
    assertF32(x.var(new int[] {1}, false, false), 1.25, 5);
    assertF32(x.std(new int[] {1}, true, false), Math.sqrt(5.0 / 3), Math.sqrt(20.0 / 3));
    assertF32(x.std(new int[] {1}, false, false), Math.sqrt(1.25), Math.sqrt(5));
    shape(x.var(new int[] {-1}, true, true), 2, 1);
    assertF32(x.var(new int[] {0}, true, false), 0.5, 2, 4.5, 8);

    double[] v = {1, 2, 3, 4, 2, 4, 6, 8};
    double mean = 0;
    for (double a : v) {
      mean += a / 8;
    }
    double ss = 0;
    for (double a : v) {
      ss += (a - mean) * (a - mean);
    }
    Tensor all = x.var(new int[] {0, 1}, true, false);
    shape(all);
    assertF32(all, ss / 7);
    assertF32(x.std(new int[] {0, 1}, false, true), Math.sqrt(ss / 8));
    shape(x.std(new int[] {0, 1}, false, true), 1, 1);

    Tensor y = f64(d, v, 2, 4);
    assertF64(y.var(new int[] {0, 1}, true, false), ss / 7);
    assertF64(y.std(new int[] {1}, false, false), Math.sqrt(1.25), Math.sqrt(5));
    // Non-contiguous input.
    assertF32(x.t().var(new int[] {1}, true, false), 0.5, 2, 4.5, 8);
    // One element with Bessel's correction is 0/0.
    assertTrue(Double.isNaN(f32(d, new float[] {3}).var(new int[] {0}, true, false).item()));
    assertEquals(0.0, f32(d, new float[] {3}).var(new int[] {0}, false, false).item());
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void nanPropagates(Device d) {
    Tensor x = f32(d, new float[] {1, Float.NaN, 3});
    assertTrue(Double.isNaN(x.max().item()));
    assertTrue(Double.isNaN(x.min().item()));
    assertTrue(Double.isNaN(x.sum().item()));
    assertEquals(1L, x.argmax().itemAsLong());
    assertEquals(1L, x.argmin().itemAsLong());
    Tensor m = f32(d, new float[] {1, Float.NaN, 3, 2}, 2, 2);
    ValuesAndIndices mx = m.max(1, false);
    assertF32(mx.values(), NAN, 3);
    assertI64(mx.indices(), 1, 0);
    assertF32(m.min(0, false).values(), 1, NAN);
    assertF64(f64(d, new double[] {NAN, 5}).max().reshape(1), NAN);
  }

  // ---------------------------------------------------------------- large inputs (parallel paths)

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void largeAgainstFloat64References(Device d) {
    int n = 1_000_000;
    float[] v = Close.uniform(31, n, 0, 1);
    int maxAt = 654_321;
    int minAt = 123_457;
    v[maxAt] = 5;
    v[minAt] = -5;
    double sum = 0;
    for (float f : v) {
      sum += f;
    }
    Tensor x = f32(d, v);
    assertEquals(sum, x.sum().item(), 1e-6 * Math.abs(sum));
    assertEquals(sum / n, x.mean().item(), 1e-6 * Math.abs(sum / n));
    assertEquals(5.0, x.max().item());
    assertEquals(-5.0, x.min().item());
    assertEquals(maxAt, x.argmax().itemAsLong());
    assertEquals(minAt, x.argmin().itemAsLong());

    // Ties in different chunks: the first position wins.
    float[] ties = new float[n];
    ties[400_000] = 2;
    ties[900_000] = 2;
    ties[999_999] = 2;
    ties[450_000] = -1;
    ties[10] = -1;
    Tensor t = f32(d, ties);
    assertEquals(400_000L, t.argmax().itemAsLong());
    assertEquals(10L, t.argmin().itemAsLong());
    ties[700_000] = Float.NaN;
    Tensor withNan = f32(d, ties);
    assertTrue(Double.isNaN(withNan.max().item()));
    assertEquals(700_000L, withNan.argmax().itemAsLong());
    assertEquals(700_000L, withNan.argmin().itemAsLong());

    // Product in float64 of values close to 1.
    double[] p = Close.uniformDoubles(32, n, 1 - 1e-5, 1 + 1e-5);
    double prod = 1;
    for (double a : p) {
      prod *= a;
    }
    assertEquals(prod, f64(d, p).prod().item(), 1e-10 * prod);

    // int64 sum of 0..n-1.
    assertEquals((long) n * (n - 1) / 2, Tensor.arange(0, n, d).sum().itemAsLong());
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void largeOverOneDimension(Device d) {
    int rows = 4;
    int cols = 250_000;
    float[] v = Close.uniform(33, rows * cols, -1, 1);
    double[] rowSums = new double[rows];
    double[] colSums = new double[cols];
    double[] rowMax = new double[rows];
    long[] rowArg = new long[rows];
    for (int i = 0; i < rows; i++) {
      rowMax[i] = Double.NEGATIVE_INFINITY;
      for (int j = 0; j < cols; j++) {
        float f = v[i * cols + j];
        rowSums[i] += f;
        colSums[j] += f;
        if (f > rowMax[i]) {
          rowMax[i] = f;
          rowArg[i] = j;
        }
      }
    }
    Tensor x = f32(d, v, rows, cols);
    assertClose(x.sum(1), rowSums, 1e-5, 1e-3);
    assertClose(x.sum(0), colSums, 1e-6, 1e-6);
    // The same on the transpose (strided reads).
    Tensor xt = f32(d, v, rows, cols).t();
    assertClose(xt.sum(0), rowSums, 1e-5, 1e-3);
    assertClose(xt.sum(1), colSums, 1e-6, 1e-6);
    ValuesAndIndices mx = x.max(1, false);
    assertF32(mx.values(), rowMax);
    assertI64(mx.indices(), rowArg);
    assertI64(xt.argmax(0, false), rowArg);
    // One row of a million.
    Tensor one = f32(d, v, 1, (long) rows * cols);
    double total = rowSums[0] + rowSums[1] + rowSums[2] + rowSums[3];
    assertClose(one.sum(1, true), new double[] {total}, 1e-5, 1e-3);
    shape(one.sum(1, true), 1, 1);
    assertClose(
        one.mean(new int[] {0, 1}, false), new double[] {total / (rows * cols)}, 1e-5, 1e-8);

    // A square transposed matrix reduced both ways.
    int k = 1000;
    float[] w = Close.uniform(34, k * k, 0, 1);
    double[] colMean = new double[k];
    for (int i = 0; i < k; i++) {
      for (int j = 0; j < k; j++) {
        colMean[j] += w[i * k + j] / (double) k;
      }
    }
    Tensor sq = f32(d, w, k, k).t();
    assertClose(sq.mean(1), colMean, 1e-5, 1e-7);
    assertClose(sq.sum(0).sum(), new double[] {sum(colMean) * k}, 1e-5, 1e-3);
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void largeNonContiguousRegions(Device d) {
    // A transposed square: the reduced region has two dimensions that cannot be merged.
    int k = 1000;
    float[] w = Close.uniform(35, k * k, -1, 1);
    int maxI = 321;
    int maxJ = 987;
    w[maxI * k + maxJ] = 3;
    w[5 * k + 7] = -3;
    double total = 0;
    for (float f : w) {
      total += f;
    }
    Tensor sq = f32(d, w, k, k).t();
    assertClose(sq.sum(), new double[] {total}, 1e-5, 1e-3);
    assertClose(sq.sum(new int[] {0, 1}, true), new double[] {total}, 1e-5, 1e-3);
    assertEquals(3.0, sq.max().item());
    assertEquals(-3.0, sq.min().item());
    // Flat positions count in the transposed order: sq[j][i] = w[i][j].
    assertEquals((long) maxJ * k + maxI, sq.argmax().itemAsLong());
    assertEquals(7L * k + 5, sq.argmin().itemAsLong());

    // A permuted 3-d tensor reduced over two of its dimensions, leaving two outputs.
    int a = 2;
    int b = 500;
    int c = 1000;
    float[] v = Close.uniform(36, a * b * c, 0, 1);
    double[] perA = new double[a];
    for (int i = 0; i < a; i++) {
      for (int j = 0; j < b * c; j++) {
        perA[i] += v[i * b * c + j];
      }
    }
    // p[z][x][y] = v[x][y][z], shape [c, a, b]; reducing dims 0 and 2 leaves x.
    Tensor p = f32(d, v, a, b, c).permute(2, 0, 1);
    assertClose(p.sum(new int[] {0, 2}, false), perA, 1e-5, 1e-3);
    assertClose(
        p.mean(new int[] {2, 0}, false),
        new double[] {perA[0] / (b * c), perA[1] / (b * c)},
        1e-5,
        1e-8);
  }

  private static double sum(double[] v) {
    double s = 0;
    for (double x : v) {
      s += x;
    }
    return s;
  }

  /**
   * Sums and means over the rows of matrices wide enough for the column-block path (several blocks
   * of 1,024 columns, split over threads), contiguous and as a slice of a wider matrix, against
   * sums in double of the same float32 values in the same order.
   */
  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void columnSumsOfWideMatrices(Device d) {
    int rows = 300;
    int wide = 2600;
    float[] values = new float[rows * wide];
    java.util.Random r = new java.util.Random(11);
    for (int i = 0; i < values.length; i++) {
      values[i] = (float) (r.nextGaussian() * 3);
    }
    Tensor x = f32(d, values, rows, wide);
    for (int columns : new int[] {wide, 2100}) {
      Tensor part = columns == wide ? x : x.slice(1, 0, columns);
      float[] sums = new float[columns];
      float[] means = new float[columns];
      for (int j = 0; j < columns; j++) {
        double acc = 0;
        for (int i = 0; i < rows; i++) {
          acc += values[i * wide + j];
        }
        sums[j] = (float) acc;
        means[j] = (float) (acc / rows);
      }
      Tensor s = part.sum(0);
      meta(s, DType.FLOAT32, d, columns);
      assertTrue(
          java.util.Arrays.equals(sums, s.toFloatArray()), "sum(0) over " + columns + " columns");
      assertTrue(
          java.util.Arrays.equals(means, part.mean(0).toFloatArray()),
          "mean(0) over " + columns + " columns");
      assertTrue(
          java.util.Arrays.equals(sums, part.sum(0, true).reshape(columns).toFloatArray()),
          "keepdim");
    }
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void pytorchShortFormsOfTheReductions(Device d) {
    Tensor x = f64(d, new double[] {1, 2, 3, 5}, 2, 2);
    // var(): mean 2.75, squared deviations 3.0625 + 0.5625 + 0.0625 + 5.0625 = 8.75, over n - 1 = 3
    assertEquals(8.75 / 3, x.var().item(), 1e-15);
    assertEquals(Math.sqrt(8.75 / 3), x.std().item(), 1e-15);
    meta(x.var(), DType.FLOAT64, d);
    assertEquals(0, x.var().dim());
    // over dim 0: columns [1, 3] and [2, 5]
    assertF64(x.var(0), 2.0, 4.5);
    assertF64(x.std(0), Math.sqrt(2.0), Math.sqrt(4.5));
    assertI64(x.argmax(1), 1, 1);
    assertI64(x.argmin(0), 0, 0);
    Tensor scalar = Tensor.scalar(3.0, d);
    assertEquals(0L, scalar.argmax(0).itemAsLong(), "a 0-dim tensor's argmax is 0, as in PyTorch");
    assertEquals(0L, scalar.argmin(-1).itemAsLong());
    assertEquals(d, scalar.argmax(0).device());
    assertF64(x.max(1).values(), 2, 5);
    assertI64(x.min(0).indices(), 0, 0);
    assertF64(Tensor.cat(java.util.List.of(x, x)).sum(1), 3, 8, 3, 8);
    assertEquals(Shape.of(2, 2, 2), Tensor.stack(java.util.List.of(x, x)).shape());
    String printed = x.max(1).toString();
    assertTrue(printed.startsWith("ValuesAndIndices(\nvalues=tensor([2., 5.]"), printed);
    assertTrue(printed.contains("indices=tensor([1, 1]"), printed);
  }
}
