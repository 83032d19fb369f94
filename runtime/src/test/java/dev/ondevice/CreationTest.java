package dev.ondevice;

import static dev.ondevice.Close.assertBool;
import static dev.ondevice.Close.assertClose;
import static dev.ondevice.Close.assertF32;
import static dev.ondevice.Close.assertF64;
import static dev.ondevice.Close.assertI64;
import static dev.ondevice.Close.f32;
import static dev.ondevice.Close.meta;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Factories, dtypes, conversions, host reads and random numbers, on the CPU and an emulated cuda:0.
 */
class CreationTest {
  private static final Device CPU = Device.cpu();

  // ---------------------------------------------------------------- constant factories

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void zerosOverloads(Device d) {
    Tensor cpu = Tensor.zeros(2, 3);
    meta(cpu, DType.FLOAT32, CPU, 2, 3);
    assertF32(cpu, 0, 0, 0, 0, 0, 0);

    Tensor a = Tensor.zeros(Shape.of(2, 2), d);
    meta(a, DType.FLOAT32, d, 2, 2);
    assertF32(a, 0, 0, 0, 0);

    meta(Tensor.zeros(Shape.of(3), DType.INT64, d), DType.INT64, d, 3);
    assertI64(Tensor.zeros(Shape.of(3), DType.INT64, d), 0, 0, 0);
    assertF64(Tensor.zeros(Shape.of(2), DType.FLOAT64, d), 0, 0);
    assertBool(Tensor.zeros(Shape.of(2), DType.BOOL, d), false, false);

    meta(Tensor.zeros(4, d), DType.FLOAT32, d, 4);
    meta(Tensor.zeros(2, 3, d), DType.FLOAT32, d, 2, 3);
    meta(Tensor.zeros(1, 2, 3, d), DType.FLOAT32, d, 1, 2, 3);
    assertF32(Tensor.zeros(1, 2, 3, d), 0, 0, 0, 0, 0, 0);

    Tensor s = Tensor.zeros(Shape.scalar(), d);
    meta(s, DType.FLOAT32, d);
    assertEquals(0, s.dim());
    assertEquals(1, s.numel());
    assertEquals(0.0, s.item());

    Tensor empty = Tensor.zeros(Shape.of(0, 3), d);
    meta(empty, DType.FLOAT32, d, 0, 3);
    assertEquals(0, empty.numel());
    assertEquals(0, empty.toFloatArray().length);
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void onesOverloads(Device d) {
    Tensor cpu = Tensor.ones(3);
    meta(cpu, DType.FLOAT32, CPU, 3);
    assertF32(cpu, 1, 1, 1);
    assertF32(Tensor.ones(Shape.of(2, 1), d), 1, 1);
    meta(Tensor.ones(Shape.of(2, 1), d), DType.FLOAT32, d, 2, 1);
    assertI64(Tensor.ones(Shape.of(2), DType.INT64, d), 1, 1);
    assertF64(Tensor.ones(Shape.of(2), DType.FLOAT64, d), 1, 1);
    assertBool(Tensor.ones(Shape.of(2), DType.BOOL, d), true, true);
    meta(Tensor.ones(5, d), DType.FLOAT32, d, 5);
    meta(Tensor.ones(2, 4, d), DType.FLOAT32, d, 2, 4);
    assertEquals(8.0, Tensor.ones(2, 4, d).sum().item());
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void fullOverloads(Device d) {
    Tensor cpu = Tensor.full(Shape.of(2), 2.5);
    meta(cpu, DType.FLOAT32, CPU, 2);
    assertF32(cpu, 2.5, 2.5);

    Tensor a = Tensor.full(Shape.of(1, 3), -1.5, d);
    meta(a, DType.FLOAT32, d, 1, 3);
    assertF32(a, -1.5, -1.5, -1.5);

    assertI64(Tensor.full(Shape.of(2), 7, DType.INT64, d), 7, 7);
    // A fractional value is truncated towards zero for an integer dtype, as torch.full does.
    assertI64(Tensor.full(Shape.of(2), 2.9, DType.INT64, d), 2, 2);
    assertI64(Tensor.full(Shape.of(1), -2.9, DType.INT64, d), -2);
    assertBool(Tensor.full(Shape.of(2), 3, DType.BOOL, d), true, true);
    // float64 keeps the double exactly.
    Tensor f64 = Tensor.full(Shape.of(2), 0.1, DType.FLOAT64, d);
    assertArrayEquals(new double[] {0.1, 0.1}, f64.toDoubleArray());
    assertEquals((double) 0.1f, Tensor.full(Shape.of(1), 0.1, d).item());
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void eye(Device d) {
    Tensor e = Tensor.eye(3, d);
    meta(e, DType.FLOAT32, d, 3, 3);
    assertF32(e, 1, 0, 0, 0, 1, 0, 0, 0, 1);
    assertF32(Tensor.eye(1, d), 1);
    meta(Tensor.eye(0, d), DType.FLOAT32, d, 0, 0);
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void arangeOverloads(Device d) {
    Tensor a = Tensor.arange(5);
    meta(a, DType.INT64, CPU, 5);
    assertI64(a, 0, 1, 2, 3, 4);

    Tensor b = Tensor.arange(2, 6, d);
    meta(b, DType.INT64, d, 4);
    assertI64(b, 2, 3, 4, 5);
    assertI64(Tensor.arange(-3, -1, d), -3, -2);
    Tensor onCpu = Tensor.arange(2, 5);
    meta(onCpu, DType.INT64, CPU, 3);
    assertI64(onCpu, 2, 3, 4);
    meta(Tensor.arange(4, 4, d), DType.INT64, d, 0);

    Tensor c = Tensor.arange(0, 1, 0.25, DType.FLOAT32, d);
    meta(c, DType.FLOAT32, d, 4);
    assertF32(c, 0, 0.25, 0.5, 0.75);

    // ceil((2 - 1) / 0.3) = 4 elements.
    Tensor e = Tensor.arange(1, 2, 0.3, DType.FLOAT64, d);
    assertF64(e, 1, 1.3, 1.6, 1.9);

    // A negative step counts down; the end is excluded.
    assertI64(Tensor.arange(5, 0, -2, DType.INT64, d), 5, 3, 1);
    assertF32(Tensor.arange(1, -1, -0.5, DType.FLOAT32, d), 1, 0.5, 0, -0.5);
    meta(Tensor.arange(0, 0, 1, DType.FLOAT32, d), DType.FLOAT32, d, 0);
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void scalars(Device d) {
    Tensor s = Tensor.scalar(2.5);
    meta(s, DType.FLOAT32, CPU);
    assertEquals(2.5, s.item());

    Tensor l = Tensor.scalar(7L);
    meta(l, DType.INT64, CPU);
    assertEquals(7L, l.itemAsLong());

    Tensor on = Tensor.scalar(-1.25, d);
    meta(on, DType.FLOAT32, d);
    assertEquals(-1.25, on.item());
    assertEquals(0, on.dim());
  }

  // ---------------------------------------------------------------- of(...)

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void ofFloats(Device d) {
    Tensor v = Tensor.of(1f, 2.5f, -3f);
    meta(v, DType.FLOAT32, CPU, 3);
    assertF32(v, 1, 2.5, -3);

    Tensor m = Tensor.of(new float[] {1, 2, 3, 4, 5, 6}, 2, 3);
    meta(m, DType.FLOAT32, CPU, 2, 3);
    assertF32(m.select(1, 2), 3, 6);

    Tensor on = Tensor.of(new float[] {1, 2, 3, 4}, Shape.of(2, 2), d);
    meta(on, DType.FLOAT32, d, 2, 2);
    assertF32(on, 1, 2, 3, 4);

    Tensor rows = Tensor.of(new float[][] {{1, 2, 3}, {4, 5, 6}});
    meta(rows, DType.FLOAT32, CPU, 2, 3);
    assertF32(rows, 1, 2, 3, 4, 5, 6);

    Tensor scalar = Tensor.of(new float[] {4}, Shape.scalar(), d);
    meta(scalar, DType.FLOAT32, d);
    assertEquals(4.0, scalar.item());

    // The tensor holds a copy: changing the array afterwards changes nothing.
    float[] data = {1, 2};
    Tensor copy = Tensor.of(data, Shape.of(2), d);
    data[0] = 100;
    assertF32(copy, 1, 2);
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void ofDoubles(Device d) {
    Tensor v = Tensor.of(0.1, 0.2, 0.3);
    meta(v, DType.FLOAT64, CPU, 3);
    assertArrayEquals(new double[] {0.1, 0.2, 0.3}, v.toDoubleArray());
    meta(Tensor.of(new double[] {1, 2, 3, 4}, 4, 1), DType.FLOAT64, CPU, 4, 1);
    Tensor on = Tensor.of(new double[] {1e-300, 1e300}, Shape.of(2), d);
    meta(on, DType.FLOAT64, d, 2);
    assertArrayEquals(new double[] {1e-300, 1e300}, on.toDoubleArray());
    Tensor rows = Tensor.of(new double[][] {{1.5}, {2.5}});
    meta(rows, DType.FLOAT64, CPU, 2, 1);
    assertF64(rows, 1.5, 2.5);
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void ofLongsIntsAndBooleans(Device d) {
    long big = (1L << 53) + 1;
    Tensor l = Tensor.of(big, -1L, Long.MAX_VALUE);
    meta(l, DType.INT64, CPU, 3);
    assertI64(l, big, -1, Long.MAX_VALUE);
    meta(Tensor.of(new long[] {1, 2, 3, 4, 5, 6}, 3, 2), DType.INT64, CPU, 3, 2);
    Tensor on = Tensor.of(new long[] {big, 2}, Shape.of(2), d);
    meta(on, DType.INT64, d, 2);
    assertI64(on, big, 2);

    Tensor ints = Tensor.of(1, -2, 3);
    meta(ints, DType.INT64, CPU, 3);
    assertI64(ints, 1, -2, 3);

    Tensor b = Tensor.of(true, false, true);
    meta(b, DType.BOOL, CPU, 3);
    assertBool(b, true, false, true);
    Tensor b2 = Tensor.of(new boolean[] {true, false, false, true}, 2, 2).to(d);
    meta(b2, DType.BOOL, d, 2, 2);
    assertBool(b2, true, false, false, true);
  }

  // ---------------------------------------------------------------- *Like

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void likeFactoriesKeepShapeDtypeAndDevice(Device d) {
    Tensor i = Tensor.of(new long[] {1, 2, 3, 4, 5, 6}, Shape.of(2, 3), d);
    meta(Tensor.emptyLike(i), DType.INT64, d, 2, 3);
    meta(Tensor.zerosLike(i), DType.INT64, d, 2, 3);
    assertI64(Tensor.zerosLike(i), 0, 0, 0, 0, 0, 0);
    assertI64(Tensor.onesLike(i), 1, 1, 1, 1, 1, 1);
    assertI64(Tensor.fullLike(i, 3), 3, 3, 3, 3, 3, 3);

    Tensor f = Tensor.of(new double[] {1, 2}, Shape.of(2), d);
    meta(Tensor.zerosLike(f), DType.FLOAT64, d, 2);
    assertF64(Tensor.fullLike(f, 0.1), 0.1, 0.1);
    meta(Tensor.onesLike(Tensor.of(true).to(d)), DType.BOOL, d, 1);

    // Random *Like factories: float64 stays float64, anything else gives float32.
    meta(Tensor.randLike(f), DType.FLOAT64, d, 2);
    meta(Tensor.randnLike(f), DType.FLOAT64, d, 2);
    meta(Tensor.randLike(i), DType.FLOAT32, d, 2, 3);
    meta(Tensor.randnLike(i), DType.FLOAT32, d, 2, 3);
    for (double v : Tensor.randLike(i).toDoubleArray()) {
      assertTrue(v >= 0 && v < 1, "randLike value " + v);
    }
  }

  // ---------------------------------------------------------------- conversions and host reads

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void dtypeConversions(Device d) {
    Tensor f = f32(d, new float[] {-2.7f, -0.5f, 0f, 0.5f, 2.7f});
    assertSame(f, f.to(DType.FLOAT32));
    // float -> int64 truncates towards zero, as in PyTorch.
    Tensor l = f.to(DType.INT64);
    meta(l, DType.INT64, d, 5);
    assertI64(l, -2, 0, 0, 0, 2);
    assertBool(f.to(DType.BOOL), true, true, false, true, true);
    Tensor g = f.to(DType.FLOAT64);
    meta(g, DType.FLOAT64, d, 5);
    assertF64(g, -2.7f, -0.5, 0, 0.5, 2.7f);
    assertF32(Tensor.of(true, false).to(d).to(DType.FLOAT32), 1, 0);
    assertI64(Tensor.of(true, false).to(d).to(DType.INT64), 1, 0);
    assertF32(Tensor.of(3L, -4L).to(d).to(DType.FLOAT32), 3, -4);
    // float64 -> float32 rounds to nearest.
    assertEquals(
        (double) (float) 0.1,
        Tensor.of(new double[] {0.1}, Shape.of(1), d).to(DType.FLOAT32).item());
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void deviceMoves(Device d) {
    Tensor c = Tensor.of(1f, 2f);
    Tensor on = c.to(d);
    assertEquals(d, on.device());
    assertSame(on, on.to(d));
    assertSame(c, c.to(CPU));
    assertF32(on.cpu(), 1, 2);
    assertEquals(CPU, on.cpu().device());
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void hostReads(Device d) {
    assertEquals(2.5, Tensor.scalar(2.5, d).item());
    assertEquals(3.0, f32(d, new float[] {3}, 1, 1).item(), "a one-element tensor of any rank");
    long big = (1L << 40) + 1;
    assertEquals(big, Tensor.of(new long[] {big}, Shape.scalar(), d).itemAsLong());
    assertEquals((double) big, Tensor.of(new long[] {big}, Shape.scalar(), d).item());
    assertEquals(2L, Tensor.scalar(2.7, d).itemAsLong());
    assertEquals(-2L, Tensor.scalar(-2.7, d).itemAsLong());
    assertTrue(Tensor.scalar(0.5, d).itemAsBoolean());
    assertFalse(Tensor.scalar(0.0, d).itemAsBoolean());

    Tensor f = f32(d, new float[] {-2.7f, 0f, 0.5f, Float.NaN});
    assertArrayEquals(new float[] {-2.7f, 0f, 0.5f, Float.NaN}, f.toFloatArray());
    assertArrayEquals(new double[] {-2.7f, 0, 0.5, Double.NaN}, f.toDoubleArray());
    assertArrayEquals(new long[] {-2, 0, 0}, f.slice(0, 0, 3).toLongArray());
    assertArrayEquals(new boolean[] {true, false, true, true}, f.toBooleanArray());

    Tensor big64 = Tensor.of(new long[] {Long.MAX_VALUE, Long.MIN_VALUE}, Shape.of(2), d);
    assertArrayEquals(new long[] {Long.MAX_VALUE, Long.MIN_VALUE}, big64.toLongArray());
    Tensor dbl = Tensor.of(new double[] {0.1, 1e-40}, Shape.of(2), d);
    assertArrayEquals(new double[] {0.1, 1e-40}, dbl.toDoubleArray());
    assertArrayEquals(new float[] {0.1f, 1e-40f}, dbl.toFloatArray());

    // A non-contiguous view reads in its own row-major order.
    Tensor m = f32(d, new float[] {1, 2, 3, 4, 5, 6}, 2, 3).t();
    assertArrayEquals(new float[] {1, 4, 2, 5, 3, 6}, m.toFloatArray());
    assertArrayEquals(new long[] {1, 4, 2, 5, 3, 6}, m.toLongArray());
    assertArrayEquals(new double[] {2, 5}, m.select(0, 1).toDoubleArray());
  }

  // ---------------------------------------------------------------- random numbers

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void randOverloadsAndRange(Device d) {
    meta(Tensor.rand(2, 3), DType.FLOAT32, CPU, 2, 3);
    meta(Tensor.rand(Shape.of(4), d), DType.FLOAT32, d, 4);
    meta(Tensor.rand(7, d), DType.FLOAT32, d, 7);
    meta(Tensor.rand(2, 5, d), DType.FLOAT32, d, 2, 5);
    meta(Tensor.rand(Shape.of(3), DType.FLOAT64, d, new Generator(1)), DType.FLOAT64, d, 3);

    int n = 100_000;
    Tensor u = Tensor.rand(Shape.of(n), DType.FLOAT32, d, new Generator(7));
    double[] v = u.toDoubleArray();
    double sum = 0;
    double sq = 0;
    int below = 0;
    for (double x : v) {
      assertTrue(x >= 0 && x < 1, "rand value " + x + " outside [0, 1)");
      sum += x;
      sq += x * x;
      below += x < 0.25 ? 1 : 0;
    }
    double mean = sum / n;
    assertEquals(0.5, mean, 0.01);
    assertEquals(1.0 / 12, sq / n - mean * mean, 0.003);
    assertEquals(0.25, (double) below / n, 0.01);
    assertEquals(mean, u.mean().item(), 1e-6, "mean() agrees with the host");

    double[] w = Tensor.rand(Shape.of(n), DType.FLOAT64, d, new Generator(8)).toDoubleArray();
    double m64 = 0;
    for (double x : w) {
      assertTrue(x >= 0 && x < 1);
      m64 += x;
    }
    assertEquals(0.5, m64 / n, 0.01);
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void randnOverloadsAndMoments(Device d) {
    meta(Tensor.randn(3), DType.FLOAT32, CPU, 3);
    meta(Tensor.randn(Shape.of(2, 2), d), DType.FLOAT32, d, 2, 2);
    meta(Tensor.randn(5, d), DType.FLOAT32, d, 5);
    meta(Tensor.randn(2, 3, d), DType.FLOAT32, d, 2, 3);
    meta(Tensor.randn(2, 3, 4, d), DType.FLOAT32, d, 2, 3, 4);
    meta(Tensor.randn(1, 2, 3, 4, d), DType.FLOAT32, d, 1, 2, 3, 4);

    int n = 100_000;
    for (DType t : new DType[] {DType.FLOAT32, DType.FLOAT64}) {
      Tensor z = Tensor.randn(Shape.of(n), t, d, new Generator(11));
      meta(z, t, d, n);
      double[] v = z.toDoubleArray();
      double sum = 0;
      double sq = 0;
      int within1 = 0;
      for (double x : v) {
        assertTrue(Double.isFinite(x));
        sum += x;
        sq += x * x;
        within1 += Math.abs(x) < 1 ? 1 : 0;
      }
      double mean = sum / n;
      double std = Math.sqrt(sq / n - mean * mean);
      assertEquals(0, mean, 0.02, t + " mean");
      assertEquals(1, std, 0.02, t + " std");
      assertEquals(0.6827, (double) within1 / n, 0.01, t + " mass within one sigma");
    }
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void randintRange(Device d) {
    Tensor cpu = Tensor.randint(0, 2, Shape.of(3));
    meta(cpu, DType.INT64, CPU, 3);
    meta(Tensor.randint(0, 10, Shape.of(2, 2), d), DType.INT64, d, 2, 2);

    Tensor r = Tensor.randint(-3, 4, Shape.of(20_000), d, new Generator(5));
    meta(r, DType.INT64, d, 20_000);
    int[] counts = new int[7];
    for (long v : r.toLongArray()) {
      assertTrue(v >= -3 && v < 4, "randint value " + v + " outside [-3, 4)");
      counts[(int) (v + 3)]++;
    }
    for (int c : counts) {
      assertEquals(20_000 / 7.0, c, 300, "every value is about equally likely");
    }
    // A one-value range gives that value.
    assertI64(Tensor.randint(9, 10, Shape.of(3), d), 9, 9, 9);
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void bernoulli(Device d) {
    Tensor zeros = Tensor.bernoulli(0.0, Shape.of(1000), d);
    meta(zeros, DType.FLOAT32, d, 1000);
    assertEquals(0.0, zeros.sum().item());
    Tensor ones = Tensor.bernoulli(1.0, Shape.of(1000), d);
    assertEquals(1000.0, ones.sum().item());

    int n = 100_000;
    double frac = Tensor.bernoulli(0.3, Shape.of(n), d).mean().item();
    assertEquals(0.3, frac, 0.01);
    for (double v : Tensor.bernoulli(0.5, Shape.of(100), d).toDoubleArray()) {
      assertTrue(v == 0 || v == 1);
    }

    // Per-element probabilities; dtype and device of p.
    Tensor p = Tensor.of(new double[] {0, 1, 0, 1, 1}, Shape.of(5), d);
    Tensor b = Tensor.bernoulli(p);
    meta(b, DType.FLOAT64, d, 5);
    assertF64(b, 0, 1, 0, 1, 1);
    assertF64(Tensor.bernoulli(p, new Generator(3)), 0, 1, 0, 1, 1);
    // Non-contiguous p.
    Tensor pt = f32(d, new float[] {0, 1, 0, 1, 0, 1}, 2, 3).t();
    assertF32(Tensor.bernoulli(pt), 0, 1, 1, 0, 0, 1);
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void sameSeedGivesSameNumbersOnEveryDevice(Device d) {
    float[] uCpu =
        Tensor.rand(Shape.of(1000), DType.FLOAT32, CPU, new Generator(42)).toFloatArray();
    float[] uDev = Tensor.rand(Shape.of(1000), DType.FLOAT32, d, new Generator(42)).toFloatArray();
    assertArrayEquals(uCpu, uDev);

    Generator g1 = new Generator(43);
    Generator g2 = new Generator(43);
    double[] n1 = Tensor.randn(Shape.of(500), DType.FLOAT64, CPU, g1).toDoubleArray();
    double[] n2 = Tensor.randn(Shape.of(500), DType.FLOAT64, d, g2).toDoubleArray();
    // Normal draws go through log and cos, which a GPU's math library rounds its own way: the
    // same draws to a few units in the last place. (Uniform and integer draws are bit for bit.)
    for (int i = 0; i < n1.length; i++) {
      assertEquals(n1[i], n2[i], 16 * Math.ulp(n1[i]), "draw " + i);
    }
    // The generators advanced alike: the next draws agree too, and differ from the first.
    long[] i1 = Tensor.randint(0, 1000, Shape.of(200), CPU, g1).toLongArray();
    long[] i2 = Tensor.randint(0, 1000, Shape.of(200), d, g2).toLongArray();
    assertArrayEquals(i1, i2);
    float[] b1 = Tensor.bernoulli(Tensor.full(Shape.of(300), 0.5), g1).toFloatArray();
    float[] b2 = Tensor.bernoulli(Tensor.full(Shape.of(300), 0.5, d), g2).toFloatArray();
    assertArrayEquals(b1, b2);
    float[] again1 = Tensor.rand(Shape.of(1000), DType.FLOAT32, CPU, g1).toFloatArray();
    assertFalse(java.util.Arrays.equals(uCpu, again1), "a generator moves on after a draw");

    float[] other = Tensor.rand(Shape.of(1000), DType.FLOAT32, d, new Generator(44)).toFloatArray();
    assertFalse(java.util.Arrays.equals(uCpu, other), "another seed gives other numbers");

    Generator g = new Generator(45);
    float[] first = Tensor.rand(Shape.of(10), DType.FLOAT32, d, g).toFloatArray();
    g.reseed(45);
    assertArrayEquals(first, Tensor.rand(Shape.of(10), DType.FLOAT32, CPU, g).toFloatArray());
    assertEquals(45, g.seed());
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void manualSeedRestartsTheDefaultGenerator(Device d) {
    Generator.manualSeed(123);
    float[] a = Tensor.rand(Shape.of(50), d).toFloatArray();
    float[] b = Tensor.randn(Shape.of(50), d).toFloatArray();
    Generator.manualSeed(123);
    assertArrayEquals(a, Tensor.rand(Shape.of(50), CPU).toFloatArray());
    assertArrayEquals(b, Tensor.randn(Shape.of(50), d).toFloatArray());
    assertEquals(123, Generator.defaultGenerator().seed());
    Generator.manualSeed(124);
    assertNotEquals(a[0], Tensor.rand(Shape.of(50), d).toFloatArray()[0]);
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void propertiesOfATensor(Device d) {
    Tensor t = Tensor.zeros(Shape.of(2, 3, 4), d);
    assertEquals(3, t.dim());
    assertEquals(24, t.numel());
    assertEquals(4, t.size(-1));
    assertEquals(2, t.size(0));
    assertArrayEquals(new long[] {12, 4, 1}, t.strides());
    assertTrue(t.isContiguous());
    assertFalse(t.transpose(0, 2).isContiguous());
    assertClose(t.toDoubleArray(), new double[24], 0, 0);
  }
}
