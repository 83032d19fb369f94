package dev.ondevice.samples.mnist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ondevice.train.BatchStats;
import dev.ondevice.train.EpochMetrics;
import dev.ondevice.train.EpochStart;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.OptionalDouble;
import org.junit.jupiter.api.Test;

/**
 * The progress bar, a training listener, in a log: no redrawing, and a line with the final count,
 * the rate and the epoch's loss. (The library draws on a thread of its own, so a line it started
 * drawing before the last update may come after the final one: the test looks for the final line,
 * not at the last.)
 */
class EpochProgressTest {
  @Test
  void aLogGetsPlainLinesEndingWithTheEpochsLoss() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
    EpochProgress bar = new EpochProgress(out, false);
    bar.onEpochStart(new EpochStart(1, 3, 1024));
    for (int images = 128; images <= 1024; images += 128) {
      OptionalDouble running = images < 512 ? OptionalDouble.empty() : OptionalDouble.of(0.25);
      bar.onBatchEnd(new BatchStats(1, images / 128, images, running));
    }
    bar.onEpochEnd(new EpochMetrics(1, 8, 1024, 0.5, OptionalDouble.of(0.9), 2.0, 1, 0));
    String text = bytes.toString(StandardCharsets.UTF_8);
    assertTrue(!text.contains("\r"), "a log is not redrawn: " + text);
    List<String> lines = text.lines().toList();
    assertTrue(
        lines.stream()
            .anyMatch(
                l ->
                    l.startsWith("epoch 1/3 100% [=")
                        && l.contains(" 1024/1024 img ")
                        && l.contains(" img/s ")
                        && l.endsWith(" loss 0.5000")),
        "the last state: " + text);
    assertEquals(lines.stream().distinct().count(), lines.size(), "no line twice: " + text);
  }
}
