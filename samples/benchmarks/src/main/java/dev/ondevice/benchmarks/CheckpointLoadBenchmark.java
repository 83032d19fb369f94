package dev.ondevice.benchmarks;

import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.io.Checkpoint;
import dev.ondevice.io.MapLocation;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Measures {@link Checkpoint#load} of a checkpoint of four float32 tensors: saves one of the given
 * size, then loads it several times, printing each load's time and rate. The first load of a JVM
 * pays for fresh direct memory (zeroed and faulted in by the JDK); before each later load a
 * collection (not timed) lets it reuse the memory of the one before, so that it times the reading.
 * The file is read from the page cache after the save; drop the cache first for a cold disk.
 *
 * <p>Arguments: the file to write (default {@code checkpoint-bench.safetensors} in the temporary
 * folder), the size in MiB (default 256), the number of loads (default 4).
 */
public final class CheckpointLoadBenchmark {
  private CheckpointLoadBenchmark() {}

  /** Runs the benchmark; see the class comment for the arguments. */
  public static void main(String[] args) throws IOException {
    Path file =
        args.length > 0
            ? Path.of(args[0])
            : Path.of(System.getProperty("java.io.tmpdir"), "checkpoint-bench.safetensors");
    int mib = args.length > 1 ? Integer.parseInt(args[1]) : 256;
    int loads = args.length > 2 ? Integer.parseInt(args[2]) : 4;
    Map<String, Tensor> tensors = new LinkedHashMap<>();
    for (int i = 0; i < 4; i++) {
      tensors.put("t" + i, Tensor.rand(Shape.of(mib / 4 * (1L << 18))));
    }
    long start = System.nanoTime();
    Checkpoint.save(file, tensors, null);
    report("save", mib, start);
    for (int i = 0; i < loads; i++) {
      start = System.nanoTime();
      Checkpoint.load(file, MapLocation.to(Device.cpu()));
      report("load " + (i + 1), mib, start);
      // Not timed: a collection, so that the next load reuses this one's memory rather than
      // waiting for fresh memory, and times the reading alone.
      System.gc();
      sleep();
    }
    Files.delete(file);
  }

  private static void sleep() {
    try {
      Thread.sleep(200);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void report(String what, int mib, long start) {
    double seconds = (System.nanoTime() - start) / 1e9;
    System.out.printf(
        Locale.ROOT, "%-7s %d MiB: %.2f s, %.0f MiB/s%n", what, mib, seconds, mib / seconds);
  }
}
