package dev.ondevice.internal.cpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ondevice.Convolution;
import dev.ondevice.Parameter;
import dev.ondevice.Tensor;
import dev.ondevice.internal.backend.ScalarType;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.ResourceBundle;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Float32 convolutions through oneDNN against float64 references, the Java kernels and finite
 * differences; and the Java kernels when oneDNN is disabled or cannot load.
 */
class DnnlConvolutionTest {
  private final String before = System.getProperty(Dnnl.PROPERTY);

  /** A convolution: input {@code [n,c,h,w]}, {@code o} filters of {@code kh x kw}. */
  record Case(
      int n, int c, int h, int w, int o, int kh, int kw, int stride, int pad, boolean bias) {
    int outH() {
      return (h + 2 * pad - kh) / stride + 1;
    }

    int outW() {
      return (w + 2 * pad - kw) / stride + 1;
    }
  }

  static Stream<Case> cases() {
    return Stream.of(
        new Case(2, 3, 7, 6, 4, 3, 3, 1, 1, true), // padding
        new Case(1, 2, 9, 8, 3, 3, 3, 2, 1, true), // stride 2, batch 1
        new Case(3, 4, 6, 7, 5, 2, 3, 2, 0, false), // a partial last window dropped, no bias
        new Case(2, 1, 5, 5, 2, 5, 5, 1, 2, true), // one input channel, kernel as large as input
        new Case(4, 16, 10, 10, 32, 3, 3, 1, 1, true)); // blocked layouts (16 channels)
  }

  @AfterEach
  void restoreProperty() {
    if (before == null) {
      System.clearProperty(Dnnl.PROPERTY);
    } else {
      System.setProperty(Dnnl.PROPERTY, before);
    }
  }

  @Test
  void oneDnnLoadsOnThisPlatformWhenAskedFor() {
    System.setProperty(Dnnl.PROPERTY, "true");
    assertTrue(Dnnl.get().isPresent(), "oneDNN did not load; the log says why");
    assertTrue(CpuBackend.cpu().conv2dKernels(ScalarType.FLOAT32).isPresent());
    assertFalse(
        CpuBackend.cpu().conv2dKernels(ScalarType.FLOAT64).isPresent(),
        "float64 convolutions stay on the Java kernels");
    assertTrue(Dnnl.status().startsWith("oneDNN"), Dnnl.status());
  }

  @Test
  void disabledItLeavesConvolutionsToTheJavaKernels() {
    System.setProperty(Dnnl.PROPERTY, "false");
    assertFalse(CpuBackend.cpu().conv2dKernels(ScalarType.FLOAT32).isPresent());
    assertTrue(Dnnl.status().contains("-Dondevice.cpu.dnnl=false"), Dnnl.status());
  }

  @Test
  void aLoadingFailureIsLoggedOnceAndNeverThrown() {
    RecordingLogger log = new RecordingLogger();
    Supplier<org.bytedeco.dnnl.engine> failing =
        () -> {
          throw new UnsatisfiedLinkError("no jnidnnl in java.library.path");
        };
    assertTrue(Dnnl.load(failing, log).isEmpty());
    assertEquals(1, log.messages.size());
    assertTrue(log.messages.get(0).contains("no jnidnnl"), log.messages.get(0));
    assertTrue(log.messages.get(0).contains("Java kernels"), log.messages.get(0));
  }

  @ParameterizedTest
  @MethodSource("cases")
  void oneDnnMatchesFloat64References(Case k) {
    checkAgainstReference(k, "true");
  }

  @ParameterizedTest
  @MethodSource("cases")
  void theJavaKernelsMatchFloat64References(Case k) {
    checkAgainstReference(k, "false");
  }

  @ParameterizedTest
  @MethodSource("cases")
  void oneDnnAndTheJavaKernelsAgree(Case k) {
    Operands in = Operands.random(k, 7);
    Result dnnl = run(k, in, "true");
    Result java = run(k, in, "false");
    assertClose("output", java.y, dnnl.y, 1e-5);
    assertClose("input gradient", java.gx, dnnl.gx, 1e-5);
    assertClose("weight gradient", java.gw, dnnl.gw, 1e-5);
    if (k.bias) {
      assertClose("bias gradient", java.gb, dnnl.gb, 1e-5);
    }
  }

  @Test
  void nonContiguousOperandsGiveTheContiguousResult() {
    System.setProperty(Dnnl.PROPERTY, "true");
    Case k = new Case(2, 3, 6, 5, 4, 3, 2, 1, 1, true);
    Operands in = Operands.random(k, 11);
    // The input stored as [n, c, w, h] and the weight as [kw, kh, c, o], both viewed back.
    Tensor xT = Tensor.of(in.x, k.n, k.c, k.h, k.w).transpose(2, 3).contiguous().transpose(2, 3);
    Tensor wT =
        Tensor.of(in.w, k.o, k.c, k.kh, k.kw).permute(3, 2, 1, 0).contiguous().permute(3, 2, 1, 0);
    assertFalse(xT.isContiguous());
    assertFalse(wT.isContiguous());
    Parameter x = new Parameter(xT);
    Parameter w = new Parameter(wT);
    Parameter b = new Parameter(Tensor.of(in.b, k.o));
    Tensor y = Convolution.conv2d(x, w, b, k.stride, k.pad);
    y.mul(Tensor.of(in.r, k.n, k.o, k.outH(), k.outW())).sum().backward();
    Result expected = run(k, in, "true");
    assertClose("output", expected.y, y.toDoubleArray(), 1e-6);
    assertClose("input gradient", expected.gx, x.grad().contiguous().toDoubleArray(), 1e-6);
    assertClose("weight gradient", expected.gw, w.grad().contiguous().toDoubleArray(), 1e-6);
  }

  @Test
  void gradientsMatchFiniteDifferences() {
    System.setProperty(Dnnl.PROPERTY, "true");
    for (Case k : List.of(cases().toList().get(1), cases().toList().get(2))) {
      Operands in = Operands.random(k, 3);
      Result analytic = run(k, in, "true");
      // The loss sum(conv(x, w) * r) is linear in each operand, so a central difference with a
      // large step is exact but for float32 rounding.
      double step = 0.5;
      Random pick = new Random(5);
      for (int t = 0; t < 6; t++) {
        int i = pick.nextInt(in.x.length);
        assertEquals(
            analytic.gx[i], centralDifference(k, in, in.x, i, step), 2e-3, "input element " + i);
        int j = pick.nextInt(in.w.length);
        assertEquals(
            analytic.gw[j], centralDifference(k, in, in.w, j, step), 2e-3, "weight element " + j);
        if (k.bias) {
          int m = pick.nextInt(in.b.length);
          assertEquals(
              analytic.gb[m], centralDifference(k, in, in.b, m, step), 2e-3, "bias element " + m);
        }
      }
    }
  }

  private static double centralDifference(Case k, Operands in, float[] operand, int i, double h) {
    float saved = operand[i];
    operand[i] = (float) (saved + h);
    double plus = loss(run(k, in, "true").y, in.r);
    operand[i] = (float) (saved - h);
    double minus = loss(run(k, in, "true").y, in.r);
    operand[i] = saved;
    return (plus - minus) / (2 * h);
  }

  private static double loss(double[] y, float[] r) {
    double s = 0;
    for (int i = 0; i < y.length; i++) {
      s += y[i] * r[i];
    }
    return s;
  }

  private void checkAgainstReference(Case k, String mode) {
    Operands in = Operands.random(k, 1);
    Result actual = run(k, in, mode);
    Result expected = reference(k, in);
    assertClose("output", expected.y, actual.y, 1e-5);
    assertClose("input gradient", expected.gx, actual.gx, 1e-5);
    assertClose("weight gradient", expected.gw, actual.gw, 1e-5);
    if (k.bias) {
      assertClose("bias gradient", expected.gb, actual.gb, 1e-5);
    } else {
      assertNull(actual.gb);
    }
  }

  /** Float32 operands and the weights {@code r} of the loss {@code sum(y * r)}. */
  static final class Operands {
    final float[] x;
    final float[] w;
    final float[] b;
    final float[] r;

    Operands(float[] x, float[] w, float[] b, float[] r) {
      this.x = x;
      this.w = w;
      this.b = b;
      this.r = r;
    }

    static Operands random(Case k, long seed) {
      Random rng = new Random(seed);
      return new Operands(
          normal(rng, k.n * k.c * k.h * k.w),
          normal(rng, k.o * k.c * k.kh * k.kw),
          normal(rng, k.o),
          normal(rng, k.n * k.o * k.outH() * k.outW()));
    }

    private static float[] normal(Random rng, int count) {
      float[] v = new float[count];
      for (int i = 0; i < count; i++) {
        v[i] = (float) rng.nextGaussian();
      }
      return v;
    }
  }

  /** The output and the gradients of {@code sum(y * r)}; {@code gb} null without a bias. */
  static final class Result {
    final double[] y;
    final double[] gx;
    final double[] gw;
    final double[] gb;

    Result(double[] y, double[] gx, double[] gw, double[] gb) {
      this.y = y;
      this.gx = gx;
      this.gw = gw;
      this.gb = gb;
    }
  }

  /**
   * The convolution and its gradients through the runtime, with {@code -Dondevice.cpu.dnnl=mode}.
   */
  private static Result run(Case k, Operands in, String mode) {
    String previous = System.getProperty(Dnnl.PROPERTY);
    System.setProperty(Dnnl.PROPERTY, mode);
    try {
      Parameter x = new Parameter(Tensor.of(in.x, k.n, k.c, k.h, k.w));
      Parameter w = new Parameter(Tensor.of(in.w, k.o, k.c, k.kh, k.kw));
      Parameter b = k.bias ? new Parameter(Tensor.of(in.b, k.o)) : null;
      Tensor y = Convolution.conv2d(x, w, b, k.stride, k.pad);
      y.mul(Tensor.of(in.r, k.n, k.o, k.outH(), k.outW())).sum().backward();
      return new Result(
          y.toDoubleArray(),
          x.grad().toDoubleArray(),
          w.grad().toDoubleArray(),
          b == null ? null : b.grad().toDoubleArray());
    } finally {
      if (previous == null) {
        System.clearProperty(Dnnl.PROPERTY);
      } else {
        System.setProperty(Dnnl.PROPERTY, previous);
      }
    }
  }

  /** The convolution and its gradients in float64, by their definitions. */
  private static Result reference(Case k, Operands in) {
    int oh = k.outH();
    int ow = k.outW();
    double[] y = new double[k.n * k.o * oh * ow];
    double[] gx = new double[in.x.length];
    double[] gw = new double[in.w.length];
    double[] gb = k.bias ? new double[k.o] : null;
    for (int n = 0; n < k.n; n++) {
      for (int o = 0; o < k.o; o++) {
        for (int p = 0; p < oh; p++) {
          for (int q = 0; q < ow; q++) {
            int out = ((n * k.o + o) * oh + p) * ow + q;
            double sum = k.bias ? in.b[o] : 0;
            double r = in.r[out];
            for (int c = 0; c < k.c; c++) {
              for (int i = 0; i < k.kh; i++) {
                for (int j = 0; j < k.kw; j++) {
                  int row = p * k.stride - k.pad + i;
                  int col = q * k.stride - k.pad + j;
                  if (row < 0 || row >= k.h || col < 0 || col >= k.w) {
                    continue;
                  }
                  int xi = ((n * k.c + c) * k.h + row) * k.w + col;
                  int wi = ((o * k.c + c) * k.kh + i) * k.kw + j;
                  sum += (double) in.x[xi] * in.w[wi];
                  gx[xi] += in.w[wi] * r;
                  gw[wi] += in.x[xi] * r;
                }
              }
            }
            y[out] = sum;
            if (gb != null) {
              gb[o] += r;
            }
          }
        }
      }
    }
    return new Result(y, gx, gw, gb);
  }

  /** Elementwise closeness relative to the largest expected magnitude. */
  private static void assertClose(String what, double[] expected, double[] actual, double rel) {
    assertEquals(expected.length, actual.length, what + ": element count");
    double scale = 1;
    for (double e : expected) {
      scale = Math.max(scale, Math.abs(e));
    }
    for (int i = 0; i < expected.length; i++) {
      assertEquals(expected[i], actual[i], rel * scale, what + ": element " + i);
    }
  }

  /** A logger that keeps what it is given. */
  private static final class RecordingLogger implements System.Logger {
    final List<String> messages = new ArrayList<>();

    @Override
    public String getName() {
      return "recording";
    }

    @Override
    public boolean isLoggable(Level level) {
      return true;
    }

    @Override
    public void log(Level level, ResourceBundle bundle, String msg, Throwable thrown) {
      messages.add(msg);
    }

    @Override
    public void log(Level level, ResourceBundle bundle, String format, Object... params) {
      messages.add(format);
    }
  }
}
