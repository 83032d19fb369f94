package dev.ondevice;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.List;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The gradient of every differentiable op, checked against central finite differences in float64
 * ({@link GradCheck}) on the CPU and on an emulated {@code cuda:0}. Inputs stay away from the
 * points where an op is not differentiable (0 for relu and abs, ties for max and min, the bounds of
 * clamp).
 */
class GradientTest {
  private static final String DEVICES = "dev.ondevice.TestDevices#all";

  private final Random rng = new Random(7);

  private Tensor randn(Device device, long... shape) {
    return GradCheck.randn(rng, device, shape);
  }

  private Tensor positive(Device device, long... shape) {
    return GradCheck.uniform(rng, 0.5, 2.0, device, shape);
  }

  private Tensor awayFromZero(Device device, long... shape) {
    return GradCheck.awayFromZero(rng, device, shape);
  }

  private Tensor distinct(Device device, long... shape) {
    return GradCheck.distinct(rng, device, shape);
  }

  private static Tensor doubles(Device device, double[] values, long... shape) {
    return Tensor.of(values, Shape.of(shape), device);
  }

  private static Tensor longs(Device device, long[] values, long... shape) {
    return Tensor.of(values, Shape.of(shape), device);
  }

  private static Tensor bools(Device device, boolean[] values, long... shape) {
    return Tensor.of(values, shape).to(device);
  }

  /** The device that is not {@code device}: cuda:0 for the CPU, the CPU for cuda:0. */
  private static Device other(Device device) {
    return device.isCpu() ? Device.cuda(0) : Device.cpu();
  }

  /** A 0-dim float64 tensor on the CPU. */
  private static Tensor cpuScalar(double value) {
    return Tensor.full(Shape.scalar(), value, DType.FLOAT64, Device.cpu());
  }

  // ---------------------------------------------------------------- arithmetic

  @ParameterizedTest
  @MethodSource(DEVICES)
  void linear(Device d) {
    GradCheck.check(
        "2-d with bias",
        (x, w, b) -> Tensor.linear(x, w, b),
        randn(d, 4, 3),
        randn(d, 2, 3),
        randn(d, 2));
    GradCheck.check(
        "3-d input", (x, w) -> Tensor.linear(x, w, null), randn(d, 2, 4, 3), randn(d, 5, 3));
    GradCheck.check(
        "transposed input",
        (x, w, b) -> Tensor.linear(x.t(), w, b),
        randn(d, 3, 4),
        randn(d, 2, 3),
        randn(d, 2));
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void add(Device d) {
    GradCheck.check("same shape", (a, b) -> a.add(b), randn(d, 2, 3), randn(d, 2, 3));
    GradCheck.check("[2,3] + [3]", (a, b) -> a.add(b), randn(d, 2, 3), randn(d, 3));
    GradCheck.check("[3] + [2,3]", (a, b) -> a.add(b), randn(d, 3), randn(d, 2, 3));
    GradCheck.check("[3,1] + [1,4]", (a, b) -> a.add(b), randn(d, 3, 1), randn(d, 1, 4));
    GradCheck.check("[2,1,3] + [4,1]", (a, b) -> a.add(b), randn(d, 2, 1, 3), randn(d, 4, 1));
    GradCheck.check("[2,3] + [1]", (a, b) -> a.add(b), randn(d, 2, 3), randn(d, 1));
    GradCheck.check("0-dim + [2,3]", (a, b) -> a.add(b), randn(d), randn(d, 2, 3));
    GradCheck.check("alpha", (a, b) -> a.add(b, 2.5), randn(d, 2, 3), randn(d, 3));
    GradCheck.check("double scalar", x -> x.add(1.5), randn(d, 2, 3));
    GradCheck.check("long scalar", x -> x.add(2L), randn(d, 2, 3));
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void sub(Device d) {
    GradCheck.check("same shape", (a, b) -> a.sub(b), randn(d, 2, 3), randn(d, 2, 3));
    GradCheck.check("[2,3] - [3]", (a, b) -> a.sub(b), randn(d, 2, 3), randn(d, 3));
    GradCheck.check("[3] - [2,3]", (a, b) -> a.sub(b), randn(d, 3), randn(d, 2, 3));
    GradCheck.check("[3,1] - [1,4]", (a, b) -> a.sub(b), randn(d, 3, 1), randn(d, 1, 4));
    GradCheck.check("double scalar", x -> x.sub(0.7), randn(d, 2, 3));
    GradCheck.check("long scalar", x -> x.sub(3L), randn(d, 2, 3));
    GradCheck.check("rsub", x -> x.rsub(2.0), randn(d, 2, 3));
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void mul(Device d) {
    GradCheck.check("same shape", (a, b) -> a.mul(b), randn(d, 2, 3), randn(d, 2, 3));
    GradCheck.check("[2,3] * [3]", (a, b) -> a.mul(b), randn(d, 2, 3), randn(d, 3));
    GradCheck.check("[3] * [2,3]", (a, b) -> a.mul(b), randn(d, 3), randn(d, 2, 3));
    GradCheck.check("[3,1] * [1,4]", (a, b) -> a.mul(b), randn(d, 3, 1), randn(d, 1, 4));
    GradCheck.check("[2,1,3] * [4,1]", (a, b) -> a.mul(b), randn(d, 2, 1, 3), randn(d, 4, 1));
    GradCheck.check("double scalar", x -> x.mul(-1.5), randn(d, 2, 3));
    GradCheck.check("long scalar", x -> x.mul(3L), randn(d, 2, 3));
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void div(Device d) {
    GradCheck.check("same shape", (a, b) -> a.div(b), randn(d, 2, 3), awayFromZero(d, 2, 3));
    GradCheck.check("[2,3] / [3]", (a, b) -> a.div(b), randn(d, 2, 3), awayFromZero(d, 3));
    GradCheck.check("[3] / [2,3]", (a, b) -> a.div(b), randn(d, 3), awayFromZero(d, 2, 3));
    GradCheck.check("[3,1] / [1,4]", (a, b) -> a.div(b), randn(d, 3, 1), awayFromZero(d, 1, 4));
    GradCheck.check("double scalar", x -> x.div(2.5), randn(d, 2, 3));
    GradCheck.check("rdiv", x -> x.rdiv(3.0), awayFromZero(d, 2, 3));
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void powTensorExponent(Device d) {
    GradCheck.check("same shape", (a, b) -> a.pow(b), positive(d, 2, 3), randn(d, 2, 3));
    GradCheck.check("[2,3] ^ [3]", (a, b) -> a.pow(b), positive(d, 2, 3), randn(d, 3));
    GradCheck.check("[3] ^ [2,3]", (a, b) -> a.pow(b), positive(d, 3), randn(d, 2, 3));
    GradCheck.check("[3,1] ^ [1,4]", (a, b) -> a.pow(b), positive(d, 3, 1), randn(d, 1, 4));
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void powScalarExponent(Device d) {
    GradCheck.check("cube", x -> x.pow(3.0), randn(d, 2, 3));
    GradCheck.check("square of negatives", x -> x.pow(2.0), awayFromZero(d, 2, 3));
    GradCheck.check("square root", x -> x.pow(0.5), positive(d, 2, 3));
    GradCheck.check("negative power", x -> x.pow(-1.5), positive(d, 2, 3));
    GradCheck.check("zero power", x -> x.pow(0.0), awayFromZero(d, 2, 3));
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void powScalarBase(Device d) {
    GradCheck.check("0-dim cpu base", x -> cpuScalar(2.5).pow(x), randn(d, 2, 3));
    GradCheck.check(
        "0-dim base on the device",
        x -> Tensor.full(Shape.scalar(), 0.7, DType.FLOAT64, d).pow(x),
        randn(d, 2, 3));
    GradCheck.check(
        "base tensor of the same shape", x -> Tensor.fullLike(x, 1.8).pow(x), randn(d, 2, 3));
    GradCheck.check("base requiring grad", (b, x) -> b.pow(x), positive(d), randn(d, 2, 3));
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void maximumAndMinimum(Device d) {
    Tensor a = randn(d, 2, 3);
    Tensor b = a.add(awayFromZero(d, 2, 3));
    GradCheck.check("maximum", (x, y) -> x.maximum(y), a, b);
    GradCheck.check("minimum", (x, y) -> x.minimum(y), a, b);
    Tensor m = doubles(d, new double[] {0.3, -1.2, 2.0, -0.5, 0.9, 1.4}, 2, 3);
    Tensor v = doubles(d, new double[] {0.1, -0.7, 1.7}, 3);
    GradCheck.check("maximum [2,3] [3]", (x, y) -> x.maximum(y), m, v);
    GradCheck.check("minimum [3] [2,3]", (x, y) -> y.minimum(x), m, v);
  }

  /**
   * PyTorch's gradients where the formulas meet 0 · ∞ or NaN: {@code x^0} has a zero gradient even
   * at x = 0, the exponent gets none where the base is 0 and the exponent not negative, a full max
   * or min that is NaN sends its gradient to the NaN, and maximum with a NaN operand gives the
   * gradient to both.
   */
  @ParameterizedTest
  @MethodSource(DEVICES)
  void gradientsAtZeroPowersAndNaNsAreThoseOfPyTorch(Device d) {
    Tensor x = doubles(d, new double[] {0, 3}, 2).requiresGrad(true);
    x.pow(0.0).sum().backward();
    assertArrayEquals(new double[] {0, 0}, x.grad().toDoubleArray());
    Tensor base = doubles(d, new double[] {0, 0, 2}, 3).requiresGrad(true);
    Tensor exponent = doubles(d, new double[] {0, -1, 0}, 3).requiresGrad(true);
    base.pow(exponent).sum().backward();
    double[] gBase = base.grad().toDoubleArray();
    assertEquals(0.0, gBase[0]);
    assertEquals(0.0, gBase[2]);
    double[] gExponent = exponent.grad().toDoubleArray();
    assertEquals(0.0, gExponent[0], "0^0: no gradient to the exponent");
    assertEquals(
        Double.NEGATIVE_INFINITY, gExponent[1], "0^-1 = inf: inf · log 0 = -inf, as in PyTorch");
    assertEquals(Math.log(2), gExponent[2], 1e-15);
    Tensor s = doubles(d, new double[] {0, 2}, 2).requiresGrad(true);
    Tensor.full(Shape.scalar(), 0.0, DType.FLOAT64, d).pow(s).sum().backward();
    assertArrayEquals(new double[] {0, 0}, s.grad().toDoubleArray(), "0^s for s >= 0: no gradient");

    Tensor n = doubles(d, new double[] {1, Double.NaN, 3}, 3).requiresGrad(true);
    n.max().backward();
    assertArrayEquals(new double[] {0, 1, 0}, n.grad().toDoubleArray());
    n.setGrad(null);
    n.min().backward();
    assertArrayEquals(new double[] {0, 1, 0}, n.grad().toDoubleArray());
    Tensor ties = doubles(d, new double[] {3, 1, 3}, 3).requiresGrad(true);
    ties.max().backward();
    assertArrayEquals(new double[] {0.5, 0, 0.5}, ties.grad().toDoubleArray());

    Tensor p = doubles(d, new double[] {Double.NaN, 1, 2, 5}, 4).requiresGrad(true);
    Tensor q = doubles(d, new double[] {1, Double.NaN, 2, 4}, 4).requiresGrad(true);
    p.maximum(q).sum().backward();
    assertArrayEquals(new double[] {1, 1, 0.5, 1}, p.grad().toDoubleArray());
    assertArrayEquals(new double[] {1, 1, 0.5, 0}, q.grad().toDoubleArray());
    p.setGrad(null);
    p.clampMin(2.0).sum().backward();
    assertArrayEquals(
        new double[] {0, 0, 1, 1}, p.grad().toDoubleArray(), "clamp passes the gradient inside");
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void neg(Device d) {
    GradCheck.check(Tensor::neg, randn(d, 2, 3));
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void abs(Device d) {
    GradCheck.check(Tensor::abs, awayFromZero(d, 3, 4));
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void square(Device d) {
    GradCheck.check(Tensor::square, randn(d, 3, 4));
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void exp(Device d) {
    GradCheck.check(Tensor::exp, randn(d, 3, 4));
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void log(Device d) {
    GradCheck.check(Tensor::log, positive(d, 3, 4));
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void log1p(Device d) {
    GradCheck.check(Tensor::log1p, GradCheck.uniform(rng, -0.5, 2.0, d, 3, 4));
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void expm1(Device d) {
    GradCheck.check(Tensor::expm1, randn(d, 3, 4));
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void sqrt(Device d) {
    GradCheck.check(Tensor::sqrt, positive(d, 3, 4));
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void rsqrt(Device d) {
    GradCheck.check(Tensor::rsqrt, positive(d, 3, 4));
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void reciprocal(Device d) {
    GradCheck.check(Tensor::reciprocal, awayFromZero(d, 3, 4));
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void sin(Device d) {
    GradCheck.check(Tensor::sin, randn(d, 3, 4));
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void cos(Device d) {
    GradCheck.check(Tensor::cos, randn(d, 3, 4));
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void tanh(Device d) {
    GradCheck.check(Tensor::tanh, randn(d, 3, 4));
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void sigmoid(Device d) {
    GradCheck.check(Tensor::sigmoid, randn(d, 3, 4));
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void relu(Device d) {
    GradCheck.check(Tensor::relu, awayFromZero(d, 3, 4));
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void unaryOnNonContiguousInput(Device d) {
    GradCheck.check("exp of a transposed leaf", Tensor::exp, randn(d, 4, 3).t());
    GradCheck.check(
        "sigmoid of a strided slice", x -> x.slice(1, 0, 4, 2).sigmoid(), randn(d, 3, 4));
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void clamp(Device d) {
    Tensor x =
        doubles(
            d,
            new double[] {-1.7, -0.9, -0.2, 0.1, 0.3, 0.7, 1.2, 2.1, -0.45, 0.55, 0.05, -2.5},
            3,
            4);
    GradCheck.check("clamp", t -> t.clamp(-0.5, 0.5), x);
    GradCheck.check("clampMin", t -> t.clampMin(0.2), x);
    GradCheck.check("clampMax", t -> t.clampMax(-0.3), x);
    GradCheck.check("clamp without effect", t -> t.clamp(-10, 10), x);
  }

  // ---------------------------------------------------------------- reductions

  @ParameterizedTest
  @MethodSource(DEVICES)
  void sum(Device d) {
    Tensor x = randn(d, 2, 3, 4);
    GradCheck.check("all", Tensor::sum, x);
    GradCheck.check("dim 1", t -> t.sum(1), x);
    GradCheck.check("dim -1 keepdim", t -> t.sum(-1, true), x);
    GradCheck.check("dim 0 no keepdim", t -> t.sum(0, false), x);
    GradCheck.check("dims 0,2", t -> t.sum(new int[] {0, 2}, false), x);
    GradCheck.check("dims 2,0 keepdim", t -> t.sum(new int[] {2, 0}, true), x);
    GradCheck.check("all dims keepdim", t -> t.sum(new int[] {0, 1, 2}, true), x);
    GradCheck.check("0-dim", Tensor::sum, randn(d));
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void mean(Device d) {
    Tensor x = randn(d, 2, 3, 4);
    GradCheck.check("all", Tensor::mean, x);
    GradCheck.check("dim 1", t -> t.mean(1), x);
    GradCheck.check("dim -1 keepdim", t -> t.mean(-1, true), x);
    GradCheck.check("dim 0 no keepdim", t -> t.mean(0, false), x);
    GradCheck.check("dims 0,2", t -> t.mean(new int[] {0, 2}, false), x);
    GradCheck.check("dims 1,2 keepdim", t -> t.mean(new int[] {1, 2}, true), x);
    GradCheck.check("0-dim", Tensor::mean, randn(d));
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void prod(Device d) {
    GradCheck.check("matrix", Tensor::prod, awayFromZero(d, 2, 3));
    GradCheck.check("transposed", t -> t.t().prod(), awayFromZero(d, 3, 2));
    GradCheck.check("0-dim", Tensor::prod, awayFromZero(d));
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void prodWithZeros(Device d) {
    GradCheck.check(
        "one zero", Tensor::prod, doubles(d, new double[] {1.5, 0, -2, 0.5, 3, -1}, 2, 3));
    GradCheck.check(
        "two zeros", Tensor::prod, doubles(d, new double[] {1.5, 0, -2, 0.5, 0, -1}, 2, 3));
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void varAndStd(Device d) {
    Tensor x = randn(d, 2, 3, 4);
    for (boolean unbiased : new boolean[] {true, false}) {
      for (boolean keepdim : new boolean[] {true, false}) {
        String what = " unbiased=" + unbiased + " keepdim=" + keepdim;
        GradCheck.check("var dim 1" + what, t -> t.var(new int[] {1}, unbiased, keepdim), x);
        GradCheck.check("var dims 0,2" + what, t -> t.var(new int[] {0, 2}, unbiased, keepdim), x);
        GradCheck.check("std dim -1" + what, t -> t.std(new int[] {-1}, unbiased, keepdim), x);
        GradCheck.check("std all" + what, t -> t.std(new int[] {0, 1, 2}, unbiased, keepdim), x);
      }
    }
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void maxAndMinOfAll(Device d) {
    Tensor x = distinct(d, 3, 4);
    GradCheck.check("max", Tensor::max, x);
    GradCheck.check("min", Tensor::min, x);
    GradCheck.check("max of a transposed leaf", Tensor::max, distinct(d, 4, 3).t());
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void maxAndMinOverDim(Device d) {
    Tensor x = distinct(d, 3, 4, 2);
    for (boolean keepdim : new boolean[] {true, false}) {
      for (int dim : new int[] {0, 1, 2, -1}) {
        String what = " dim=" + dim + " keepdim=" + keepdim;
        GradCheck.check("max" + what, t -> t.max(dim, keepdim).values(), x);
        GradCheck.check("min" + what, t -> t.min(dim, keepdim).values(), x);
      }
    }
    GradCheck.check(
        "max of a transposed leaf", t -> t.max(1, false).values(), distinct(d, 4, 3).t());
  }

  // ---------------------------------------------------------------- linear algebra

  @ParameterizedTest
  @MethodSource(DEVICES)
  void matmulRanks(Device d) {
    GradCheck.Fn2 mm = (a, b) -> a.matmul(b);
    GradCheck.check("[4] x [4]", mm, randn(d, 4), randn(d, 4));
    GradCheck.check("[4] x [4,3]", mm, randn(d, 4), randn(d, 4, 3));
    GradCheck.check("[2,4] x [4]", mm, randn(d, 2, 4), randn(d, 4));
    GradCheck.check("[2,4] x [4,3]", mm, randn(d, 2, 4), randn(d, 4, 3));
    GradCheck.check("[5,2,4] x [4,3]", mm, randn(d, 5, 2, 4), randn(d, 4, 3));
    GradCheck.check("[2,4] x [5,4,3]", mm, randn(d, 2, 4), randn(d, 5, 4, 3));
    GradCheck.check("[5,2,4] x [4]", mm, randn(d, 5, 2, 4), randn(d, 4));
    GradCheck.check("[4] x [5,4,3]", mm, randn(d, 4), randn(d, 5, 4, 3));
    GradCheck.check("[5,2,4] x [5,4,3]", mm, randn(d, 5, 2, 4), randn(d, 5, 4, 3));
    GradCheck.check("[2,1,2,4] x [3,4,3]", mm, randn(d, 2, 1, 2, 4), randn(d, 3, 4, 3));
    GradCheck.check("[1,2,4] x [3,4,3]", mm, randn(d, 1, 2, 4), randn(d, 3, 4, 3));
    GradCheck.check("[3,1,2,4] x [1,5,4,2]", mm, randn(d, 3, 1, 2, 4), randn(d, 1, 5, 4, 2));
    GradCheck.check("[1,4] x [4,1]", mm, randn(d, 1, 4), randn(d, 4, 1));
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void matmulWithEmptyDims(Device d) {
    GradCheck.Fn2 mm = (a, b) -> a.matmul(b);
    GradCheck.check("[2,0] x [0,3]", mm, randn(d, 2, 0), randn(d, 0, 3));
    GradCheck.check("[0,4] x [4,3]", mm, randn(d, 0, 4), randn(d, 4, 3));
    GradCheck.check("[3,0,4] x [4,2]", mm, randn(d, 3, 0, 4), randn(d, 4, 2));
    GradCheck.check("[2,2,0] x [2,0,3]", mm, randn(d, 2, 2, 0), randn(d, 2, 0, 3));
    GradCheck.check("[0,2,4] x [4,3]", mm, randn(d, 0, 2, 4), randn(d, 4, 3));
    GradCheck.check("[2,4] x [0,4,3]", mm, randn(d, 2, 4), randn(d, 0, 4, 3));
    GradCheck.check("[0] x [0]", mm, randn(d, 0), randn(d, 0));
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void matmulTransposedOperands(Device d) {
    GradCheck.Fn2 mm = (a, b) -> a.matmul(b);
    GradCheck.check("transposed leaves", mm, randn(d, 4, 2).t(), randn(d, 3, 4).t());
    GradCheck.check(
        "transposed in the function",
        (a, b) -> a.t().matmul(b.t()),
        randn(d, 4, 2),
        randn(d, 3, 4));
    GradCheck.check(
        "batched transposed leaves",
        mm,
        randn(d, 5, 4, 2).transpose(1, 2),
        randn(d, 5, 3, 4).transpose(-1, -2));
    GradCheck.check("batch-first permuted", mm, randn(d, 2, 5, 4).permute(1, 0, 2), randn(d, 4, 3));
    GradCheck.check(
        "strided slices",
        (a, b) -> a.slice(1, 0, 8, 2).matmul(b.slice(0, 1, 8, 2)),
        randn(d, 2, 8),
        randn(d, 8, 3));
    GradCheck.check("the same operand twice", a -> a.matmul(a.t()), randn(d, 3, 4));
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void softmaxOnEachDim(Device d) {
    Tensor x = randn(d, 2, 3, 4);
    for (int dim : new int[] {0, 1, 2, -1}) {
      GradCheck.check("softmax dim " + dim, t -> t.softmax(dim), x);
    }
    GradCheck.check("softmax of a transposed leaf", t -> t.softmax(1), randn(d, 4, 3).t());
    GradCheck.check("softmax of a vector", t -> t.softmax(0), randn(d, 5));
    GradCheck.check("softmax of 0-dim", t -> t.softmax(0), randn(d));
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void logSoftmaxOnEachDim(Device d) {
    Tensor x = randn(d, 2, 3, 4);
    for (int dim : new int[] {0, 1, 2, -1}) {
      GradCheck.check("logSoftmax dim " + dim, t -> t.logSoftmax(dim), x);
    }
    GradCheck.check("logSoftmax of a transposed leaf", t -> t.logSoftmax(0), randn(d, 4, 3).t());
    GradCheck.check("logSoftmax of 0-dim", t -> t.logSoftmax(-1), randn(d));
  }

  // ---------------------------------------------------------------- indexing

  @ParameterizedTest
  @MethodSource(DEVICES)
  void gather(Device d) {
    Tensor x = randn(d, 3, 4);
    Tensor rows = longs(d, new long[] {0, 2, 2, 1, 1, 0, 2, 2}, 2, 4);
    GradCheck.check("dim 0, repeated indices", t -> t.gather(0, rows), x);
    Tensor cols = longs(d, new long[] {3, 3, 0, 1, 0, 1, 2, 2, 2}, 3, 3);
    GradCheck.check("dim 1, repeated indices", t -> t.gather(1, cols), x);
    Tensor small = longs(d, new long[] {1, 1, 3, 0}, 2, 2);
    GradCheck.check("dim -1, smaller index", t -> t.gather(-1, small), x);
    Tensor three = longs(d, new long[] {1, 0, 1, 1, 0, 0}, 1, 3, 2);
    GradCheck.check("3-d, dim 2", t -> t.gather(2, three), randn(d, 2, 3, 2));
    GradCheck.check("transposed leaf", t -> t.gather(1, cols), randn(d, 4, 3).t());
    GradCheck.check("gradient arriving broadcast", t -> t.gather(1, cols).sum(), x);
    GradCheck.check("0-dim", t -> t.gather(0, longs(d, new long[] {0})), randn(d));
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void indexSelect(Device d) {
    Tensor x = randn(d, 3, 4);
    Tensor rows = longs(d, new long[] {2, 0, 2}, 3);
    GradCheck.check("dim 0, repeated indices", t -> t.indexSelect(0, rows), x);
    Tensor cols = longs(d, new long[] {1, 1, 3, 0, 1}, 5);
    GradCheck.check("dim 1, repeated indices", t -> t.indexSelect(1, cols), x);
    GradCheck.check(
        "3-d, dim -1",
        t -> t.indexSelect(-1, longs(d, new long[] {1, 1, 0}, 3)),
        randn(d, 2, 3, 2));
    GradCheck.check("transposed leaf", t -> t.indexSelect(1, cols), randn(d, 4, 3).t());
    GradCheck.check("gradient arriving broadcast", t -> t.indexSelect(0, rows).mean(), x);
    GradCheck.check("0-dim index", t -> t.indexSelect(1, longs(d, new long[] {2})), x);
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void where(Device d) {
    Tensor cond = bools(d, new boolean[] {true, false, false, true, true, false}, 2, 3);
    GradCheck.check(
        "both branches", (a, b) -> Tensor.where(cond, a, b), randn(d, 2, 3), randn(d, 2, 3));
    GradCheck.check(
        "broadcast branches", (a, b) -> Tensor.where(cond, a, b), randn(d, 3), randn(d, 2, 1));
    Tensor row = bools(d, new boolean[] {false, true, true}, 3);
    GradCheck.check(
        "broadcast condition", (a, b) -> Tensor.where(row, a, b), randn(d, 2, 3), randn(d, 2, 3));
    GradCheck.check(
        "0-dim branch on the device", (a, b) -> Tensor.where(cond, a, b), randn(d), randn(d, 2, 3));
    GradCheck.check("constant other", a -> Tensor.where(cond, a, cpuScalar(0.5)), randn(d, 2, 3));
    GradCheck.check("constant input", b -> Tensor.where(cond, cpuScalar(-0.5), b), randn(d, 2, 3));
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void maskedFill(Device d) {
    Tensor mask = bools(d, new boolean[] {true, false, false, true, true, false}, 2, 3);
    GradCheck.check("same shape", t -> t.maskedFill(mask, -1.5), randn(d, 2, 3));
    Tensor row = bools(d, new boolean[] {false, true, false}, 3);
    GradCheck.check("broadcast mask", t -> t.maskedFill(row, 2.0), randn(d, 2, 3));
  }

  // ---------------------------------------------------------------- joins

  @ParameterizedTest
  @MethodSource(DEVICES)
  void cat(Device d) {
    GradCheck.check(
        "dim 0",
        (a, b, c) -> Tensor.cat(List.of(a, b, c), 0),
        randn(d, 2, 3),
        randn(d, 1, 3),
        randn(d, 4, 3));
    GradCheck.check(
        "dim 1", (a, b) -> Tensor.cat(List.of(a, b), 1), randn(d, 2, 1), randn(d, 2, 3));
    GradCheck.check(
        "dim -1 of 3-d",
        (a, b) -> Tensor.cat(List.of(a, b), -1),
        randn(d, 2, 3, 2),
        randn(d, 2, 3, 3));
    GradCheck.check(
        "the same tensor twice", a -> Tensor.cat(List.of(a, a.exp()), 0), randn(d, 2, 3));
    GradCheck.check(
        "with a constant", a -> Tensor.cat(List.of(a, Tensor.onesLike(a)), 1), randn(d, 2, 3));
    GradCheck.check(
        "non-contiguous parts",
        (a, b) -> Tensor.cat(List.of(a, b), 0),
        randn(d, 3, 2).t(),
        randn(d, 3, 3).slice(0, 0, 3, 2));
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void stack(Device d) {
    for (int dim : new int[] {0, 1, 2, -1}) {
      GradCheck.check(
          "dim " + dim,
          (a, b, c) -> Tensor.stack(List.of(a, b, c), dim),
          randn(d, 2, 3),
          randn(d, 2, 3),
          randn(d, 2, 3));
    }
    GradCheck.check("0-dim parts", (a, b) -> Tensor.stack(List.of(a, b), 0), randn(d), randn(d));
  }

  // ---------------------------------------------------------------- views

  @ParameterizedTest
  @MethodSource(DEVICES)
  void reshapeAndView(Device d) {
    Tensor x = randn(d, 2, 3, 4);
    GradCheck.check("reshape", t -> t.reshape(4, 6), x);
    GradCheck.check("reshape -1", t -> t.reshape(3, -1), x);
    GradCheck.check("reshape Shape", t -> t.reshape(Shape.of(24)), x);
    GradCheck.check(
        "reshape of a transposed tensor (a copy)", t -> t.transpose(0, 2).reshape(-1), x);
    GradCheck.check("view", t -> t.view(6, 4), x);
    GradCheck.check("view -1", t -> t.view(-1, 2), x);
    GradCheck.check(
        "view of a strided slice", t -> t.slice(0, 0, 4, 2).view(2, 2, 3), randn(d, 4, 2, 3));
    GradCheck.check("view of one element to 0-dim", t -> t.view(), randn(d, 1, 1));
    GradCheck.check("view of 0-dim", t -> t.view(1, 1), randn(d));
    GradCheck.check("reshape of 0-dim", t -> t.reshape(1), randn(d));
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void flatten(Device d) {
    Tensor x = randn(d, 2, 3, 4);
    GradCheck.check("all", Tensor::flatten, x);
    GradCheck.check("1..2", t -> t.flatten(1, 2), x);
    GradCheck.check("0..1", t -> t.flatten(0, 1), x);
    GradCheck.check("-2..-1", t -> t.flatten(-2, -1), x);
    GradCheck.check("non-contiguous", Tensor::flatten, randn(d, 4, 3).t());
    GradCheck.check("0-dim", Tensor::flatten, randn(d));
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void transposeAndT(Device d) {
    Tensor x = randn(d, 2, 3, 4);
    GradCheck.check("transpose 0,2", t -> t.transpose(0, 2), x);
    GradCheck.check("transpose -1,-2", t -> t.transpose(-1, -2), x);
    GradCheck.check("transpose same dim", t -> t.transpose(1, 1), x);
    GradCheck.check("t of a matrix", Tensor::t, randn(d, 2, 3));
    GradCheck.check("t of a vector", Tensor::t, randn(d, 3));
    GradCheck.check("t of t", t -> t.t().exp().t(), randn(d, 2, 3));
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void permute(Device d) {
    Tensor x = randn(d, 2, 3, 4);
    GradCheck.check("2,0,1", t -> t.permute(2, 0, 1), x);
    GradCheck.check("1,2,0", t -> t.permute(1, 2, 0), x);
    GradCheck.check("negative dims", t -> t.permute(-1, -3, -2), x);
    GradCheck.check("then nonlinear", t -> t.permute(2, 0, 1).square().permute(0, 2, 1), x);
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void sliceWithStep(Device d) {
    Tensor x = randn(d, 3, 5, 4);
    GradCheck.check("dim 1 step 1", t -> t.slice(1, 1, 4), x);
    GradCheck.check("dim 1 step 2", t -> t.slice(1, 0, 5, 2), x);
    GradCheck.check("dim 2 step 3", t -> t.slice(2, 1, 4, 3), x);
    GradCheck.check("negative bounds", t -> t.slice(0, -2, 100), x);
    GradCheck.check("negative dim", t -> t.slice(-1, -3, -1, 2), x);
    GradCheck.check(
        "slice of a slice", t -> t.slice(1, 1, 5, 2).slice(2, 0, 4, 2).slice(0, 1, 3), x);
    GradCheck.check("slice of a transposed leaf", t -> t.slice(0, 0, 4, 3), randn(d, 5, 4).t());
    GradCheck.check("empty slice", t -> t.slice(1, 2, 2).sum().add(t.sum()), x);
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void narrow(Device d) {
    Tensor x = randn(d, 3, 5, 4);
    GradCheck.check("dim 1", t -> t.narrow(1, 1, 3), x);
    GradCheck.check("dim -1, negative start", t -> t.narrow(-1, -3, 2), x);
    GradCheck.check("whole dim", t -> t.narrow(0, 0, 3), x);
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void selectAndGet(Device d) {
    Tensor x = randn(d, 3, 5, 4);
    GradCheck.check("select 0,1", t -> t.select(0, 1), x);
    GradCheck.check("select 1,-1", t -> t.select(1, -1), x);
    GradCheck.check("select -1,2", t -> t.select(-1, 2), x);
    GradCheck.check("get 2", t -> t.get(2), x);
    GradCheck.check("get 1,3", t -> t.get(1, 3), x);
    GradCheck.check("get to 0-dim", t -> t.get(1, 3, 0), x);
    GradCheck.check("two selects summed", t -> t.get(0).add(t.get(2)).mul(t.get(0)), x);
    GradCheck.check("select of a transposed leaf", t -> t.select(1, 1), randn(d, 4, 3).t());
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void squeezeAndUnsqueeze(Device d) {
    Tensor x = randn(d, 2, 1, 3, 1);
    GradCheck.check("squeeze all", Tensor::squeeze, x);
    GradCheck.check("squeeze 1", t -> t.squeeze(1), x);
    GradCheck.check("squeeze -1", t -> t.squeeze(-1), x);
    GradCheck.check("squeeze of a non-1 dim", t -> t.squeeze(0), x);
    Tensor y = randn(d, 2, 3);
    GradCheck.check("unsqueeze 0", t -> t.unsqueeze(0), y);
    GradCheck.check("unsqueeze 1", t -> t.unsqueeze(1), y);
    GradCheck.check("unsqueeze -1", t -> t.unsqueeze(-1), y);
    GradCheck.check("unsqueeze of 0-dim", t -> t.unsqueeze(0), randn(d));
    GradCheck.check("unsqueeze then squeeze", t -> t.unsqueeze(1).exp().squeeze(1), y);
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void expandAndExpandAs(Device d) {
    GradCheck.check("new leading dim", t -> t.expand(2, 3, 4), randn(d, 3, 1));
    GradCheck.check("-1 keeps a size", t -> t.expand(-1, 5), randn(d, 3, 1));
    GradCheck.check("size-1 dims in the middle", t -> t.expand(2, 4, 3), randn(d, 2, 1, 3));
    GradCheck.check("0-dim", t -> t.expand(2, 3), randn(d));
    GradCheck.check("no-op", t -> t.expand(2, 3), randn(d, 2, 3));
    Tensor target = Tensor.zeros(Shape.of(4, 2, 3), DType.FLOAT64, d);
    GradCheck.check("expandAs", t -> t.expandAs(target), randn(d, 1, 3));
    GradCheck.check("expand then nonlinear", t -> t.expand(3, 3).mul(t.t()), randn(d, 3, 1));
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void contiguousAndClone(Device d) {
    GradCheck.check("contiguous of a transposed tensor", t -> t.t().contiguous(), randn(d, 3, 4));
    GradCheck.check("contiguous of a contiguous tensor", Tensor::contiguous, randn(d, 3, 4));
    GradCheck.check("contiguous of a transposed leaf", Tensor::contiguous, randn(d, 4, 3).t());
    GradCheck.check("clone", Tensor::clone, randn(d, 3, 4));
    GradCheck.check("clone of an expanded view", t -> t.expand(3, 4).clone(), randn(d, 1, 4));
    GradCheck.check("clone then nonlinear", t -> t.clone().mul(t), randn(d, 3, 4));
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void chainOfViews(Device d) {
    GradCheck.check(
        "views",
        t ->
            t.permute(1, 0, 2)
                .slice(0, 0, 4, 2)
                .reshape(2, -1)
                .t()
                .unsqueeze(0)
                .expand(2, 6, 2)
                .select(2, 1),
        randn(d, 2, 4, 3));
  }

  // ---------------------------------------------------------------- devices and dtypes

  @ParameterizedTest
  @MethodSource(DEVICES)
  void toDevice(Device d) {
    Device o = other(d);
    GradCheck.check("there", t -> t.to(o).exp(), randn(d, 2, 3));
    GradCheck.check("there and back", t -> t.to(o).mul(2.0).to(d).sin(), randn(d, 2, 3));
    GradCheck.check("to the same device", t -> t.to(d).exp(), randn(d, 2, 3));
    GradCheck.check("non-contiguous", t -> t.to(o), randn(d, 3, 2).t());
    GradCheck.check("cpu() and cuda(0)", t -> t.cpu().cuda(0).cpu().tanh(), randn(d, 2, 3));
    GradCheck.check(
        "both devices in one graph", t -> t.to(o).exp().sum().to(d).add(t.mul(t)), randn(d, 2, 3));
    GradCheck.check("gradient arriving broadcast", t -> t.to(o).sum(), randn(d, 2, 3));
    GradCheck.check(
        "expanded on the other device", t -> t.to(o).expand(4, 3).to(d), randn(d, 1, 3));
    GradCheck.check(
        "through pinned memory", t -> t.cpu().pinMemory().to(d, true).exp(), randn(d, 2, 3));
    GradCheck.check(
        "non-blocking there and back", t -> t.to(o, true).mul(t.to(o)).to(d, true), randn(d, 2, 3));
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void toDtype(Device d) {
    Tensor x64 = randn(d, 2, 3).requiresGrad(true);
    Tensor w32 = Tensor.of(new float[] {1.5f, -2f, 0.25f, 3f, -0.5f, 1f}, Shape.of(2, 3), d);
    Tensor y32 = x64.to(DType.FLOAT32);
    assertEquals(DType.FLOAT32, y32.dtype());
    y32.mul(w32).sum().backward();
    assertEquals(DType.FLOAT64, x64.grad().dtype());
    assertEquals(d, x64.grad().device());
    assertArrayEquals(new double[] {1.5, -2, 0.25, 3, -0.5, 1}, x64.grad().toDoubleArray());

    Tensor x32 = Tensor.of(new float[] {0.5f, 1f, -1.5f}, Shape.of(3), d).requiresGrad(true);
    Tensor w64 = Tensor.of(new double[] {0.1, 0.2, 0.3}, Shape.of(3), d);
    x32.to(DType.FLOAT64).mul(w64).sum().backward();
    assertEquals(DType.FLOAT32, x32.grad().dtype());
    assertArrayEquals(new float[] {0.1f, 0.2f, 0.3f}, x32.grad().toFloatArray());

    assertSame(x64, x64.to(DType.FLOAT64));
    GradCheck.check("float64 to float64", t -> t.to(DType.FLOAT64).exp(), randn(d, 2, 3));
    GradCheck.check(
        "mixed float32 constant",
        t -> t.mul(Tensor.of(new float[] {2f, 3f}, Shape.of(2), d)),
        randn(d, 3, 2));
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void cpuScalarBesideDeviceTensor(Device d) {
    Tensor s = cpuScalar(1.3);
    GradCheck.check("x * s", (a, x) -> x.mul(a), s, randn(d, 2, 3));
    GradCheck.check("s * x", (a, x) -> a.mul(x), s, randn(d, 2, 3));
    GradCheck.check("x + s", (a, x) -> x.add(a), s, randn(d, 2, 3));
    GradCheck.check("s - x", (a, x) -> a.sub(x), s, randn(d, 2, 3));
    GradCheck.check("x / s", (a, x) -> x.div(a), s, randn(d, 2, 3));
    GradCheck.check("s / x", (a, x) -> a.div(x), s, awayFromZero(d, 2, 3));
    GradCheck.check("x ^ s", (a, x) -> x.pow(a), s, positive(d, 2, 3));
    GradCheck.check("s ^ x", (a, x) -> a.pow(x), s, randn(d, 2, 3));
    GradCheck.check("maximum", (a, x) -> x.maximum(a), s, distinct(d, 4, 6));
    Tensor cond = bools(d, new boolean[] {true, false, false, true, true, false}, 2, 3);
    GradCheck.check("where", (a, x) -> Tensor.where(cond, a, x), s, randn(d, 2, 3));
    GradCheck.check("used twice", (a, x) -> x.mul(a).add(a.mul(a)), s, randn(d, 2, 3));
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void float64CpuScalarBesideFloat32DeviceTensor(Device d) {
    Tensor s = cpuScalar(2.0).requiresGrad(true);
    Tensor x = Tensor.of(new float[] {0.5f, 1.5f, -1f}, Shape.of(3), d).requiresGrad(true);
    Tensor y = x.mul(s);
    assertEquals(DType.FLOAT32, y.dtype(), "a 0-dim tensor does not promote a dimensioned one");
    assertEquals(d, y.device());
    y.sum().backward();
    assertEquals(Device.cpu(), s.grad().device());
    assertEquals(DType.FLOAT64, s.grad().dtype());
    assertEquals(1.0, s.grad().item(), 1e-6);
    assertArrayEquals(new float[] {2f, 2f, 2f}, x.grad().toFloatArray());
  }

  // ---------------------------------------------------------------- at non-differentiable points

  /** PyTorch's choices where an op has no derivative: the subgradients autograd returns there. */
  @ParameterizedTest
  @MethodSource(DEVICES)
  void subgradientConventions(Device d) {
    assertArrayEquals(
        new double[] {0, 1, 0}, gradOf(t -> t.relu(), d, 0, 1, -1), "relu at 0 gives 0");
    assertArrayEquals(
        new double[] {0, 1, -1}, gradOf(t -> t.abs(), d, 0, 1, -1), "abs at 0 gives 0");
    assertArrayEquals(
        new double[] {1, 1, 1, 0},
        gradOf(t -> t.clamp(-1, 1), d, -1, 1, 0, 2),
        "clamp passes the gradient at its bounds");
    assertArrayEquals(
        new double[] {1, 0}, gradOf(t -> t.clampMin(0.5), d, 0.5, 0.2), "clampMin at its bound");
    assertArrayEquals(
        new double[] {1, 0}, gradOf(t -> t.clampMax(0.5), d, 0.5, 0.7), "clampMax at its bound");
    assertArrayEquals(
        new double[] {0.5, 0, 0.5}, gradOf(t -> t.max(), d, 3, 1, 3), "max splits among ties");
    assertArrayEquals(
        new double[] {0, 0.5, 0.5}, gradOf(t -> t.min(), d, 3, 1, 1), "min splits among ties");
    assertArrayEquals(
        new double[] {0.5, 1, 0},
        gradOf(t -> t.maximum(doubles(d, new double[] {1, 0, 2}, 3)), d, 1, 1, 1),
        "maximum gives half to each of a tie");
    assertArrayEquals(
        new double[] {0.5, 0, 1},
        gradOf(t -> t.minimum(doubles(d, new double[] {1, 0, 2}, 3)), d, 1, 1, 1),
        "minimum gives half to each of a tie");
    assertArrayEquals(
        new double[] {1, 0},
        gradOf(t -> t.max(0, false).values(), d, 2, 2),
        "max over a dim gives the gradient to the position it returns");
  }

  private static double[] gradOf(GradCheck.Fn1 f, Device d, double... values) {
    Tensor x = Tensor.of(values, Shape.of(values.length), d).requiresGrad(true);
    f.apply(x).sum().backward();
    return x.grad().toDoubleArray();
  }

  // ---------------------------------------------------------------- composites

  @ParameterizedTest
  @MethodSource(DEVICES)
  void mlpWithCrossEntropy(Device d) {
    Tensor x = randn(d, 4, 3);
    Tensor labels = longs(d, new long[] {2, 0, 1, 2}, 4, 1);
    GradCheck.check(
        "mlp",
        (w1, b1, w2) ->
            x.matmul(w1).add(b1).tanh().matmul(w2).logSoftmax(1).gather(1, labels).mean().neg(),
        randn(d, 3, 5),
        randn(d, 5),
        randn(d, 5, 3));
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void sharedSubexpressions(Device d) {
    GradCheck.check(
        "diamond",
        t -> {
          Tensor h = t.exp();
          return h.sin().mul(h.cos()).add(h);
        },
        randn(d, 2, 3));
    GradCheck.check(
        "normalise",
        t -> t.sub(t.mean(1, true)).div(t.std(new int[] {1}, false, true).add(0.1)),
        randn(d, 3, 4));
  }
}
