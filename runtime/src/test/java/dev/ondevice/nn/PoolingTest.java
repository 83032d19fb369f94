package dev.ondevice.nn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Generator;
import dev.ondevice.Pooling;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * MaxPool2d and AvgPool2d: values and gradients against loop references, NaN and ties, bad input.
 * Pooling layers have no state and need no move; ModelNotMoved, which the device analysis reports
 * for any model never moved, is suppressed where they meet device tensors.
 */
class PoolingTest {
  private static final String DEVICES = "dev.ondevice.TestDevices#all";

  /** Random values rounded to quarters, so that windows often hold ties. */
  private static Tensor tiedValues(DType dtype, Device device, long... shape) {
    return Tensor.randn(Shape.of(shape), dtype, device, new Generator(shape[0] * 7 + shape[3]))
        .mul(2.0)
        .round()
        .div(4.0);
  }

  /**
   * Checks forward values and the gradient (which flows to the first maximum) against the
   * reference.
   */
  private static void checkMaxPool(
      Device device, DType dtype, int n, int c, int h, int w, int k, int stride, int pad) {
    Tensor x = tiedValues(dtype, device, n, c, h, w).requiresGrad(true);
    MaxPool2d pool = new MaxPool2d(k, stride, pad);
    Tensor y = pool.forward(x);
    long[] positions = new long[(int) y.numel()];
    double[] expected =
        Reference.maxPool2d(x.toDoubleArray(), n * c, h, w, k, stride, pad, positions);
    String what = dtype + " " + h + "x" + w + " k" + k + " s" + stride + " p" + pad;
    assertEquals(dtype, y.dtype());
    assertEquals(device, y.device());
    Reference.assertClose("maxPool2d " + what, expected, y, 0);
    Tensor g = Tensor.randnLike(y);
    y.backward(g);
    double[] grad = new double[n * c * h * w];
    double[] gv = g.toDoubleArray();
    int perPlane = positions.length / (n * c);
    for (int t = 0; t < positions.length; t++) {
      grad[(t / perPlane) * h * w + (int) positions[t]] += gv[t];
    }
    Reference.assertClose("maxPool2d gradient " + what, grad, x.grad(), 1e-6);
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void maxPoolMatchesTheReferenceWithTiesOnEveryPath(Device device) {
    for (DType dtype : List.of(DType.FLOAT32, DType.FLOAT64)) {
      checkMaxPool(device, dtype, 2, 3, 6, 8, 2, 2, 0);
      checkMaxPool(device, dtype, 2, 2, 7, 5, 2, 2, 0);
      checkMaxPool(device, dtype, 1, 3, 7, 7, 3, 2, 1);
      checkMaxPool(device, dtype, 2, 1, 5, 6, 3, 1, 0);
      checkMaxPool(device, dtype, 1, 2, 6, 6, 2, 1, 1);
    }
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void aNaNWinsItsWindowAndTheFirstOfEqualMaximaIsKept(Device device) {
    for (DType dtype : List.of(DType.FLOAT32, DType.FLOAT64)) {
      for (int k : new int[] {2, 3}) {
        float nan = Float.NaN;
        float[] plane = {
          1, nan, 5, 5, -0f, 0, nan, 2, 5, 3, 0, -0f, -1, -2, 7, nan, 4, 4, -3, -1, 7, 7, 4, 9, 0,
          0, 1, 1, 2, 2, 0, 0, 1, 1, 2, 2
        };
        Tensor x = Tensor.of(plane, Shape.of(1, 1, 6, 6), device).to(dtype);
        Tensor y = Pooling.maxPool2d(x, k, k, 0);
        long[] positions = new long[(int) y.numel()];
        double[] expected = Reference.maxPool2d(x.toDoubleArray(), 1, 6, 6, k, k, 0, positions);
        Reference.assertClose("maxPool2d k" + k + " " + dtype, expected, y, 0);
        double[] values = y.toDoubleArray();
        for (int t = 0; t < values.length; t++) {
          assertEquals(
              Double.doubleToRawLongBits(expected[t]),
              Double.doubleToRawLongBits(values[t]),
              "the first of -0 and +0 is kept at " + t);
        }
        Tensor leaf = x.requiresGrad(true);
        Pooling.maxPool2d(leaf, k, k, 0).sum().backward();
        double[] grad = new double[36];
        for (long p : positions) {
          grad[(int) p] += 1;
        }
        Reference.assertClose("gradient positions k" + k + " " + dtype, grad, leaf.grad(), 0);
      }
    }
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  @SuppressWarnings("ModelNotMoved")
  void avgPoolMatchesTheReferenceCountingThePadding(Device device) {
    for (int[] cfg : new int[][] {{2, 2, 0}, {3, 2, 1}, {3, 1, 1}, {2, 1, 0}}) {
      Tensor x =
          Tensor.randn(Shape.of(2, 3, 5, 6), DType.FLOAT64, device, new Generator(cfg[0] + cfg[1]));
      Tensor y = new AvgPool2d(cfg[0], cfg[1], cfg[2]).forward(x);
      double[] expected = Reference.avgPool2d(x.toDoubleArray(), 6, 5, 6, cfg[0], cfg[1], cfg[2]);
      Reference.assertClose(
          "avgPool2d k" + cfg[0] + " s" + cfg[1] + " p" + cfg[2], expected, y, 1e-12);
      assertEquals(device, y.device());
    }
    Tensor image = Tensor.randn(Shape.of(3, 4, 4), device);
    assertEquals(Shape.of(3, 2, 2), new AvgPool2d(2).forward(image).shape());
    assertEquals(Shape.of(3, 2, 2), new MaxPool2d(2).forward(image).shape());
  }

  @Test
  @SuppressWarnings("DiscardedTensorOp")
  void poolingHasNoStateAndRejectsBadWindows() {
    assertEquals(0, new MaxPool2d(2).stateDict().size());
    assertEquals(0, new AvgPool2d(2).stateDict().size());
    IllegalArgumentException pad =
        assertThrows(IllegalArgumentException.class, () -> new MaxPool2d(2, 2, 2));
    assertEquals(
        "MaxPool2d: kernel and stride must be positive and padding between 0 and half the kernel, got"
            + " kernel=2, stride=2, padding=2",
        pad.getMessage());
    assertThrows(IllegalArgumentException.class, () -> new AvgPool2d(0));
    IllegalArgumentException functional =
        assertThrows(
            IllegalArgumentException.class,
            () -> Pooling.avgPool2d(Tensor.zeros(Shape.of(1, 1, 4, 4), Device.cpu()), 3, 1, 2));
    assertEquals(
        "avgPool2d: padding 2x2 must be at most half the kernel size 3x3", functional.getMessage());
    IllegalArgumentException rank =
        assertThrows(
            IllegalArgumentException.class,
            () -> new MaxPool2d(2).forward(Tensor.zeros(Shape.of(4, 4), Device.cpu())));
    assertEquals(
        "maxPool2d: expected a 3-d [C, H, W] or 4-d [N, C, H, W] input, got shape [4, 4]",
        rank.getMessage());
    IllegalArgumentException small =
        assertThrows(
            IllegalArgumentException.class,
            () -> new MaxPool2d(3).forward(Tensor.zeros(Shape.of(1, 1, 2, 5), Device.cpu())));
    assertEquals(
        "maxPool2d: the input of shape [1, 1, 2, 5] (padded to 2x5) is smaller than the 3x3 kernel",
        small.getMessage());
  }

  @Test
  void bothLayersDescribeAndCheckTheirWindowAlikeUnderTheirOwnNames() {
    assertEquals(
        "MaxPool2d(kernel_size=3, stride=2, padding=1)", new MaxPool2d(3, 2, 1).toString());
    assertEquals("AvgPool2d(kernel_size=2, stride=2, padding=0)", new AvgPool2d(2).toString());
    IllegalArgumentException stride =
        assertThrows(IllegalArgumentException.class, () -> new AvgPool2d(3, 0, 1));
    assertEquals(
        "AvgPool2d: kernel and stride must be positive and padding between 0 and half the kernel, got"
            + " kernel=3, stride=0, padding=1",
        stride.getMessage());
    IllegalArgumentException padding =
        assertThrows(IllegalArgumentException.class, () -> new MaxPool2d(3, 1, -1));
    assertEquals(
        "MaxPool2d: kernel and stride must be positive and padding between 0 and half the kernel, got"
            + " kernel=3, stride=1, padding=-1",
        padding.getMessage());
  }
}
