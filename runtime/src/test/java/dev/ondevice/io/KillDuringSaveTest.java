package dev.ondevice.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ondevice.Tensor;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Saves killed midway ({@code SIGKILL} of a child JVM at seeded random moments): the file is then
 * absent or one complete save, never a mix; the temporary file left behind is removed by the next
 * save once stale, and a temporary file a live writer holds is never removed.
 */
class KillDuringSaveTest {
  /** Kills always made. */
  private static final int KILLS = 3;

  /**
   * Kills made at most, while none has yet landed mid-write: timing varies from machine to machine.
   */
  private static final int MAX_KILLS = 15;

  @TempDir Path dir;

  @Test
  void aKilledSaveLeavesACompleteFileAndTheNextSaveRemovesItsLeftover() throws Exception {
    Path file = dir.resolve("ckpt.safetensors");
    Random random = new Random(23);
    int leftovers = 0;
    int kill = 0;
    for (; kill < KILLS || (leftovers == 0 && kill < MAX_KILLS); kill++) {
      Process child =
          new ProcessBuilder(
                  Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                  "-cp",
                  System.getProperty("java.class.path"),
                  SaveLoop.class.getName(),
                  file.toString())
              .redirectErrorStream(true)
              .start();
      try {
        BufferedReader out =
            new BufferedReader(
                new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
        assertEquals("ready", firstLineNotAWarning(out), "the child started");
        Thread.sleep(200 + random.nextInt(400));
      } finally {
        child.destroyForcibly();
        assertTrue(child.waitFor(10, TimeUnit.SECONDS), "the child was killed");
      }
      if (Files.exists(file)) {
        assertComplete(file);
      }
      List<Path> left = temporaries(file);
      assertTrue(left.size() <= 1, "one save at a time leaves at most one temporary file: " + left);
      leftovers += left.size();
      // A leftover is kept while it could still be a save in progress (younger than the threshold)
      // ...
      Safetensors.save(Map.of("weight", Tensor.zeros(1)), Map.of("round", "-1"), file);
      assertEquals(left, temporaries(file), "a fresh leftover is kept");
      // ... and removed once stale, since its writer's lock died with the writer.
      for (Path p : left) {
        Files.setLastModifiedTime(
            p, FileTime.from(Instant.now().minus(TemporaryFile.STALE_AFTER).minusSeconds(1)));
      }
      Safetensors.save(Map.of("weight", Tensor.zeros(1)), Map.of("round", "-1"), file);
      assertEquals(List.of(), temporaries(file), "stale leftovers are removed");
      Files.delete(file);
    }
    assertTrue(leftovers > 0, "at least one kill landed mid-write (of " + kill + ")");
  }

  @Test
  void aTemporaryFileAWriterStillLocksIsNeverRemoved() throws IOException {
    Path file = dir.resolve("busy.safetensors");
    Path busy = dir.resolve(".busy.safetensors.0123abcd.tmp");
    Path other = dir.resolve(".busy.safetensors.old.0123abcd.tmp");
    Files.write(busy, new byte[] {1});
    Files.write(other, new byte[] {1});
    FileTime old = FileTime.from(Instant.now().minusSeconds(3600));
    Files.setLastModifiedTime(busy, old);
    Files.setLastModifiedTime(other, old);
    try (FileChannel writer = FileChannel.open(busy, StandardOpenOption.WRITE)) {
      writer.lock();
      Safetensors.save(Map.of("weight", Tensor.zeros(1)), null, file);
      assertTrue(Files.exists(busy), "a locked temporary file is a save in progress");
    }
    Safetensors.save(Map.of("weight", Tensor.zeros(1)), null, file);
    assertTrue(Files.notExists(busy), "unlocked and stale: removed");
    assertTrue(Files.exists(other), "another target's name is not touched");
  }

  /**
   * The child's first line other than the JVM's warnings (JDK 22+ warns when the native libraries
   * load).
   */
  private static String firstLineNotAWarning(BufferedReader out) throws IOException {
    String line = out.readLine();
    while (line != null && (line.startsWith("WARNING") || line.isBlank())) {
      line = out.readLine();
    }
    return line;
  }

  /** The file holds one complete save: its tensor's elements all equal its round modulo 2. */
  private static void assertComplete(Path file) throws IOException {
    Safetensors.Contents c = Safetensors.load(file);
    float parity = Integer.parseInt(c.metadata().get("round")) % 2;
    float[] v = c.tensors().get("weight").toFloatArray();
    assertEquals(SaveLoop.ELEMENTS, v.length);
    for (float x : v) {
      if (x != parity) {
        throw new AssertionError(file + " mixes saves: parity " + parity + " holds " + x);
      }
    }
  }

  private static List<Path> temporaries(Path file) throws IOException {
    try (Stream<Path> s = Files.list(file.getParent())) {
      return s.filter(p -> TemporaryFile.isTemporaryOf(p, file.getFileName().toString()))
          .sorted()
          .collect(Collectors.toList());
    }
  }
}
