package dev.ondevice.optim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.ondevice.Parameter;
import dev.ondevice.Tensor;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** ReduceLrOnPlateau against PyTorch's rules, traced by hand epoch by epoch. */
class ReduceLrOnPlateauTest {
  private static Sgd sgd(double lr) {
    return new Sgd(List.of(new Parameter(Tensor.zeros(2))), lr);
  }

  @Test
  void theRateFallsAfterPatienceEpochsWithoutImprovement() {
    Sgd opt = sgd(1.0);
    ReduceLrOnPlateau plateau = new ReduceLrOnPlateau(opt, ReduceLrOnPlateau.Mode.MIN, 0.5, 2);
    double[] losses = {1.0, 0.9, 0.9, 0.9, 0.9, 0.95, 0.95, 0.95, 0.5};
    double[] rates = {1.0, 1.0, 1.0, 1.0, 0.5, 0.5, 0.5, 0.25, 0.25};
    for (int e = 0; e < losses.length; e++) {
      plateau.step(losses[e]);
      assertEquals(rates[e], opt.learningRate(), 0, "after epoch " + e);
    }
    assertEquals(0.5, plateau.best());
    assertEquals(0, plateau.badEpochs());
  }

  @Test
  void aSmallerImprovementThanTheThresholdIsNone() {
    Sgd opt = sgd(1.0);
    ReduceLrOnPlateau plateau = new ReduceLrOnPlateau(opt, ReduceLrOnPlateau.Mode.MIN, 0.1, 0);
    plateau.step(1.0);
    plateau.step(0.99995); // within 1e-4 of 1.0: not an improvement
    assertEquals(0.1, opt.learningRate(), 1e-15);
    assertEquals(1.0, plateau.best());
  }

  @Test
  void maxModeCooldownAndMinimumRate() {
    Sgd opt = sgd(0.5);
    ReduceLrOnPlateau plateau =
        new ReduceLrOnPlateau(opt, ReduceLrOnPlateau.Mode.MAX, 0.5, 0, 1e-4, 1, 0.2);
    plateau.step(0.80);
    plateau.step(0.80); // no improvement, patience 0: 0.5 -> 0.25, cooldown 1
    assertEquals(0.25, opt.learningRate(), 0);
    plateau.step(0.70); // in cooldown: not counted
    assertEquals(0.25, opt.learningRate(), 0);
    plateau.step(0.70); // 0.25 -> max(0.125, 0.2) = 0.2
    assertEquals(0.2, opt.learningRate(), 0);
    plateau.step(0.70);
    plateau.step(0.70);
    assertEquals(0.2, opt.learningRate(), 0, "never below the minimum");
    plateau.step(0.90);
    assertEquals(0.9, plateau.best());
  }

  @Test
  void stateRoundTripsAndBadInputIsRejected() {
    Sgd opt = sgd(1.0);
    ReduceLrOnPlateau a = new ReduceLrOnPlateau(opt, ReduceLrOnPlateau.Mode.MIN, 0.5, 3);
    a.step(2.0);
    a.step(3.0);
    Map<String, String> state = a.stateDict();
    ReduceLrOnPlateau b = new ReduceLrOnPlateau(opt, ReduceLrOnPlateau.Mode.MIN, 0.5, 3);
    b.loadStateDict(state);
    assertEquals(2.0, b.best());
    assertEquals(1, b.badEpochs());
    assertThrows(IllegalArgumentException.class, () -> b.loadStateDict(Map.of("type", "StepLr")));
    ReduceLrOnPlateau max = new ReduceLrOnPlateau(opt, ReduceLrOnPlateau.Mode.MAX, 0.1, 0);
    max.loadStateDict(state);
    max.step(1.5);
    assertEquals(1.5, max.best(), "the mode is restored: MIN, so 1.5 < 2.0 improves");
    double rate = opt.learningRate();
    b.step(Double.NaN);
    assertEquals(2, b.badEpochs(), "a NaN metric is no improvement, as in PyTorch");
    assertEquals(rate, opt.learningRate());
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> new ReduceLrOnPlateau(opt, ReduceLrOnPlateau.Mode.MIN, 1.0, 3));
    assertEquals("ReduceLrOnPlateau: factor must be in (0, 1), got 1.0", e.getMessage());
  }
}
