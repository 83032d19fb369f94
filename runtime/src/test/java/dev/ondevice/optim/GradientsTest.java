package dev.ondevice.optim;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.ondevice.Device;
import dev.ondevice.DeviceStats;
import dev.ondevice.Parameter;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Gradient clipping against hand-computed norms, on every test device. */
class GradientsTest {
  private static Parameter withGrad(Device d, double... grad) {
    Parameter p = new Parameter(Tensor.zeros(Shape.of(grad.length), d));
    double[] g = grad.clone();
    p.setGrad(Tensor.of(g, Shape.of(g.length), d).to(p.dtype()));
    return p;
  }

  private static double[] grad(Parameter p) {
    return p.grad().toDoubleArray();
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void clipNormScalesEveryGradientByOneFactor(Device d) {
    // grads [3, 4] and [0, 12]: total norm sqrt(9 + 16 + 144) = 13
    Parameter a = withGrad(d, 3, 4);
    Parameter b = withGrad(d, 0, 12);
    Parameter none = new Parameter(Tensor.zeros(Shape.of(2), d));
    DeviceStats.reset();
    Tensor norm = Gradients.clipNorm(List.of(a, none, b), 1.3);
    assertEquals(0, DeviceStats.of(d).syncs(), "clipping never waits for the device");
    assertEquals(d, norm.device());
    assertEquals(0, norm.dim());
    assertEquals(13.0, norm.item(), 1e-5);
    double scale = 1.3 / (13 + 1e-6);
    assertArrayEquals(new double[] {3 * scale, 4 * scale}, grad(a), 1e-6);
    assertArrayEquals(new double[] {0, 12 * scale}, grad(b), 1e-6);
    assertNull(none.grad());
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void clipNormLeavesGradientsWithinTheLimit(Device d) {
    Parameter a = withGrad(d, 3, 4);
    assertEquals(5.0, Gradients.clipNorm(List.of(a), 10).item(), 1e-6);
    assertArrayEquals(new double[] {3, 4}, grad(a), 1e-6);
    Parameter zero = withGrad(d, 0, 0);
    assertEquals(0.0, Gradients.clipNorm(List.of(zero), 1).item());
    assertArrayEquals(new double[] {0, 0}, grad(zero));
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void anInfiniteLimitMeasuresAndAZeroLimitZeroes(Device d) {
    Parameter a = withGrad(d, 3, 4);
    assertEquals(5.0, Gradients.clipNorm(List.of(a), Double.POSITIVE_INFINITY).item(), 1e-6);
    assertArrayEquals(new double[] {3, 4}, grad(a), 1e-6);
    assertEquals(5.0, Gradients.clipNorm(List.of(a), 0).item(), 1e-6);
    assertArrayEquals(new double[] {0, 0}, grad(a));
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void clipValueClampsEachElement(Device d) {
    Parameter a = withGrad(d, -3, 0.5, 2);
    Gradients.clipValue(List.of(a), 1);
    assertArrayEquals(new double[] {-1, 0.5, 1}, grad(a), 1e-7);
  }

  @Test
  void badLimitsAreRejectedWithTheirValue() {
    List<Parameter> none = List.of();
    assertEquals(0.0, Gradients.clipNorm(none, 1).item());
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> Gradients.clipNorm(none, -1));
    assertEquals("clipNorm: maxNorm must be a number >= 0, got -1.0", e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> Gradients.clipNorm(none, Double.NaN));
    assertThrows(IllegalArgumentException.class, () -> Gradients.clipValue(none, -1));
  }
}
