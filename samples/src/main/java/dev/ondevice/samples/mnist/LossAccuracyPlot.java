package dev.ondevice.samples.mnist;

import dev.ondevice.train.EpochMetrics;
import dev.ondevice.train.TrainingListener;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.XYStyler;

/**
 * The training loss (left axis) and the test accuracy (right axis) per epoch, as an XChart chart: a
 * {@link TrainingListener} that keeps each epoch's metrics; {@link #chart} gives the chart to
 * restyle or to save in another format (XChart's {@code VectorGraphicsEncoder} writes SVG, PDF and
 * EPS), {@link #write} saves it as a PNG.
 */
final class LossAccuracyPlot implements TrainingListener {
  static final int WIDTH = 800;
  static final int HEIGHT = 480;
  private static final int ACCURACY_AXIS = 1;

  private final List<EpochMetrics> epochs = new ArrayList<>();

  /** Keeps the epoch's metrics for the chart. */
  @Override
  public void onEpochEnd(EpochMetrics metrics) {
    epochs.add(metrics);
  }

  /** The chart of the epochs ended so far, titled {@code title}; each must have an accuracy. */
  XYChart chart(String title) {
    double[] x = epochs.stream().mapToDouble(EpochMetrics::epoch).toArray();
    XYChart chart =
        new XYChartBuilder()
            .width(WIDTH)
            .height(HEIGHT)
            .title(title)
            .xAxisTitle("epoch")
            .yAxisTitle("training loss")
            .build();
    XYStyler styler = chart.getStyler();
    styler.setXAxisDecimalPattern("0").setXAxisTickMarkSpacingHint(60);
    styler
        .setLegendPosition(Styler.LegendPosition.InsideNE)
        .setYAxisGroupPosition(ACCURACY_AXIS, Styler.YAxisPosition.Right);
    chart.addSeries(
        "training loss", x, epochs.stream().mapToDouble(EpochMetrics::meanLoss).toArray());
    double[] accuracy =
        epochs.stream().mapToDouble(m -> 100 * m.accuracy().orElseThrow()).toArray();
    chart.addSeries("test accuracy (%)", x, accuracy).setYAxisGroup(ACCURACY_AXIS);
    chart.setYAxisGroupTitle(ACCURACY_AXIS, "test accuracy (%)");
    return chart;
  }

  /** Writes the chart to {@code file} as a PNG (atomically: a temporary file, then a rename). */
  void write(Path file, String title) throws IOException {
    System.setProperty("java.awt.headless", "true");
    XYChart chart = chart(title);
    Path folder = file.toAbsolutePath().getParent();
    Files.createDirectories(folder);
    Path tmp = Files.createTempFile(folder, file.getFileName().toString(), ".tmp");
    try {
      try (OutputStream stream = Files.newOutputStream(tmp)) {
        BitmapEncoder.saveBitmap(chart, stream, BitmapEncoder.BitmapFormat.PNG);
      }
      Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } finally {
      Files.deleteIfExists(tmp);
    }
  }
}
