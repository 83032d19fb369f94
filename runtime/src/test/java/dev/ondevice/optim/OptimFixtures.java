package dev.ondevice.optim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Parameter;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.TestDevices;
import java.util.Arrays;
import java.util.stream.Stream;
import org.junit.jupiter.api.function.Executable;

/** Devices, parameters and assertions shared by the optimizer tests. */
final class OptimFixtures {
  /** The starting values of the test parameter. */
  static final double[] THETA = {0.5, -1.25, 2.0, 0.0};

  /** Fixed gradients, one row per step: signs change and magnitudes vary, so every term matters. */
  static final double[][] GRADS = {
    {0.1, -0.2, 0.3, 1.0},
    {-0.4, 0.05, 0.3, 0.5},
    {0.25, 0.5, -0.1, 0.01},
    {0.0, -0.3, 0.2, -0.2},
    {1.5, 0.1, -0.7, 0.02},
  };

  private OptimFixtures() {}

  /** For {@code @MethodSource}: the devices of {@link TestDevices#all()}. */
  static Stream<Device> devices() {
    return TestDevices.all();
  }

  /** A float64 parameter on {@code device}. */
  static Parameter parameter(double[] values, Device device) {
    return new Parameter(Tensor.of(values, Shape.of(values.length), device));
  }

  /** Sets the gradient of {@code p} to {@code values}, in p's dtype and on its device. */
  static void setGrad(Parameter p, double[] values) {
    p.setGrad(Tensor.of(values, Shape.of(values.length), p.device()).to(p.dtype()));
  }

  /** A float32 copy of {@code values}. */
  static Parameter parameter32(double[] values, Device device) {
    return new Parameter(Tensor.of(values, Shape.of(values.length), device).to(DType.FLOAT32));
  }

  /** Arrays within {@code |a - e| <= tolerance * (1 + |e|)}. */
  static void assertClose(double[] expected, double[] actual, double tolerance, String what) {
    assertEquals(expected.length, actual.length, what + ": number of elements");
    for (int i = 0; i < expected.length; i++) {
      if (!(Math.abs(actual[i] - expected[i]) <= tolerance * (1 + Math.abs(expected[i])))) {
        fail(
            what
                + ", element "
                + i
                + ": expected "
                + expected[i]
                + " but was "
                + actual[i]
                + "\n expected "
                + Arrays.toString(expected)
                + "\n actual   "
                + Arrays.toString(actual));
      }
    }
  }

  /**
   * Runs {@code e}, asserts it throws {@code type} with a message containing every part, and
   * returns it.
   */
  static String message(Class<? extends Throwable> type, Executable e, String... parts) {
    String m = assertThrows(type, e).getMessage();
    assertTrue(m != null, "the exception has no message");
    for (String p : parts) {
      assertTrue(m.contains(p), "message should contain '" + p + "': " + m);
    }
    return m;
  }
}
