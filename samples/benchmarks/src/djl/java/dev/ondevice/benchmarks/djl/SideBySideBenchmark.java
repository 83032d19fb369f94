package dev.ondevice.benchmarks.djl;

import ai.djl.engine.Engine;
import ai.djl.nn.Block;
import ai.djl.pytorch.jni.JniUtils;
import ai.djl.pytorch.jni.LibUtils;
import dev.ondevice.Cpu;
import dev.ondevice.Device;
import dev.ondevice.benchmarks.TrainingBenchmark;
import dev.ondevice.nn.Layer;
import dev.ondevice.samples.mnist.MnistCnn;
import dev.ondevice.samples.mnist.MnistMlp;
import java.util.Arrays;
import java.util.Locale;
import java.util.function.DoubleSupplier;
import java.util.function.Supplier;

/**
 * Training throughput of the MNIST MLP and CNN side by side: ours ({@link TrainingBenchmark}'s
 * measurement, on the CPU) and the same model and hyper-parameters trained by PyTorch's CPU kernels
 * through DJL ({@link DjlTraining}), in one JVM, round by round interleaved (the order alternating)
 * after four warm-up rounds of each, every round after a short pause. It prints the samples per
 * second of every round, the medians, the best rounds (the least disturbed by other work on a
 * shared machine) and the ratios ours/DJL.
 *
 * <p>Arguments: {@code [--djl-only] [mlp|cnn|both] [rounds] [batchesPerRound]} (both, 15, 50; the
 * CNN runs a fifth of the batches). libtorch loads offline from the pytorch-native-cpu jar on the
 * class path and runs on 2 intra-op threads and 1 inter-op thread unless {@code
 * -Dai.djl.pytorch.num_threads} and {@code -Dai.djl.pytorch.num_interop_threads} say otherwise;
 * ours uses {@code -Dondevice.cpu.threads}, by default the number of processors.
 */
public final class SideBySideBenchmark {
  private static final long PAUSE_MS = 250;

  /**
   * Unmeasured rounds of each side first: the JIT compiles the hot paths, and our host memory,
   * fresh at first (page faults), is recycled by the first collections.
   */
  private static final int WARM_UP_ROUNDS = 4;

  private SideBySideBenchmark() {}

  /** Runs the benchmark; see the class comment for the arguments. */
  public static void main(String[] args) {
    boolean djlOnly = args.length > 0 && args[0].equals("--djl-only");
    String[] rest = djlOnly ? Arrays.copyOfRange(args, 1, args.length) : args;
    String which = rest.length > 0 ? rest[0] : "both";
    int rounds = rest.length > 1 ? Integer.parseInt(rest[1]) : 15;
    int batches = rest.length > 2 ? Integer.parseInt(rest[2]) : 50;
    if (!which.equals("mlp") && !which.equals("cnn") && !which.equals("both")) {
      throw new IllegalArgumentException("Expected mlp, cnn or both, got " + which);
    }

    // Read when the engine loads: no download, libtorch from the class path, 2 + 1 threads.
    System.setProperty("ai.djl.offline", "true");
    System.getProperties().putIfAbsent("ai.djl.pytorch.num_threads", "2");
    System.getProperties().putIfAbsent("ai.djl.pytorch.num_interop_threads", "1");
    Engine.getEngine("PyTorch");
    System.out.printf(
        Locale.ROOT,
        "libtorch %s (DJL %s) from %s: %d intra-op, %d inter-op threads; ours: %d threads%n",
        LibUtils.getVersion(),
        Engine.getDjlVersion(),
        LibUtils.getLibtorchPath(),
        JniUtils.getNumThreads(),
        JniUtils.getNumInteropThreads(),
        Cpu.threads());

    if (!which.equals("cnn")) {
      compare("mlp", djlOnly, () -> new MnistMlp(Device.cpu()), DjlTraining.mlp(), rounds, batches);
    }
    if (!which.equals("mlp")) {
      compare(
          "cnn",
          djlOnly,
          () -> new MnistCnn(Device.cpu()),
          DjlTraining.cnn(),
          rounds,
          Math.max(1, batches / 5));
    }
  }

  private static void compare(
      String name, boolean djlOnly, Supplier<Layer> ours, Block djlBlock, int rounds, int batches) {
    double[] oursRate = new double[rounds];
    double[] djlRate = new double[rounds];
    try (DjlTraining djl = new DjlTraining(name, djlBlock)) {
      TrainingBenchmark.Session session =
          djlOnly ? null : new TrainingBenchmark.Session(ours.get(), Device.cpu());
      for (int warmUp = 0; warmUp < WARM_UP_ROUNDS; warmUp++) {
        afterPause(() -> djl.round(batches));
        if (session != null) {
          afterPause(() -> session.round(batches));
        }
      }
      for (int round = 0; round < rounds; round++) {
        if (session != null && round % 2 == 0) {
          oursRate[round] = afterPause(() -> session.round(batches));
        }
        djlRate[round] = afterPause(() -> djl.round(batches));
        if (session != null && round % 2 == 1) {
          oursRate[round] = afterPause(() -> session.round(batches));
        }
        if (session == null) {
          System.out.printf(
              Locale.ROOT, "%s round %d: djl %,.0f samples/s%n", name, round + 1, djlRate[round]);
        } else {
          System.out.printf(
              Locale.ROOT,
              "%s round %d: ours %,.0f  djl %,.0f samples/s  (ratio %.2f)%n",
              name,
              round + 1,
              oursRate[round],
              djlRate[round],
              oursRate[round] / djlRate[round]);
        }
      }
    }
    double djlMedian = median(djlRate);
    double djlBest = Arrays.stream(djlRate).max().orElseThrow();
    if (djlOnly) {
      System.out.printf(
          Locale.ROOT,
          "%s: djl median %,.0f samples/s, best %,.0f (%d rounds of %d batches)%n",
          name,
          djlMedian,
          djlBest,
          rounds,
          batches);
      return;
    }
    double oursMedian = median(oursRate);
    double oursBest = Arrays.stream(oursRate).max().orElseThrow();
    double[] ratios = new double[rounds];
    Arrays.setAll(ratios, i -> oursRate[i] / djlRate[i]);
    System.out.printf(
        Locale.ROOT,
        "%s: median ours %,.0f, djl %,.0f samples/s, ratio ours/djl %.2f (median of round ratios"
            + " %.2f); best round ours %,.0f, djl %,.0f, ratio %.2f; %d rounds of %d batches%n",
        name,
        oursMedian,
        djlMedian,
        oursMedian / djlMedian,
        median(ratios),
        oursBest,
        djlBest,
        oursBest / djlBest,
        rounds,
        batches);
  }

  /**
   * Runs {@code round} after a pause that lets the other side's idle worker threads (OpenBLAS's,
   * libtorch's OpenMP team) stop spinning, so that they take no CPU from this measurement.
   */
  private static double afterPause(DoubleSupplier round) {
    try {
      Thread.sleep(PAUSE_MS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted between rounds", e);
    }
    return round.getAsDouble();
  }

  private static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }
}
