package dev.ondevice.benchmarks;

import dev.ondevice.Device;
import dev.ondevice.Generator;
import dev.ondevice.MemoryScope;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.nn.CrossEntropyLoss;
import dev.ondevice.nn.Layer;
import dev.ondevice.optim.Sgd;
import dev.ondevice.samples.mnist.MnistCnn;
import dev.ondevice.samples.mnist.MnistMlp;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Training throughput of the MNIST models with the data already in memory: SGD (lr 0.05, momentum
 * 0.9), batch 128, the batches prepared beforehand as tensors on the device. Reports the median
 * samples per second of several rounds. Arguments: {@code [mlp|cnn|both] [rounds]
 * [batchesPerRound]}.
 */
public final class TrainingBenchmark {
  private TrainingBenchmark() {}

  /**
   * Runs the benchmark and prints two lines per model: samples per second of wall time, and per
   * second of the process's CPU time (all its threads, the collector's included), which other work
   * on a shared machine disturbs less.
   */
  public static void main(String[] args) {
    String which = args.length > 0 ? args[0] : "both";
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
    int batches = args.length > 2 ? Integer.parseInt(args[2]) : 100;
    Device device = Device.cudaIfAvailable();
    if (!which.equals("cnn")) {
      run("mlp", new MnistMlp(device), device, rounds, batches);
    }
    if (!which.equals("mlp")) {
      run("cnn", new MnistCnn(device), device, rounds, Math.max(1, batches / 5));
    }
  }

  private static void run(String name, Layer model, Device device, int rounds, int batches) {
    Session session = new Session(model, device);
    session.round(batches);
    double[] wall = new double[rounds];
    double[] cpu = new double[rounds];
    for (int round = 0; round < rounds; round++) {
      long cpuBefore = processCpuNanos();
      wall[round] = session.round(batches);
      cpu[round] = batches * (double) Session.BATCH_SIZE / ((processCpuNanos() - cpuBefore) / 1e9);
    }
    report(name, wall);
    report(name + " per CPU-second", cpu);
  }

  private static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  private static void report(String name, double[] samplesPerSecond) {
    double[] sorted = samplesPerSecond.clone();
    Arrays.sort(sorted);
    System.out.printf(
        Locale.ROOT,
        "%s: median %,.0f samples/s (rounds: %s)%n",
        name,
        sorted[sorted.length / 2],
        Arrays.toString(Arrays.stream(samplesPerSecond).mapToLong(Math::round).toArray()));
  }

  /** Samples per second of each round, after one warm-up round. */
  public static double[] measure(Layer model, Device device, int rounds, int batchesPerRound) {
    Session session = new Session(model, device);
    session.round(batchesPerRound);
    double[] result = new double[rounds];
    for (int round = 0; round < rounds; round++) {
      result[round] = session.round(batchesPerRound);
    }
    return result;
  }

  /**
   * One model's training set up for measuring: the 16 random batches of 128 (seed 0), the SGD
   * optimizer and the loss, trained round by round so that another measurement can run between
   * rounds.
   */
  public static final class Session {
    static final int BATCH_SIZE = 128;
    private final Layer model;
    private final Device device;
    private final List<Tensor> inputs = new ArrayList<>();
    private final List<Tensor> targets = new ArrayList<>();
    private final Sgd optimizer;
    private final CrossEntropyLoss criterion = new CrossEntropyLoss();

    /** Prepares the batches on {@code device} and the optimizer of {@code model}. */
    public Session(Layer model, Device device) {
      this.model = model;
      this.device = device;
      Generator.manualSeed(0);
      for (int i = 0; i < 16; i++) {
        inputs.add(Tensor.rand(Shape.of(BATCH_SIZE, 1, 28, 28), device));
        targets.add(Tensor.randint(0, 10, Shape.of(BATCH_SIZE), device));
      }
      optimizer = new Sgd(model.parameters(), 0.05).momentum(0.9);
    }

    /**
     * Trains on {@code batches} batches, cycling the prepared ones, each step in a {@link
     * MemoryScope} (as DJL's side closes a sub-manager after each step); returns samples per
     * second.
     */
    public double round(int batches) {
      long start = System.nanoTime();
      Tensor total = Tensor.zeros(Shape.scalar(), device);
      for (int b = 0; b < batches; b++) {
        try (MemoryScope step = MemoryScope.open()) {
          Tensor loss = criterion.forward(model.forward(inputs.get(b % 16)), targets.get(b % 16));
          optimizer.zeroGrad();
          loss.backward();
          optimizer.step();
          total = total.add(loss.detach());
        }
      }
      total.item();
      double seconds = (System.nanoTime() - start) / 1e9;
      return batches * (double) BATCH_SIZE / seconds;
    }
  }
}
