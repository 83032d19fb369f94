package dev.ondevice.samples.mnist;

import dev.ondevice.train.BatchStats;
import dev.ondevice.train.EpochMetrics;
import dev.ondevice.train.EpochStart;
import dev.ondevice.train.TrainingListener;
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
 * Each epoch's progress bar, drawn by {@code me.tongfei:progressbar} as a {@link TrainingListener}:
 * images done, their rate, the time elapsed and the time left, and the running loss as it arrives
 * from the device. In a terminal it redraws one line as wide as the terminal; in a log it prints a
 * line every {@value #LOG_INTERVAL_MILLIS} ms and the last one when the epoch ends, with the
 * epoch's loss.
 */
final class EpochProgress implements TrainingListener {
  static final int LOG_INTERVAL_MILLIS = 10_000;
  private static final int LOG_WIDTH = 120;

  private final PrintStream out;
  private final boolean interactive;
  private ProgressBar bar;

  /** Bars drawn on {@code out}; {@code interactive} when it is a terminal. */
  EpochProgress(PrintStream out, boolean interactive) {
    this.out = out;
    this.interactive = interactive;
  }

  /** Starts a bar titled {@code epoch N/M}, of the epoch's planned images. */
  @Override
  public void onEpochStart(EpochStart epoch) {
    ProgressBarConsumer consumer =
        interactive
            ? new ConsoleProgressBarConsumer(out)
            : new DelegatingProgressBarConsumer(new LogLines(out), LOG_WIDTH);
    bar =
        new ProgressBarBuilder()
            .setTaskName(String.format(Locale.ROOT, "epoch %d/%d", epoch.epoch(), epoch.epochs()))
            .setInitialMax(epoch.plannedSamples())
            .setUnit(" img", 1)
            .setStyle(ProgressBarStyle.ASCII)
            .showSpeed()
            .setSpeedUnit(ChronoUnit.SECONDS)
            .setUpdateIntervalMillis(interactive ? 250 : LOG_INTERVAL_MILLIS)
            .setConsumer(consumer)
            .build();
  }

  /** Moves the bar to the images done, showing the running loss once one has arrived. */
  @Override
  public void onBatchEnd(BatchStats batch) {
    bar.stepTo(batch.samples());
    batch.runningLoss().ifPresent(loss -> bar.setExtraMessage(loss(loss)));
  }

  /** Ends the bar at the epoch's images, showing its loss. */
  @Override
  public void onEpochEnd(EpochMetrics metrics) {
    bar.stepTo(metrics.samples());
    bar.setExtraMessage(loss(metrics.meanLoss()));
    bar.close();
  }

  private static String loss(double value) {
    return String.format(Locale.ROOT, " loss %.4f", value);
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
