package dev.ondevice.samples.mnist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ondevice.Tensor;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The progress bar in a log file: a line at each quarter of the epoch, then the final one. */
class ProgressBarTest {
  @Test
  void aLogGetsAQuarterlyLineAndTheLastOneOnce() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
    ProgressBar bar = new ProgressBar("epoch 1/1", 8, 16, out, false);
    for (int b = 1; b <= 8; b++) {
      bar.update(b, Tensor.scalar(0.5 * b));
    }
    bar.finish(8, 0.5);
    List<String> lines = bytes.toString(StandardCharsets.UTF_8).lines().toList();
    assertEquals(4, lines.size(), String.join("\n", lines));
    assertTrue(lines.get(0).startsWith("epoch 1/1 [=======>"), lines.get(0));
    assertTrue(lines.get(0).contains(" 2/8 "), lines.get(0));
    assertTrue(lines.get(2).contains(" 6/8 "), lines.get(2));
    assertTrue(lines.get(3).startsWith("epoch 1/1 [==============================] 8/8 "), lines.get(3));
    assertTrue(lines.get(3).endsWith("loss 0.5000"), lines.get(3));
  }
}
