package dev.ondevice.samples.mnist;

import dev.ondevice.Device;
import dev.ondevice.Tensor;
import java.io.PrintStream;
import java.util.Locale;

/**
 * A progress bar for one epoch: batches done, samples per second and the running loss. In a
 * terminal it redraws one line; in a log file it prints a line at each quarter of the epoch, and
 * the last line when the epoch ends.
 *
 * <p>It never makes the host wait for the device: the running loss is fetched with a non-blocking
 * copy and shown once that copy has arrived, so the value shown lags a little behind.
 */
final class ProgressBar {
  private static final int WIDTH = 30;
  private static final long REFRESH_NANOS = 250_000_000L;

  private final String title;
  private final int totalBatches;
  private final int batchSize;
  private final PrintStream out;
  private final boolean interactive;
  private final long start = System.nanoTime();
  private long lastRefresh;
  private long lastFetch;
  private int lastLoggedQuarter;
  private Tensor lossInFlight;
  private int batchesInFlight;
  private double shownLoss = Double.NaN;

  ProgressBar(String title, int totalBatches, int batchSize, PrintStream out, boolean interactive) {
    this.title = title;
    this.totalBatches = totalBatches;
    this.batchSize = batchSize;
    this.out = out;
    this.interactive = interactive;
  }

  /** Records that {@code batches} batches are done; {@code lossTotal} is their summed loss, on the device. */
  void update(int batches, Tensor lossTotal) {
    long now = System.nanoTime();
    if (lossInFlight != null && lossInFlight.isReady()) {
      shownLoss = lossInFlight.item() / batchesInFlight;
      lossInFlight = null;
    }
    if (lossInFlight == null && now - lastFetch >= REFRESH_NANOS / 5) {
      lossInFlight = lossTotal.to(Device.cpu(), true);
      batchesInFlight = batches;
      lastFetch = now;
    }
    int quarter = batches * 4 / Math.max(1, totalBatches);
    if (interactive && now - lastRefresh >= REFRESH_NANOS) {
      out.print("\r" + line(batches, now));
      out.flush();
      lastRefresh = now;
    } else if (!interactive && quarter > lastLoggedQuarter && batches < totalBatches) {
      out.println(line(batches, now));
      lastLoggedQuarter = quarter;
    }
  }

  /** Ends the bar with the epoch's loss, read once by the caller. */
  void finish(int batches, double epochLoss) {
    shownLoss = epochLoss;
    String line = line(batches, System.nanoTime());
    out.println(interactive ? "\r" + line : line);
  }

  private String line(int batches, long now) {
    int filled = (int) ((long) WIDTH * batches / Math.max(1, totalBatches));
    String bar = "=".repeat(filled) + (filled < WIDTH ? ">" + " ".repeat(WIDTH - filled - 1) : "");
    double seconds = Math.max(1e-9, (now - start) / 1e9);
    return String.format(Locale.ROOT, "%s [%s] %d/%d  %,.0f samples/s  loss %s", title, bar, batches, totalBatches,
        batches * (double) batchSize / seconds, Double.isNaN(shownLoss) ? "..." : String.format(Locale.ROOT, "%.4f",
            shownLoss));
  }
}
