package dev.ondevice.samples.mnist;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import dev.ondevice.train.EpochMetrics;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalDouble;
import java.util.stream.Stream;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYSeries;

/**
 * The chart, a training listener fed three epochs: the loss on the left axis, the accuracy in
 * percent on the right one, saved as a PNG.
 */
class LossAccuracyPlotTest {
  private static LossAccuracyPlot plotOfThreeEpochs() {
    LossAccuracyPlot plot = new LossAccuracyPlot();
    plot.onEpochEnd(new EpochMetrics(1, 47, 6000, 0.52, OptionalDouble.of(0.901), 2.0, 1, 0));
    plot.onEpochEnd(new EpochMetrics(2, 47, 6000, 0.31, OptionalDouble.of(0.932), 2.0, 1, 0));
    plot.onEpochEnd(new EpochMetrics(3, 47, 6000, 0.24, OptionalDouble.of(0.947), 2.0, 1, 0));
    return plot;
  }

  @Test
  void theLossIsOnTheLeftAxisAndTheAccuracyInPercentOnTheRight() {
    XYChart chart = plotOfThreeEpochs().chart("MNIST MLP on cpu");
    XYSeries loss = chart.getSeriesMap().get("training loss");
    XYSeries accuracy = chart.getSeriesMap().get("test accuracy (%)");
    assertArrayEquals(new double[] {1, 2, 3}, loss.getXData());
    assertArrayEquals(new double[] {0.52, 0.31, 0.24}, loss.getYData());
    assertArrayEquals(new double[] {90.1, 93.2, 94.7}, accuracy.getYData(), 1e-9);
    assertEquals(0, loss.getYAxisGroup());
    assertEquals(1, accuracy.getYAxisGroup());
    assertEquals("test accuracy (%)", chart.getYAxisGroupTitle(1));
  }

  @Test
  void writesAPngOfTheChartsSize(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("plots").resolve("mnist-mlp.png");
    plotOfThreeEpochs().write(file, "MNIST MLP on cpu");
    BufferedImage image = ImageIO.read(file.toFile());
    assertNotNull(image, "a PNG");
    assertEquals(LossAccuracyPlot.WIDTH, image.getWidth());
    assertEquals(LossAccuracyPlot.HEIGHT, image.getHeight());
    try (Stream<Path> files = Files.list(file.getParent())) {
      assertEquals(List.of(file), files.toList(), "no temporary file is left");
    }
  }
}
