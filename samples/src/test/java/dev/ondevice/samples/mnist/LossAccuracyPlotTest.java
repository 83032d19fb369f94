package dev.ondevice.samples.mnist;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The plot's axes: ticks at round values. */
class LossAccuracyPlotTest {
  @Test
  void ticksAreOneTwoTwoAndAHalfOrFiveTimesAPowerOfTen() {
    assertEquals(0.5, LossAccuracyPlot.niceCeiling(0.4006), 1e-15);
    assertEquals(0.025, LossAccuracyPlot.niceCeiling(0.0245), 1e-15);
    assertEquals(2.0, LossAccuracyPlot.niceCeiling(2.0), 1e-15);
    assertEquals(10.0, LossAccuracyPlot.niceCeiling(5.5), 1e-15);
    assertEquals(0.05, LossAccuracyPlot.niceCeiling(0.05000000000000001), 1e-15);
    assertEquals(1.0, LossAccuracyPlot.niceCeiling(0), 1e-15);
  }

  @Test
  void labelsHaveNoTrailingZeros() {
    assertEquals("0.5", LossAccuracyPlot.label(0.5));
    assertEquals("2", LossAccuracyPlot.label(2.0));
    assertEquals("92.5", LossAccuracyPlot.label(100 * (0.9 + 0.025)));
    assertEquals("1.2", LossAccuracyPlot.label(3 * 0.4));
  }
}
