package dev.ondevice.nn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ondevice.Convolution;
import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.DeviceMismatchException;
import dev.ondevice.Generator;
import dev.ondevice.Parameter;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Conv2d and Convolution.conv2d: values against a loop reference, initialisation, devices, state,
 * bad input.
 */
class ConvolutionTest {
  private static final String DEVICES = "dev.ondevice.TestDevices#all";
  private static final Device CUDA = Device.cuda(0);

  private static Tensor randn(Device device, long... shape) {
    return Tensor.randn(
        Shape.of(shape), DType.FLOAT64, device, new Generator(shape.length * 31L + shape[0]));
  }

  /** Checks conv2d of random float64 operands against the loop reference. */
  private static void checkAgainstReference(
      Device device,
      int n,
      int c,
      int h,
      int w,
      int o,
      int kh,
      int kw,
      boolean bias,
      int stride,
      int pad) {
    Tensor x = randn(device, n, c, h, w);
    Tensor weight = randn(device, o, c, kh, kw);
    Tensor b = bias ? randn(device, o) : null;
    Tensor y = Convolution.conv2d(x, weight, b, stride, pad);
    double[] expected =
        Reference.conv2d(
            x.toDoubleArray(),
            n,
            c,
            h,
            w,
            weight.toDoubleArray(),
            o,
            kh,
            kw,
            bias ? b.toDoubleArray() : null,
            stride,
            pad);
    assertEquals(
        Shape.of(n, o, (h + 2 * pad - kh) / stride + 1, (w + 2 * pad - kw) / stride + 1),
        y.shape());
    assertEquals(device, y.device());
    assertEquals(DType.FLOAT64, y.dtype());
    Reference.assertClose(
        "conv2d " + n + "x" + c + "x" + h + "x" + w + " k" + kh + "x" + kw + " s" + stride + " p"
            + pad,
        expected,
        y,
        1e-12);
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void conv2dMatchesTheLoopReference(Device device) {
    checkAgainstReference(device, 2, 3, 5, 6, 4, 3, 3, true, 1, 1);
    checkAgainstReference(device, 3, 2, 7, 7, 5, 3, 3, false, 2, 0);
    checkAgainstReference(device, 1, 4, 4, 5, 3, 1, 1, true, 1, 0);
    checkAgainstReference(device, 2, 2, 6, 5, 2, 3, 2, true, 2, 2);
    checkAgainstReference(device, 2, 1, 3, 3, 2, 5, 5, true, 1, 1);
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void theLayerComputesInFloat32AndAcceptsUnbatchedImages(Device device) {
    Conv2d conv = new Conv2d(3, 4, 3, 1, 1, true, device);
    Tensor x = Tensor.randn(Shape.of(2, 3, 6, 5), device);
    Tensor y = conv.forward(x);
    assertEquals(DType.FLOAT32, y.dtype());
    assertEquals(device, y.device());
    double[] expected =
        Reference.conv2d(
            x.toDoubleArray(),
            2,
            3,
            6,
            5,
            conv.weight().toDoubleArray(),
            4,
            3,
            3,
            conv.bias().toDoubleArray(),
            1,
            1);
    Reference.assertClose("Conv2d float32", expected, y, 1e-5);
    Tensor single = conv.forward(x.select(0, 1));
    assertEquals(Shape.of(4, 6, 5), single.shape());
    Reference.assertClose("unbatched", y.select(0, 1).toDoubleArray(), single, 1e-6);
  }

  @ParameterizedTest
  @MethodSource(DEVICES)
  void aFloat64InputPromotesAndGradientsReachTheFloat32Parameters(Device device) {
    Conv2d conv = new Conv2d(2, 3, 3, 1, 0, true, device);
    Tensor y = conv.forward(randn(device, 2, 2, 4, 4));
    assertEquals(DType.FLOAT64, y.dtype());
    y.sum().backward();
    assertEquals(DType.FLOAT32, conv.weight().grad().dtype());
    assertEquals(device, conv.weight().grad().device());
    assertEquals(Shape.of(3, 2, 3, 3), conv.weight().grad().shape());
    Reference.assertClose(
        "bias gradient: one per output position", new double[] {8, 8, 8}, conv.bias().grad(), 0);
  }

  @Test
  void initialisationIsUniformWithinOneOverSqrtFanIn() {
    Conv2d conv = new Conv2d(3, 16, 5);
    double bound = 1 / Math.sqrt(3 * 5 * 5);
    for (Parameter p : List.of(conv.weight(), conv.bias())) {
      for (double v : p.toDoubleArray()) {
        assertTrue(Math.abs(v) <= bound, "initial value " + v + " exceeds the bound " + bound);
      }
    }
    double[] weights = conv.weight().toDoubleArray();
    double max = 0;
    double sum = 0;
    for (double v : weights) {
      max = Math.max(max, Math.abs(v));
      sum += v;
    }
    assertTrue(
        max > 0.95 * bound, "1200 weights should reach the ends of the interval, largest " + max);
    assertTrue(
        Math.abs(sum / weights.length) < 0.1 * bound,
        "weights should centre on 0, mean " + sum / weights.length);
    assertEquals(Shape.of(16, 3, 5, 5), conv.weight().shape());
    assertEquals(Shape.of(16), conv.bias().shape());
  }

  @Test
  void aLayerCreatedOnADeviceHasItsParametersThereAndOnlyWeightWithoutBias() {
    Conv2d conv = new Conv2d(2, 3, 3, 2, 1, false, CUDA);
    assertEquals(CUDA, conv.weight().device());
    assertNull(conv.bias());
    assertEquals(List.of("weight"), List.copyOf(conv.stateDict().keySet()));
    assertEquals(List.of("weight", "bias"), List.copyOf(new Conv2d(1, 1, 1).stateDict().keySet()));
  }

  @Test
  void movingTheLayerKeepsItsParametersAndItsOutputFollows() {
    Conv2d conv = new Conv2d(1, 2, 3);
    Parameter weight = conv.weight();
    Tensor x = Tensor.randn(Shape.of(1, 1, 5, 5), Device.cpu());
    double[] onCpu = conv.forward(x).toDoubleArray();
    conv.toDevice(CUDA);
    assertSame(weight, conv.weight());
    assertEquals(CUDA, conv.bias().device());
    Tensor y = conv.forward(x.to(CUDA));
    assertEquals(CUDA, y.device());
    Reference.assertClose("same values on cuda:0", onCpu, y, 1e-6);
  }

  @Test
  @SuppressWarnings("MixedDevices")
  void anInputOnAnotherDeviceThanTheLayerIsADeviceMismatch() {
    Conv2d conv = new Conv2d(1, 2, 3, 1, 0, true, CUDA);
    DeviceMismatchException e =
        assertThrows(
            DeviceMismatchException.class,
            () -> conv.forward(Tensor.zeros(Shape.of(1, 1, 4, 4), Device.cpu())));
    assertEquals("weight", e.argument());
    assertEquals("conv2d", e.op());
  }

  @Test
  @SuppressWarnings("DiscardedTensorOp")
  void badInputsAreReportedWithTheShapes() {
    Conv2d conv = new Conv2d(3, 4, 3);
    IllegalArgumentException rank =
        assertThrows(
            IllegalArgumentException.class,
            () -> conv.forward(Tensor.zeros(Shape.of(3, 8), Device.cpu())));
    assertEquals(
        "conv2d: expected a 3-d [C, H, W] or 4-d [N, C, H, W] input, got shape [3, 8]",
        rank.getMessage());
    IllegalArgumentException channels =
        assertThrows(
            IllegalArgumentException.class,
            () -> conv.forward(Tensor.zeros(Shape.of(2, 1, 8, 8), Device.cpu())));
    assertEquals(
        "conv2d: the input of shape [2, 1, 8, 8] has 1 channels but the weight of shape [4, 3, 3, 3]"
            + " expects 3",
        channels.getMessage());
    IllegalArgumentException small =
        assertThrows(
            IllegalArgumentException.class,
            () -> conv.forward(Tensor.zeros(Shape.of(1, 3, 2, 8), Device.cpu())));
    assertEquals(
        "conv2d: the input of shape [1, 3, 2, 8] (padded to 2x8) is smaller than the 3x3 kernel",
        small.getMessage());
    IllegalArgumentException integers =
        assertThrows(
            IllegalArgumentException.class,
            () -> conv.forward(Tensor.zeros(Shape.of(1, 3, 4, 4), DType.INT64, Device.cpu())));
    assertTrue(
        integers
            .getMessage()
            .startsWith("conv2d: argument 'input' must have a floating-point dtype"),
        integers.getMessage());
    IllegalArgumentException bias =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                Convolution.conv2d(
                    Tensor.zeros(Shape.of(1, 3, 4, 4), Device.cpu()),
                    conv.weight(),
                    Tensor.zeros(Shape.of(5), Device.cpu()),
                    1,
                    0));
    assertEquals(
        "conv2d: bias must have shape [4] for the weight of shape [4, 3, 3, 3], got [5]",
        bias.getMessage());
    assertThrows(IllegalArgumentException.class, () -> new Conv2d(0, 4, 3));
    assertThrows(IllegalArgumentException.class, () -> new Conv2d(1, 4, 3, 0, 0, true));
  }
}
