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
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.function.DoubleUnaryOperator;
import java.util.function.UnaryOperator;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Elementwise ops: arithmetic, broadcasting, type promotion, comparisons, unary math, in-place ops.
 */
class PointwiseTest {
  private static final double NAN = Double.NaN;

  // ---------------------------------------------------------------- binary arithmetic

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void float32Arithmetic(Device d) {
    Tensor a = f32(d, new float[] {1.5f, -2f, 3f, 0.25f});
    Tensor b = f32(d, new float[] {2f, 4f, -0.5f, 8f});
    meta(a.add(b), DType.FLOAT32, d, 4);
    assertF32(a.add(b), 3.5, 2, 2.5, 8.25);
    assertF32(a.sub(b), -0.5, -6, 3.5, -7.75);
    assertF32(a.mul(b), 3, -8, -1.5, 2);
    assertF32(a.div(b), 0.75, -0.5, -6, 0.03125);
    assertF32(a.pow(b), 2.25, 16, 1 / Math.sqrt(3), Math.pow(0.25, 8));
    assertF32(a.maximum(b), 2, 4, 3, 8);
    assertF32(a.minimum(b), 1.5, -2, -0.5, 0.25);
    assertF32(a.add(b, 2.0), 5.5, 6, 2, 16.25);
    assertF32(a.add(b, 1.0), 3.5, 2, 2.5, 8.25);
    // Division by zero follows IEEE.
    assertF32(
        f32(d, new float[] {1, -1, 0}).div(Tensor.zeros(Shape.of(3), d)),
        Double.POSITIVE_INFINITY,
        Double.NEGATIVE_INFINITY,
        NAN);
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void float64Arithmetic(Device d) {
    double[] x = {0.1, -2.5, 3, 1e-3};
    double[] y = {0.2, 4, -0.5, 7};
    Tensor a = f64(d, x);
    Tensor b = f64(d, y);
    double[][] expected = new double[7][4];
    for (int i = 0; i < 4; i++) {
      expected[0][i] = x[i] + y[i];
      expected[1][i] = x[i] - y[i];
      expected[2][i] = x[i] * y[i];
      expected[3][i] = x[i] / y[i];
      expected[4][i] = Math.pow(Math.abs(x[i]), y[i]);
      expected[5][i] = Math.max(x[i], y[i]);
      expected[6][i] = Math.min(x[i], y[i]);
    }
    assertF64(a.add(b), expected[0]);
    assertF64(a.sub(b), expected[1]);
    assertF64(a.mul(b), expected[2]);
    assertF64(a.div(b), expected[3]);
    assertF64(a.abs().pow(b), expected[4]);
    assertF64(a.maximum(b), expected[5]);
    assertF64(a.minimum(b), expected[6]);
    // 0.1 + 0.2 in double, not in float.
    assertEquals(0.1 + 0.2, a.add(b).toDoubleArray()[0]);
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void int64Arithmetic(Device d) {
    Tensor a = i64(d, new long[] {7, -3, 0, 5});
    Tensor b = i64(d, new long[] {2, 2, 9, -4});
    meta(a.add(b), DType.INT64, d, 4);
    assertI64(a.add(b), 9, -1, 9, 1);
    assertI64(a.sub(b), 5, -5, -9, 9);
    assertI64(a.mul(b), 14, -6, 0, -20);
    assertI64(a.maximum(b), 7, 2, 9, 5);
    assertI64(a.minimum(b), 2, -3, 0, -4);
    assertI64(a.pow(i64(d, new long[] {2, 3, 0, 1})), 49, -27, 1, 5);
    // True division of integers gives float32.
    assertF32(a.div(b), 3.5, -1.5, 0, -1.25);
    // Values beyond 2^53 stay exact.
    long big = 1L << 53;
    assertI64(i64(d, new long[] {big}).add(i64(d, new long[] {1})), big + 1);
    // Integer powers are exact; negative exponents truncate towards zero, as in PyTorch.
    assertI64(
        i64(d, new long[] {3, 2, 2, -1, 1, -2, 7})
            .pow(i64(d, new long[] {39, -1, 0, -3, -5, 3, 1})),
        4052555153018976267L,
        0,
        1,
        -1,
        1,
        -8,
        7);
  }

  // ---------------------------------------------------------------- broadcasting

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void broadcasting(Device d) {
    Tensor m = f32(d, new float[] {1, 2, 3, 4, 5, 6}, 2, 3);
    Tensor row = f32(d, new float[] {10, 20, 30});
    Tensor sum = m.add(row);
    meta(sum, DType.FLOAT32, d, 2, 3);
    assertF32(sum, 11, 22, 33, 14, 25, 36);
    assertF32(row.sub(m), 9, 18, 27, 6, 15, 24);

    Tensor col = f32(d, new float[] {1, 2}, 2, 1);
    Tensor r = f32(d, new float[] {10, 20, 30}, 1, 3);
    meta(col.add(r), DType.FLOAT32, d, 2, 3);
    assertF32(col.add(r), 11, 21, 31, 12, 22, 32);
    assertF32(col.mul(r), 10, 20, 30, 20, 40, 60);

    // [3, 1, 2] with [4, 1] gives [3, 4, 2].
    float[] x = Close.uniform(1, 6, -1, 1);
    float[] y = Close.uniform(2, 4, -1, 1);
    Tensor out = f32(d, x, 3, 1, 2).mul(f32(d, y, 4, 1));
    meta(out, DType.FLOAT32, d, 3, 4, 2);
    double[] expected = new double[24];
    for (int i = 0; i < 3; i++) {
      for (int j = 0; j < 4; j++) {
        for (int k = 0; k < 2; k++) {
          expected[(i * 4 + j) * 2 + k] = (double) x[i * 2 + k] * y[j];
        }
      }
    }
    assertF32(out, expected);

    // A 0-dim tensor on the same device, and a 0-dim CPU tensor beside a tensor on any device.
    assertF32(m.mul(Tensor.scalar(2.0, d)), 2, 4, 6, 8, 10, 12);
    Tensor scaled = m.mul(Tensor.scalar(2.0));
    meta(scaled, DType.FLOAT32, d, 2, 3);
    assertF32(scaled, 2, 4, 6, 8, 10, 12);
    Tensor first = Tensor.scalar(10.0).sub(m);
    meta(first, DType.FLOAT32, d, 2, 3);
    assertF32(first, 9, 8, 7, 6, 5, 4);
    // An empty dimension broadcasts with 1.
    meta(Tensor.zeros(Shape.of(0, 3), d).add(row), DType.FLOAT32, d, 0, 3);
  }

  // ---------------------------------------------------------------- Java scalars

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void scalarOperandsOnFloat32(Device d) {
    Tensor x = f32(d, new float[] {1, 2, 4});
    assertF32(x.add(1.5), 2.5, 3.5, 5.5);
    assertF32(x.add(2L), 3, 4, 6);
    assertF32(x.sub(0.5), 0.5, 1.5, 3.5);
    assertF32(x.sub(1L), 0, 1, 3);
    assertF32(x.rsub(10), 9, 8, 6);
    assertF32(x.mul(-2.0), -2, -4, -8);
    assertF32(x.mul(3L), 3, 6, 12);
    assertF32(x.div(4.0), 0.25, 0.5, 1);
    assertF32(x.rdiv(8), 8, 4, 2);
    assertF32(x.pow(2.0), 1, 4, 16);
    assertF32(x.pow(0.5), 1, Math.sqrt(2), 2);
    assertF32(x.pow(-1.0), 1, 0.5, 0.25);
    meta(x.add(1.5), DType.FLOAT32, d, 3);
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void scalarOperandsOnInt64(Device d) {
    Tensor x = i64(d, new long[] {1, 2, 4});
    // long scalars keep int64 ...
    assertI64(x.add(2L), 3, 4, 6);
    assertI64(x.sub(1L), 0, 1, 3);
    assertI64(x.mul(3L), 3, 6, 12);
    // ... double scalars promote to float32.
    assertF32(x.add(1.5), 2.5, 3.5, 5.5);
    assertF32(x.add(2.0), 3, 4, 6);
    assertF32(x.sub(0.5), 0.5, 1.5, 3.5);
    assertF32(x.mul(0.5), 0.5, 1, 2);
    assertF32(x.div(2.0), 0.5, 1, 2);
    assertF32(x.rsub(1.0), 0, -1, -3);
    assertF32(x.rdiv(4), 4, 2, 1);
    assertF32(x.pow(2.0), 1, 4, 16);
    long big = (1L << 53) + 1;
    assertI64(i64(d, new long[] {big}).add(2L), big + 2);
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void scalarOperandsOnFloat64KeepDoublePrecision(Device d) {
    Tensor x = f64(d, new double[] {1, 2, 4});
    assertF64(x.add(0.1), 1.1, 2.1, 4.1);
    assertEquals(1 + 0.1, x.add(0.1).toDoubleArray()[0]);
    assertF64(x.add(1L), 2, 3, 5);
    assertF64(x.div(3.0), 1 / 3.0, 2 / 3.0, 4 / 3.0);
    assertF64(x.rdiv(1), 1, 0.5, 0.25);
    assertF64(x.rsub(0.5), -0.5, -1.5, -3.5);
  }

  // ---------------------------------------------------------------- type promotion

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void typePromotion(Device d) {
    Tensor ints = i64(d, new long[] {1, 2});
    Tensor floats = f32(d, new float[] {0.5f, 0.25f});
    Tensor doubles = f64(d, new double[] {0.5, 0.25});
    Tensor bools = Tensor.of(true, false).to(d);
    Tensor f64Scalar = Tensor.of(new double[] {1.5}, Shape.scalar(), Device.cpu());
    Tensor i64Scalar = Tensor.scalar(3L);

    // int64 + 1.5 -> float32
    assertF32(ints.add(1.5), 2.5, 3.5);
    // int64 [n] + float64 0-dim -> float64 (a 0-dim tensor of a higher category contributes its
    // dtype)
    Tensor r = ints.add(f64Scalar);
    meta(r, DType.FLOAT64, d, 2);
    assertF64(r, 2.5, 3.5);
    // float32 [n] + float64 0-dim -> float32 (same category: the dimensioned operand decides)
    Tensor s = floats.add(f64Scalar);
    meta(s, DType.FLOAT32, d, 2);
    assertF32(s, 2, 1.75);
    // Dimensioned operands promote by rank order.
    assertF64(floats.add(doubles), 1, 0.5);
    assertF32(ints.add(floats), 1.5, 2.25);
    assertI64(ints.add(i64Scalar), 4, 5);
    assertF32(floats.add(i64Scalar), 3.5, 3.25);
    assertI64(ints.add(bools), 2, 2);
    assertI64(bools.add(i64Scalar), 4, 3);
    assertI64(bools.add(1L), 2, 1);
    assertF32(bools.add(0.5), 1.5, 0.5);
    // 0-dim with 0-dim promotes normally.
    Tensor zz = Tensor.scalar(1.0, d).add(Tensor.of(new double[] {2}, Shape.scalar(), d));
    meta(zz, DType.FLOAT64, d);
    // int / int -> float32
    assertF32(ints.div(i64(d, new long[] {4, 4})), 0.25, 0.5);
    // Comparisons give bool.
    meta(ints.lt(floats), DType.BOOL, d, 2);
    assertBool(ints.lt(floats.add(1.0)), true, false);
    assertBool(ints.gt(floats), true, true);
    meta(doubles.eq(0.5), DType.BOOL, d, 2);
  }

  // ---------------------------------------------------------------- comparisons and logic

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void comparisons(Device d) {
    Tensor a = f32(d, new float[] {1, 2, 3, Float.NaN});
    Tensor b = f32(d, new float[] {3, 2, 1, Float.NaN});
    assertBool(a.eq(b), false, true, false, false);
    assertBool(a.ne(b), true, false, true, true);
    assertBool(a.lt(b), true, false, false, false);
    assertBool(a.le(b), true, true, false, false);
    assertBool(a.gt(b), false, false, true, false);
    assertBool(a.ge(b), false, true, true, false);
    assertBool(a.eq(2), false, true, false, false);
    assertBool(a.ne(2), true, false, true, true);
    assertBool(a.lt(2), true, false, false, false);
    assertBool(a.le(2), true, true, false, false);
    assertBool(a.gt(2), false, false, true, false);
    assertBool(a.ge(2), false, true, true, false);

    // Broadcast comparison.
    Tensor col = f32(d, new float[] {1, 2}, 2, 1);
    Tensor row = f32(d, new float[] {0, 1, 2});
    Tensor c = col.ge(row);
    meta(c, DType.BOOL, d, 2, 3);
    assertBool(c, true, true, false, true, true, true);

    // int64 compares exactly beyond 2^53.
    long big = 1L << 53;
    assertBool(i64(d, new long[] {big + 1, big}).eq(i64(d, new long[] {big, big})), false, true);
    assertBool(i64(d, new long[] {big + 1}).gt(i64(d, new long[] {big})), true);
    assertBool(Tensor.of(true, false).to(d).eq(Tensor.of(true, true).to(d)), true, false);

    // Whole-number scalars compare exactly with int64 elements, beyond float32's 2^24.
    Tensor ids = i64(d, new long[] {16_777_217, 5, 16_777_216});
    assertBool(ids.eq(16_777_216), false, false, true);
    assertBool(ids.ne(16_777_216), true, true, false);
    assertBool(ids.gt(16_777_216), true, false, false);
    assertBool(ids.le(16_777_216), false, true, true);
    assertBool(i64(d, new long[] {big + 1, big}).eq((double) big), false, true);
    assertBool(i64(d, new long[] {1, 2}).lt(1.5), true, false);
    assertBool(Tensor.of(true, false).to(d).eq(1), true, false);
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void logicalOps(Device d) {
    Tensor p = Tensor.of(true, true, false, false).to(d);
    Tensor q = Tensor.of(true, false, true, false).to(d);
    assertBool(p.logicalAnd(q), true, false, false, false);
    assertBool(p.logicalOr(q), true, true, true, false);
    assertBool(p.logicalXor(q), false, true, true, false);
    assertBool(p.logicalNot(), false, false, true, true);
    // Non-bool operands are read as truth values; NaN is true.
    Tensor f = f32(d, new float[] {0, 2.5f, -1, Float.NaN});
    Tensor g = f32(d, new float[] {1, 1, 0, 1});
    meta(f.logicalAnd(g), DType.BOOL, d, 4);
    assertBool(f.logicalAnd(g), false, true, false, true);
    assertBool(f.logicalOr(g), true, true, true, true);
    assertBool(f.logicalNot(), true, false, false, false);
    assertBool(i64(d, new long[] {0, 7}).logicalNot(), true, false);
    // Broadcast.
    Tensor m = Tensor.of(new boolean[] {true, false, true, true}, 2, 2).to(d);
    assertBool(m.logicalAnd(Tensor.of(false, true).to(d)), false, false, false, true);
  }

  // ---------------------------------------------------------------- unary math

  private static final class Unary {
    final String name;
    final UnaryOperator<Tensor> op;
    final DoubleUnaryOperator ref;
    final double[] inputs;

    Unary(String name, UnaryOperator<Tensor> op, DoubleUnaryOperator ref, double... inputs) {
      this.name = name;
      this.op = op;
      this.ref = ref;
      this.inputs = inputs;
    }
  }

  private static final double[] ANY = {-2.5, -1, -0.25, 0, 0.5, 1.5, 3};
  private static final double[] POSITIVE = {0.01, 0.5, 1, 2, 10, 1e4};

  private static List<Unary> unaries() {
    return List.of(
        new Unary("exp", Tensor::exp, Math::exp, ANY),
        new Unary("log", Tensor::log, Math::log, POSITIVE),
        new Unary("log1p", Tensor::log1p, Math::log1p, -0.5, 1e-8, 0, 1, 100),
        new Unary("expm1", Tensor::expm1, Math::expm1, -1, -1e-8, 1e-8, 0, 2),
        new Unary("sqrt", Tensor::sqrt, Math::sqrt, 0, 0.25, 2, 1e4),
        new Unary("rsqrt", Tensor::rsqrt, x -> 1 / Math.sqrt(x), POSITIVE),
        new Unary("abs", Tensor::abs, Math::abs, ANY),
        new Unary("neg", Tensor::neg, x -> -x, ANY),
        new Unary("sign", Tensor::sign, Math::signum, ANY),
        new Unary("square", Tensor::square, x -> x * x, ANY),
        new Unary("reciprocal", Tensor::reciprocal, x -> 1 / x, -4, -0.5, 0.25, 3),
        new Unary("sin", Tensor::sin, Math::sin, ANY),
        new Unary("cos", Tensor::cos, Math::cos, ANY),
        new Unary("tanh", Tensor::tanh, Math::tanh, -20, -1, 0, 0.5, 20, 1000),
        new Unary("sigmoid", Tensor::sigmoid, x -> 1 / (1 + Math.exp(-x)), -3, -0.5, 0, 0.5, 3),
        new Unary("relu", Tensor::relu, x -> Math.max(x, 0), ANY),
        new Unary("floor", Tensor::floor, Math::floor, -2.5, -0.5, 0, 0.5, 2.7, -3),
        new Unary("ceil", Tensor::ceil, Math::ceil, -2.5, -0.5, 0, 0.5, 2.2, -3),
        new Unary("round", Tensor::round, Math::rint, 0.5, 1.5, 2.5, -0.5, -1.5, 2.4, -2.6));
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void unaryFloat32(Device d) {
    for (Unary u : unaries()) {
      float[] in = new float[u.inputs.length];
      double[] expected = new double[in.length];
      for (int i = 0; i < in.length; i++) {
        in[i] = (float) u.inputs[i];
        expected[i] = (float) u.ref.applyAsDouble(in[i]);
      }
      Tensor out = u.op.apply(f32(d, in, 1, in.length));
      meta(out, DType.FLOAT32, d, 1, in.length);
      try {
        assertClose(out, expected, 1e-6, 1e-7);
      } catch (AssertionError e) {
        throw new AssertionError(u.name + " (float32): " + e.getMessage(), e);
      }
    }
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void unaryFloat64(Device d) {
    for (Unary u : unaries()) {
      double[] expected = new double[u.inputs.length];
      for (int i = 0; i < expected.length; i++) {
        expected[i] = u.ref.applyAsDouble(u.inputs[i]);
      }
      Tensor out = u.op.apply(f64(d, u.inputs));
      meta(out, DType.FLOAT64, d, u.inputs.length);
      try {
        assertClose(out, expected, 1e-15, 1e-300);
      } catch (AssertionError e) {
        throw new AssertionError(u.name + " (float64): " + e.getMessage(), e);
      }
    }
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void unaryOnNonContiguousInput(Device d) {
    float[] v = {-1, 2, -3, 4, -5, 6};
    Tensor t = f32(d, v, 2, 3).t();
    assertF32(t.abs(), 1, 4, 2, 5, 3, 6);
    assertF32(t.relu(), 0, 4, 2, 0, 0, 6);
    assertF32(
        t.exp(), Math.exp(-1), Math.exp(4), Math.exp(2), Math.exp(-5), Math.exp(-3), Math.exp(6));
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void unaryOnInt64(Device d) {
    Tensor x = i64(d, new long[] {-3, 0, 4});
    assertI64(x.abs(), 3, 0, 4);
    assertI64(x.neg(), 3, 0, -4);
    assertI64(x.sign(), -1, 0, 1);
    assertI64(x.square(), 9, 0, 16);
    assertI64(x.relu(), 0, 0, 4);
    assertI64(x.floor(), -3, 0, 4);
    assertI64(x.ceil(), -3, 0, 4);
    assertI64(x.round(), -3, 0, 4);
    // Functions that need floats give float32.
    assertF32(x.exp(), Math.exp(-3), 1, Math.exp(4));
    assertF32(x.abs().sqrt(), Math.sqrt(3), 0, 2);
    assertF32(x.sigmoid(), 1 / (1 + Math.exp(3)), 0.5, 1 / (1 + Math.exp(-4)));
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void stableAtExtremes(Device d) {
    Tensor x = f32(d, new float[] {-1000, -100, -20, 0, 20, 100, 1000});
    double[] s = x.sigmoid().toDoubleArray();
    for (double v : s) {
      assertFalse(Double.isNaN(v), "sigmoid gave NaN");
      assertTrue(v >= 0 && v <= 1);
    }
    assertEquals(0.0, s[0]);
    assertEquals((float) Math.exp(-100), s[1], 1e-45);
    assertEquals((float) (1 / (1 + Math.exp(20))), s[2], 1e-15);
    assertEquals(0.5, s[3]);
    assertEquals(1.0, s[5]);
    assertEquals(1.0, s[6]);
    assertF64(f64(d, new double[] {-1000, 1000}).sigmoid(), 0, 1);
    assertF32(x.tanh().slice(0, 0, 1), -1);
    assertF32(x.exp().slice(0, 0, 1), 0);
    assertF32(f32(d, new float[] {100}).exp(), Double.POSITIVE_INFINITY);
    assertF32(f32(d, new float[] {0, -1}).log(), Double.NEGATIVE_INFINITY, NAN);
    // NaN goes through.
    assertF32(f32(d, new float[] {Float.NaN}).relu(), NAN);
    assertF32(f32(d, new float[] {Float.NaN}).exp(), NAN);
  }

  // ---------------------------------------------------------------- clamp, where, maskedFill

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void clamp(Device d) {
    Tensor x = f32(d, new float[] {-3, -1, 0, 2, 5, Float.NaN});
    assertF32(x.clamp(-1, 2), -1, -1, 0, 2, 2, NAN);
    assertF32(x.clampMin(0), 0, 0, 0, 2, 5, NAN);
    assertF32(x.clampMax(1), -3, -1, 0, 1, 1, NAN);
    assertF32(x.clamp(1, 1), 1, 1, 1, 1, 1, NAN);
    assertF32(x.clamp(-0.5, 0.5).slice(0, 0, 5), -0.5, -0.5, 0, 0.5, 0.5);
    Tensor i = i64(d, new long[] {-3, 0, 7});
    assertI64(i.clamp(-1, 5), -1, 0, 5);
    assertI64(i.clampMin(1), 1, 1, 7);
    assertI64(i.clampMax(-2), -3, -2, -2);
    // Fractional bounds take part in type promotion, as in PyTorch: a float32 result.
    Tensor promoted = i64(d, new long[] {0, 1, 3}).clamp(1.5, 2.5);
    assertEquals(DType.FLOAT32, promoted.dtype());
    assertF32(promoted, 1.5, 1.5, 2.5);
    assertF32(i64(d, new long[] {0, 1, 3}).clampMin(0.5), 0.5, 1, 3);
    assertF32(i64(d, new long[] {0, 1, 3}).clampMax(2.5), 0, 1, 2.5);
    // int64 stays exact beyond float32's 2^24.
    assertI64(
        i64(d, new long[] {16_777_217, -16_777_217}).clamp(-16_777_216, 1e9),
        16_777_217,
        -16_777_216);
    assertF64(f64(d, new double[] {0.1, 0.7}).clamp(0.2, 0.6), 0.2, 0.6);
    // clamp returns a new tensor even when nothing changes.
    Tensor y = f32(d, new float[] {0.5f});
    Tensor c = y.clamp(0, 1);
    c.fill(9);
    assertF32(y, 0.5);
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void where(Device d) {
    Tensor cond = Tensor.of(true, false, true).to(d);
    Tensor a = f32(d, new float[] {1, 2, 3});
    Tensor b = f32(d, new float[] {10, 20, 30});
    Tensor w = Tensor.where(cond, a, b);
    meta(w, DType.FLOAT32, d, 3);
    assertF32(w, 1, 20, 3);

    // Broadcast: [2, 1] condition, [3] input, 0-dim CPU scalar other.
    Tensor c2 = Tensor.of(new boolean[] {true, false}, 2, 1).to(d);
    Tensor w2 = Tensor.where(c2, a, Tensor.scalar(0.0));
    meta(w2, DType.FLOAT32, d, 2, 3);
    assertF32(w2, 1, 2, 3, 0, 0, 0);

    // Promotion: int64 input with float32 other gives float32.
    Tensor w3 = Tensor.where(cond, i64(d, new long[] {1, 2, 3}), b);
    meta(w3, DType.FLOAT32, d, 3);
    assertF32(w3, 1, 20, 3);
    assertI64(
        Tensor.where(cond, i64(d, new long[] {1, 2, 3}), i64(d, new long[] {-1, -2, -3})),
        1,
        -2,
        3);
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void maskedFill(Device d) {
    Tensor x = Tensor.arange(0, 6, 1, DType.FLOAT32, d).reshape(2, 3);
    Tensor mask = Tensor.of(true, false, true).to(d);
    Tensor y = x.maskedFill(mask, -1);
    meta(y, DType.FLOAT32, d, 2, 3);
    assertF32(y, -1, 1, -1, -1, 4, -1);
    assertF32(x, 0, 1, 2, 3, 4, 5);
    Tensor full = Tensor.of(new boolean[] {false, true, false, false, false, true}, 2, 3).to(d);
    assertF32(
        x.maskedFill(full, Double.NEGATIVE_INFINITY),
        0,
        Double.NEGATIVE_INFINITY,
        2,
        3,
        4,
        Double.NEGATIVE_INFINITY);
    Tensor i = Tensor.arange(0, 3, d);
    Tensor filled = i.maskedFill(mask, 9);
    meta(filled, DType.INT64, d, 3);
    assertI64(filled, 9, 1, 9);
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void nanPropagatesThroughMaximumAndMinimum(Device d) {
    Tensor a = f32(d, new float[] {Float.NaN, 1, 2});
    Tensor b = f32(d, new float[] {0, Float.NaN, 1});
    assertF32(a.maximum(b), NAN, NAN, 2);
    assertF32(a.minimum(b), NAN, NAN, 1);
    assertF32(b.maximum(a), NAN, NAN, 2);
    Tensor a64 = a.to(DType.FLOAT64);
    Tensor b64 = b.to(DType.FLOAT64);
    assertF64(a64.maximum(b64), NAN, NAN, 2);
    assertF64(a64.minimum(b64), NAN, NAN, 1);
    assertF32(a.add(b), NAN, NAN, 3);
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void largeStridedElementwiseAgainstReference(Device d) {
    int rows = 600;
    int cols = 500;
    float[] x = Close.uniform(3, rows * cols, -2, 2);
    float[] y = Close.uniform(4, rows * cols, -2, 2);
    Tensor a = f32(d, x, rows, cols);
    Tensor bt = f32(d, y, cols, rows).t();
    Tensor out = a.add(bt).mul(a).sub(bt.abs());
    meta(out, DType.FLOAT32, d, rows, cols);
    double[] expected = new double[rows * cols];
    for (int i = 0; i < rows; i++) {
      for (int j = 0; j < cols; j++) {
        float av = x[i * cols + j];
        float bv = y[j * rows + i];
        float s = av + bv;
        float p = s * av;
        expected[i * cols + j] = p - Math.abs(bv);
      }
    }
    assertClose(out, expected, 0, 0);
  }

  // ---------------------------------------------------------------- in place

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void inPlaceArithmetic(Device d) {
    Tensor x = f32(d, new float[] {1, 2, 3, 4, 5, 6}, 2, 3);
    Tensor row = f32(d, new float[] {1, 10, 100});
    assertSame(x, x.addi(row));
    assertF32(x, 2, 12, 103, 5, 15, 106);
    assertSame(x, x.subi(row));
    assertF32(x, 1, 2, 3, 4, 5, 6);
    assertSame(x, x.muli(row));
    assertF32(x, 1, 20, 300, 4, 50, 600);
    assertSame(x, x.divi(row));
    assertF32(x, 1, 2, 3, 4, 5, 6);
    assertSame(x, x.addi(row, -2.0));
    assertF32(x, -1, -18, -197, 2, -15, -194);
    x.addi(row, 2.0);
    assertSame(x, x.addi(0.5));
    assertF32(x, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5);
    assertSame(x, x.subi(0.5));
    assertSame(x, x.muli(2.0));
    assertF32(x, 2, 4, 6, 8, 10, 12);
    assertSame(x, x.divi(4.0));
    assertF32(x, 0.5, 1, 1.5, 2, 2.5, 3);
    // A 0-dim CPU scalar, and an int64 operand converted to the float32 of self.
    x.addi(Tensor.scalar(1.0));
    assertF32(x, 1.5, 2, 2.5, 3, 3.5, 4);
    x.muli(i64(d, new long[] {2, 2, 2}));
    assertF32(x, 3, 4, 5, 6, 7, 8);
    x.subi(Tensor.of(new double[] {1}, Shape.scalar(), Device.cpu()));
    assertF32(x, 2, 3, 4, 5, 6, 7);

    Tensor i = i64(d, new long[] {1, 2});
    i.addi(i64(d, new long[] {10, 20}));
    assertI64(i, 11, 22);
    i.muli(3.0);
    assertI64(i, 33, 66);
    i.subi(3);
    assertI64(i, 30, 63);
    i.muli(Tensor.scalar(2L));
    assertI64(i, 60, 126);

    Tensor f = f64(d, new double[] {1, 2});
    f.addi(0.1);
    assertF64(f, 1.1, 2.1);

    // As in PyTorch, a float64 operand may update float32 self: the result is stored as float32.
    Tensor h = f32(d, new float[] {1, 2});
    h.addi(f64(d, new double[] {0.5, 0.25}));
    meta(h, DType.FLOAT32, d, 2);
    assertF32(h, 1.5, 2.25);
    h.muli(Tensor.of(new double[] {2}, Shape.scalar(), Device.cpu()));
    assertF32(h, 3, 4.5);
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void fill(Device d) {
    Tensor x = Tensor.zeros(Shape.of(2, 2), d);
    assertSame(x, x.fill(3.5));
    assertF32(x, 3.5, 3.5, 3.5, 3.5);
    Tensor i = Tensor.zeros(Shape.of(2), DType.INT64, d);
    i.fill(-7);
    assertI64(i, -7, -7);
    Tensor b = Tensor.zeros(Shape.of(2), DType.BOOL, d);
    b.fill(1);
    assertBool(b, true, true);
    // Filling a strided view writes only its elements.
    Tensor m = Tensor.zeros(Shape.of(3, 3), d);
    m.select(1, 1).fill(1);
    assertF32(m, 0, 1, 0, 0, 1, 0, 0, 1, 0);
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void inPlaceOnALeafThatRequiresGradWorksInsideNoGrad(Device d) {
    Tensor w = f32(d, new float[] {1, 2, 3}).requiresGrad(true);
    Tensor g = f32(d, new float[] {0.5f, 0.5f, 0.5f});
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      w.subi(g.mul(2.0));
      w.muli(2.0);
      w.addi(1.0);
      w.divi(f32(d, new float[] {1, 2, 4}));
      w.select(0, 0).fill(7);
    }
    assertTrue(w.requiresGrad());
    assertTrue(w.isLeaf());
    assertF32(w.detach(), 7, 1.5, 1.25);
    assertTrue(Autograd.isGradEnabled());
  }
}
