package dev.ondevice;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import java.util.function.DoubleUnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * Float32 elementwise ops on rows long enough for the chunked fast path of the CPU kernels (rows of
 * several chunks and a remainder, at an offset, broadcast, in place, transposed): every element is
 * the one plain Java float arithmetic gives, special values included; {@code exp}, a float
 * polynomial, is within one ulp of the rounded {@code Math.exp}, and exact at the special values.
 */
class LargeFloatOpsTest {
  private static final int N = 3 * 2048 + 77;

  private static float[] values(long seed) {
    Random r = new Random(seed);
    float[] v = new float[N];
    for (int i = 0; i < N; i++) {
      v[i] = (float) (r.nextGaussian() * 3);
    }
    v[1] = Float.NaN;
    v[2] = -0f;
    v[3] = 0f;
    v[4] = Float.POSITIVE_INFINITY;
    v[5] = Float.NEGATIVE_INFINITY;
    v[N - 1] = -1e-30f;
    return v;
  }

  /** Equal as bits, any NaN equal to any NaN. */
  private static void assertSame(float[] expected, Tensor actual, String what) {
    float[] got = actual.toFloatArray();
    assertEquals(expected.length, got.length, what);
    for (int i = 0; i < expected.length; i++) {
      if (Float.isNaN(expected[i]) && Float.isNaN(got[i])) {
        continue;
      }
      assertEquals(
          Float.floatToIntBits(expected[i]),
          Float.floatToIntBits(got[i]),
          what + " at " + i + ": expected " + expected[i] + ", got " + got[i]);
    }
  }

  /** Within {@code ulps} units in the last place of the expected floats; NaN, infinities exact. */
  private static void assertWithin(float[] expected, Tensor actual, int ulps, String what) {
    float[] got = actual.toFloatArray();
    assertEquals(expected.length, got.length, what);
    for (int i = 0; i < expected.length; i++) {
      if ((Float.isNaN(expected[i]) && Float.isNaN(got[i])) || expected[i] == got[i]) {
        continue;
      }
      assertTrue(
          Float.isFinite(expected[i])
              && Math.abs(got[i] - expected[i]) <= ulps * Math.ulp(expected[i]),
          what + " at " + i + ": expected " + expected[i] + ", got " + got[i]);
    }
  }

  private interface FloatBinary {
    float apply(float x, float y);
  }

  private static float[] map(float[] x, float[] y, FloatBinary f) {
    float[] out = new float[x.length];
    for (int i = 0; i < x.length; i++) {
      out[i] = f.apply(x[i], y[i]);
    }
    return out;
  }

  private static float[] map(float[] x, DoubleUnaryOperator f) {
    float[] out = new float[x.length];
    for (int i = 0; i < x.length; i++) {
      out[i] = (float) f.applyAsDouble(x[i]);
    }
    return out;
  }

  private static float[] scalar(float s) {
    float[] v = new float[N];
    java.util.Arrays.fill(v, s);
    return v;
  }

  @Test
  void binaryOpsMatchJavaArithmetic() {
    float[] x = values(1);
    float[] y = values(2);
    Tensor a = Tensor.of(x);
    Tensor b = Tensor.of(y);
    assertSame(map(x, y, (p, q) -> p + q), a.add(b), "add");
    assertSame(map(x, y, (p, q) -> p - q), a.sub(b), "sub");
    assertSame(map(x, y, (p, q) -> p * q), a.mul(b), "mul");
    assertSame(map(x, y, (p, q) -> p / q), a.div(b), "div");
  }

  @Test
  void scalarOperandsOnEitherSide() {
    float[] x = values(3);
    Tensor a = Tensor.of(x);
    assertSame(map(x, scalar(2.5f), (p, q) -> p * q), a.mul(2.5), "mul scalar");
    assertSame(map(x, scalar(-1.25f), (p, q) -> p + q), a.add(-1.25), "add scalar");
    assertSame(map(scalar(1f), x, (p, q) -> p - q), a.rsub(1.0), "rsub");
    assertSame(map(scalar(3f), x, (p, q) -> p / q), a.rdiv(3.0), "rdiv");
  }

  @Test
  void offsetsBroadcastsInPlaceAndTransposes() {
    float[] x = values(4);
    float[] y = values(5);
    int len = N - 10;
    float[] xs = java.util.Arrays.copyOfRange(x, 7, 7 + len);
    float[] ys = java.util.Arrays.copyOfRange(y, 3, 3 + len);
    assertSame(
        map(xs, ys, (p, q) -> p + q),
        Tensor.of(x).narrow(0, 7, len).add(Tensor.of(y).narrow(0, 3, len)),
        "add at offsets");

    int rows = 40;
    int cols = 300;
    float[] m = java.util.Arrays.copyOf(x, rows * cols);
    float[] row = java.util.Arrays.copyOf(y, cols);
    float[] col = java.util.Arrays.copyOf(y, rows);
    float[] plusRow = new float[rows * cols];
    float[] timesCol = new float[rows * cols];
    for (int i = 0; i < rows; i++) {
      for (int j = 0; j < cols; j++) {
        plusRow[i * cols + j] = m[i * cols + j] + row[j];
        timesCol[i * cols + j] = m[i * cols + j] * col[i];
      }
    }
    Tensor mt = Tensor.of(m, rows, cols);
    assertSame(plusRow, mt.add(Tensor.of(row, 1, cols)), "broadcast row");
    assertSame(timesCol, mt.mul(Tensor.of(col, rows, 1)), "broadcast column");
    Tensor sq = Tensor.of(java.util.Arrays.copyOf(x, cols * cols), cols, cols);
    float[] s = sq.toFloatArray();
    float[] st = new float[cols * cols];
    for (int i = 0; i < cols; i++) {
      for (int j = 0; j < cols; j++) {
        st[i * cols + j] = s[i * cols + j] + s[j * cols + i];
      }
    }
    assertSame(st, sq.add(sq.t()), "add transposed");
    assertSame(map(st, Math::sqrt), sq.add(sq.t()).sqrt(), "sqrt of sum");

    Tensor z = Tensor.of(x.clone());
    z.addi(Tensor.of(y));
    assertSame(map(x, y, (p, q) -> p + q), z, "addi");
  }

  @Test
  void unaryOpsMatchJavaMath() {
    float[] x = values(6);
    Tensor a = Tensor.of(x);
    assertSame(map(x, v -> -v), a.neg(), "neg");
    assertSame(map(x, Math::abs), a.abs(), "abs");
    assertSame(map(x, v -> (float) v * (float) v), a.square(), "square");
    assertSame(map(x, v -> v > 0 || Double.isNaN(v) ? v : 0), a.relu(), "relu");
    assertWithin(map(x, Math::exp), a.exp(), 1, "exp");
    assertSame(map(x, Math::sqrt), a.sqrt(), "sqrt");
    assertEquals(
        Float.floatToIntBits(0f),
        Float.floatToIntBits(a.relu().toFloatArray()[2]),
        "relu(-0) is +0");
  }
}
