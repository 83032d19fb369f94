package dev.ondevice.internal.backend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The host allocator under a small direct-memory limit, in a child JVM started with {@code
 * -XX:MaxDirectMemorySize=64m}: the cache is capped at half the limit and given back when fresh
 * memory runs out, and a request beyond the limit is a {@code DeviceOutOfMemoryException} that says
 * what was asked, what is held and which flag raises the limit, after which allocation goes on.
 */
class MemoryPressureTest {
  private static final int LIMIT_MIB = 64;

  @Test
  void theCacheIsGivenBackAndTooLargeARequestIsACatchableException()
      throws IOException, InterruptedException {
    Process child =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:MaxDirectMemorySize=" + LIMIT_MIB + "m",
                "-Xmx256m",
                "-cp",
                System.getProperty("java.class.path"),
                MemoryPressure.class.getName(),
                Integer.toString(LIMIT_MIB))
            .redirectErrorStream(true)
            .start();
    String out = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(child.waitFor(60, TimeUnit.SECONDS), out);
    assertEquals(0, child.exitValue(), out);
    List<String> lines =
        out.lines()
            .filter(l -> !l.startsWith("WARNING") && !l.isBlank())
            .toList(); // JDK 22+: native access
    assertEquals(4, lines.size(), out);
    int cached =
        Integer.parseInt(lines.get(0).substring("cached MiB after dropping them: ".length()));
    assertTrue(cached <= LIMIT_MIB / 2, "the cache holds at most half the limit: " + out);
    assertEquals("small tensors: 48 of 1 MiB", lines.get(1), out);
    assertTrue(
        lines
            .get(2)
            .startsWith(
                "too large: Out of host memory on cpu: tried to allocate 128.00 MiB of direct"
                    + " memory, whose limit is 64.00 MiB; tensors held "),
        out);
    assertTrue(
        lines
            .get(2)
            .endsWith(
                ". Free the tensors you no longer need, use smaller batches, or raise the limit"
                    + " with the JVM option -XX:MaxDirectMemorySize=<size> (e.g. -XX:MaxDirectMemorySize=16g; by default it is"
                    + " the maximum heap, -Xmx)"),
        out);
    assertEquals("after: 8388608.0", lines.get(3), out);
  }
}
