package dev.ondevice.samples.mnist;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;
import javax.imageio.ImageIO;

/** A PNG chart of the training loss (left axis) and the test accuracy (right axis) per epoch. */
final class LossAccuracyPlot {
  private static final int W = 800;
  private static final int H = 480;
  private static final int LEFT = 80;
  private static final int RIGHT = 80;
  private static final int TOP = 60;
  private static final int BOTTOM = 60;
  private static final Color LOSS = new Color(31, 119, 180);
  private static final Color ACCURACY = new Color(255, 127, 14);

  private LossAccuracyPlot() {}

  /** Writes the chart to {@code file} (atomically: a temporary file, then a rename). */
  static void write(Path file, String title, List<EpochResult> results) throws IOException {
    System.setProperty("java.awt.headless", "true");
    BufferedImage image = new BufferedImage(W, H, BufferedImage.TYPE_INT_RGB);
    Graphics2D g = image.createGraphics();
    g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
    g.setColor(Color.WHITE);
    g.fillRect(0, 0, W, H);
    g.setColor(Color.BLACK);
    g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 16));
    g.drawString(title, LEFT, 30);
    g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
    g.drawRect(LEFT, TOP, W - LEFT - RIGHT, H - TOP - BOTTOM);
    double lossStep = niceCeiling(results.stream().mapToDouble(r -> r.loss).max().orElse(1) * 1.05 / 4);
    double maxLoss = 4 * lossStep;
    double accuracyStep = Math.min(0.25, niceCeiling(
        (1 - results.stream().mapToDouble(r -> r.accuracy).min().orElse(0) + 0.01) / 4));
    double minAccuracy = Math.max(0, 1 - 4 * accuracyStep);
    for (int i = 0; i <= 4; i++) {
      int y = TOP + (H - TOP - BOTTOM) * i / 4;
      g.setColor(new Color(230, 230, 230));
      g.drawLine(LEFT + 1, y, W - RIGHT - 1, y);
      g.setColor(LOSS);
      g.drawString(label(lossStep * (4 - i)), 10, y + 4);
      g.setColor(ACCURACY);
      g.drawString(label(100 * (minAccuracy + accuracyStep * (4 - i))) + "%", W - RIGHT + 8, y + 4);
    }
    g.setColor(Color.BLACK);
    for (EpochResult r : results) {
      g.drawString(Integer.toString(r.epoch), x(r.epoch, results.size()) - 4, H - BOTTOM + 18);
    }
    g.drawString("epoch", W / 2 - 16, H - 18);
    line(g, results, r -> r.loss / maxLoss, LOSS);
    line(g, results, r -> (r.accuracy - minAccuracy) / (1 - minAccuracy), ACCURACY);
    g.setColor(LOSS);
    g.drawString("training loss", LEFT + 10, TOP - 8);
    g.setColor(ACCURACY);
    g.drawString("test accuracy", W - RIGHT - 90, TOP - 8);
    g.dispose();
    Files.createDirectories(file.toAbsolutePath().getParent());
    Path tmp = Files.createTempFile(file.toAbsolutePath().getParent(), file.getFileName().toString(), ".tmp");
    try {
      ImageIO.write(image, "png", tmp.toFile());
      Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } finally {
      Files.deleteIfExists(tmp);
    }
  }

  /** The smallest of 1, 2, 2.5 and 5 times a power of ten that is at least {@code x} (positive). */
  static double niceCeiling(double x) {
    if (!(x > 0) || Double.isInfinite(x)) {
      return 1;
    }
    double power = Math.pow(10, Math.floor(Math.log10(x)));
    for (double m : new double[] {1, 2, 2.5, 5, 10}) {
      if (m * power >= x * (1 - 1e-12)) {
        return m * power;
      }
    }
    return 10 * power;
  }

  /** A tick value without trailing zeros: {@code 0.5}, {@code 2}, {@code 92.5}. */
  static String label(double v) {
    return java.math.BigDecimal.valueOf(v).round(new java.math.MathContext(6)).stripTrailingZeros().toPlainString();
  }

  private static void line(Graphics2D g, List<EpochResult> results, ToDoubleFunction<EpochResult> fraction,
      Color color) {
    g.setColor(color);
    g.setStroke(new BasicStroke(2.5f));
    int prevX = -1;
    int prevY = -1;
    for (EpochResult r : results) {
      int x = x(r.epoch, results.size());
      int y = TOP + (int) ((H - TOP - BOTTOM) * (1 - Math.max(0, Math.min(1, fraction.applyAsDouble(r)))));
      g.fillOval(x - 4, y - 4, 8, 8);
      if (prevX >= 0) {
        g.drawLine(prevX, prevY, x, y);
      }
      prevX = x;
      prevY = y;
    }
    g.setStroke(new BasicStroke(1f));
  }

  private static int x(int epoch, int epochs) {
    int span = W - LEFT - RIGHT - 40;
    return LEFT + 20 + (epochs <= 1 ? span / 2 : span * (epoch - 1) / (epochs - 1));
  }
}
