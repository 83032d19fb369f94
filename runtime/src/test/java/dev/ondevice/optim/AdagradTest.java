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

/** Adagrad against PyTorch's update rule, computed in float64 here, on every test device. */
class AdagradTest {
  private static final double[] START = {0.5, -1.0, 2.0};
  private static final double[][] GRADS = {{0.1, -0.2, 0.3}, {0.4, 0.0, -0.1}, {-0.3, 0.2, 0.2}};

  /** The reference: PyTorch's Adagrad step, in doubles. */
  private static double[] reference(
      double lr, double lrDecay, double weightDecay, double initial, double eps) {
    double[] p = START.clone();
    double[] s = {initial, initial, initial};
    for (int t = 1; t <= GRADS.length; t++) {
      double clr = lr / (1 + (t - 1) * lrDecay);
      for (int i = 0; i < 3; i++) {
        double g = GRADS[t - 1][i] + weightDecay * p[i];
        s[i] += g * g;
        p[i] -= clr * g / (Math.sqrt(s[i]) + eps);
      }
    }
    return p;
  }

  private static double[] run(Device d, AdagradConfig config) {
    Parameter p = new Parameter(Tensor.of(START.clone(), Shape.of(3), d));
    Adagrad opt = config.apply(new Adagrad(List.of(p), 0.1));
    for (double[] grad : GRADS) {
      p.setGrad(Tensor.of(grad.clone(), Shape.of(3), d).to(p.dtype()));
      opt.step();
    }
    assertEquals(d, opt.state(0).get(Adagrad.SUM).device());
    return p.toDoubleArray();
  }

  /** A configuration of the optimizer under test. */
  private interface AdagradConfig {
    Adagrad apply(Adagrad opt);
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void matchesPyTorchsRuleInEveryVariant(Device d) {
    assertArrayEquals(reference(0.1, 0, 0, 0, 1e-10), run(d, o -> o), 1e-6);
    assertArrayEquals(
        reference(0.1, 0.5, 0.1, 0.2, 1e-6),
        run(d, o -> o.lrDecay(0.5).weightDecay(0.1).initialAccumulatorValue(0.2).eps(1e-6)),
        1e-6);
  }

  @Test
  void aZeroGradientAtTheFirstStepLeavesTheParameterWhereItIs() {
    Parameter p = new Parameter(Tensor.of(START.clone(), Shape.of(3), Device.cpu()));
    Adagrad opt = new Adagrad(List.of(p));
    p.setGrad(Tensor.zerosLike(p));
    opt.step();
    assertArrayEquals(START, p.toDoubleArray(), 1e-7, "0 / (0 + eps) is 0, not NaN");
  }

  @Test
  void hyperParametersRoundTripAndBadValuesAreRejected() {
    Parameter p = new Parameter(Tensor.zeros(3));
    Adagrad a =
        new Adagrad(List.of(p))
            .lrDecay(0.1)
            .weightDecay(0.01)
            .initialAccumulatorValue(0.5)
            .eps(1e-8);
    Adagrad b = new Adagrad(List.of(p));
    b.loadStateDict(a.stateDict());
    assertEquals(a.stateDict().metadata(), b.stateDict().metadata());
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> b.lrDecay(-0.5));
    assertEquals("Adagrad: lr decay must be a finite number >= 0, got -0.5", e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> b.initialAccumulatorValue(-1));
  }
}
