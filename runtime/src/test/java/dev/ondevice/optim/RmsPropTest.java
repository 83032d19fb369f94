package dev.ondevice.optim;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.ondevice.Device;
import dev.ondevice.Parameter;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** RMSprop against PyTorch's update rule, computed in float64 here, on every test device. */
class RmsPropTest {
  private static final double[] START = {0.5, -1.0, 2.0};
  private static final double[][] GRADS = {{0.1, -0.2, 0.3}, {0.4, 0.0, -0.1}, {-0.3, 0.2, 0.2}};

  /** The reference: PyTorch's RMSprop step, in doubles. */
  private static double[] reference(
      double lr, double alpha, double eps, double momentum, double weightDecay, boolean centered) {
    double[] p = START.clone();
    double[] v = new double[3];
    double[] m = new double[3];
    double[] b = new double[3];
    for (double[] grad : GRADS) {
      for (int i = 0; i < 3; i++) {
        double g = grad[i] + weightDecay * p[i];
        v[i] = alpha * v[i] + (1 - alpha) * g * g;
        double d;
        if (centered) {
          m[i] = alpha * m[i] + (1 - alpha) * g;
          d = Math.sqrt(v[i] - m[i] * m[i]) + eps;
        } else {
          d = Math.sqrt(v[i]) + eps;
        }
        if (momentum > 0) {
          b[i] = momentum * b[i] + g / d;
          p[i] -= lr * b[i];
        } else {
          p[i] -= lr * g / d;
        }
      }
    }
    return p;
  }

  private static double[] run(Device d, RmsPropConfig config) {
    Parameter p = new Parameter(Tensor.of(START.clone(), Shape.of(3), d));
    RmsProp opt = config.apply(new RmsProp(List.of(p), 0.01));
    for (double[] grad : GRADS) {
      p.setGrad(Tensor.of(grad.clone(), Shape.of(3), d).to(p.dtype()));
      opt.step();
    }
    assertEquals(d, opt.state(0).get(RmsProp.SQUARE_AVG).device());
    return p.toDoubleArray();
  }

  /** A configuration of the optimizer under test. */
  private interface RmsPropConfig {
    RmsProp apply(RmsProp opt);
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void matchesPyTorchsRuleInEveryVariant(Device d) {
    assertArrayEquals(reference(0.01, 0.99, 1e-8, 0, 0, false), run(d, o -> o), 1e-6);
    assertArrayEquals(
        reference(0.01, 0.9, 1e-6, 0.9, 0, false),
        run(d, o -> o.alpha(0.9).eps(1e-6).momentum(0.9)),
        1e-6);
    assertArrayEquals(
        reference(0.01, 0.99, 1e-8, 0, 0.1, true),
        run(d, o -> o.weightDecay(0.1).centered(true)),
        1e-5);
  }

  @Test
  void hyperParametersRoundTripAndBadValuesAreRejected() {
    Parameter p = new Parameter(Tensor.zeros(3));
    RmsProp a = new RmsProp(List.of(p)).alpha(0.9).momentum(0.5).centered(true);
    RmsProp b = new RmsProp(List.of(p));
    b.loadStateDict(a.stateDict());
    assertEquals(a.stateDict().metadata(), b.stateDict().metadata());
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> b.alpha(-0.5));
    assertEquals("RmsProp: alpha must be a finite number >= 0, got -0.5", e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> b.momentum(-1));
  }
}
