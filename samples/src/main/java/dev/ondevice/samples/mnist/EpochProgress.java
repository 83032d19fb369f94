package dev.ondevice.samples.mnist;

import java.io.PrintStream;
import java.time.temporal.ChronoUnit;
import java.util.Locale;
import java.util.function.Consumer;
import me.tongfei.progressbar.ConsoleProgressBarConsumer;
import me.tongfei.progressbar.DelegatingProgressBarConsumer;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarConsumer;
import me.tongfei.progressbar.ProgressBarStyle;

/**
 * One epoch's progress bar, drawn by {@code me.tongfei:progressbar}: images done, their rate, the
 * time elapsed and the time left, and the running loss. In a terminal it redraws one line as wide as
 * the terminal; in a log it prints a line every {@value #LOG_INTERVAL_MILLIS} ms and the last one
 * when the epoch ends.
 */
final class EpochProgress implements AutoCloseable {
  static final int LOG_INTERVAL_MILLIS = 10_000;
  private static final int LOG_WIDTH = 120;

  private final ProgressBar bar;

  /** A bar of {@code images} images; {@code interactive} when {@code out} is a terminal. */
  EpochProgress(String title, long images, PrintStream out, boolean interactive) {
    ProgressBarConsumer consumer = interactive ? new ConsoleProgressBarConsumer(out)
        : new DelegatingProgressBarConsumer(new LogLines(out), LOG_WIDTH);
    bar = new ProgressBarBuilder().setTaskName(title).setInitialMax(images).setUnit(" img", 1)
        .setStyle(ProgressBarStyle.ASCII).showSpeed().setSpeedUnit(ChronoUnit.SECONDS)
        .setUpdateIntervalMillis(interactive ? 250 : LOG_INTERVAL_MILLIS).setConsumer(consumer).build();
  }

  /** Records that {@code images} images are done; {@code meanLoss} is NaN while none is known. */
  void update(long images, double meanLoss) {
    bar.stepTo(images);
    if (!Double.isNaN(meanLoss)) {
      bar.setExtraMessage(loss(meanLoss));
    }
  }

  /** Ends the bar at {@code images} images, showing the epoch's loss. */
  void finish(long images, double epochLoss) {
    bar.stepTo(images);
    bar.setExtraMessage(loss(epochLoss));
    close();
  }

  private static String loss(double value) {
    return String.format(Locale.ROOT, " loss %.4f", value);
  }

  @Override
  public void close() {
    bar.close();
  }

  /**
   * Prints each drawing of the bar as a line of the log, but not the same line twice in a row (the
   * library draws the last state twice when the bar closes, which a terminal hides by redrawing).
   */
  private static final class LogLines implements Consumer<String> {
    private final PrintStream out;
    private String last;

    LogLines(PrintStream out) {
      this.out = out;
    }

    @Override
    public void accept(String line) {
      if (!line.equals(last)) {
        out.println(line);
        last = line;
      }
    }
  }
}
