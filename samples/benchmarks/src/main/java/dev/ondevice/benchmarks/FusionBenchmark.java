package dev.ondevice.benchmarks;

import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Generator;
import dev.ondevice.MemoryScope;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.nn.Conv2d;
import dev.ondevice.nn.CrossEntropyLoss;
import dev.ondevice.nn.Layer;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.MaxPool2d;
import dev.ondevice.optim.Sgd;
import dev.ondevice.samples.mnist.MnistCnn;
import dev.ondevice.samples.mnist.MnistMlp;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.BiFunction;

/**
 * The fused epilogues of issue 24 against the ops they replace, side by side in one JVM: the MNIST
 * sample's models as it trains them ({@link Linear#forwardRelu} for each hidden linear layer and
 * its relu, {@link CrossEntropyLoss} as one op) and the same layers unfused ({@code
 * forward(x).relu()}, and log-softmax, gather, negation and mean for the loss), trained as {@link
 * TrainingBenchmark} does (SGD with momentum, batch 128, 16 random batches, a {@link MemoryScope}
 * per step). The two alternate round by round, the first of each round swapping; each prints the
 * median of its rounds and the median over the rounds of unfused time / fused time (the speed-up of
 * the fusions), by wall time and by the process's CPU time. What both share (the convolutions, the
 * products, the bias in the product's output pass, the exponentials) is not compared here.
 *
 * <p>Arguments: {@code [mlp|cnn|both] [rounds] [batchesPerRound]} (defaults {@code both 15 200};
 * the CNN runs a fifth of the batches). The JVM's process CPU time advances in steps of 10 ms here,
 * so rounds of a second or more keep its ratios to a per cent.
 */
public final class FusionBenchmark {
  private FusionBenchmark() {}

  /** Runs the comparison; see the class comment for the arguments. */
  public static void main(String[] args) {
    String which = args.length > 0 ? args[0] : "both";
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 15;
    int batches = args.length > 2 ? Integer.parseInt(args[2]) : 200;
    Device device = Device.cpu();
    if (!which.equals("cnn")) {
      compare(
          "mlp",
          new Trainer(new MnistMlp(device), FusionBenchmark::fusedLoss, device),
          new Trainer(new UnfusedMlp(device), FusionBenchmark::unfusedLoss, device),
          rounds,
          batches);
    }
    if (!which.equals("mlp")) {
      compare(
          "cnn",
          new Trainer(new MnistCnn(device), FusionBenchmark::fusedLoss, device),
          new Trainer(new UnfusedCnn(device), FusionBenchmark::unfusedLoss, device),
          rounds,
          Math.max(1, batches / 5));
    }
  }

  private static final CrossEntropyLoss CRITERION = new CrossEntropyLoss();

  private static Tensor fusedLoss(Tensor logits, Tensor target) {
    return CRITERION.forward(logits, target);
  }

  /** What {@link CrossEntropyLoss} computed before it was one op. */
  private static Tensor unfusedLoss(Tensor logits, Tensor target) {
    return logits.logSoftmax(1).gather(1, target.unsqueeze(1)).squeeze(1).neg().mean();
  }

  private static void compare(
      String name, Trainer fused, Trainer unfused, int rounds, int batches) {
    for (int warmUp = 0; warmUp < 3; warmUp++) {
      fused.round(batches);
      unfused.round(batches);
    }
    double[][] fusedTimes = new double[2][rounds];
    double[][] unfusedTimes = new double[2][rounds];
    for (int r = 0; r < rounds; r++) {
      Trainer first = r % 2 == 0 ? fused : unfused;
      Trainer second = first == fused ? unfused : fused;
      double[] a = first.round(batches);
      double[] b = second.round(batches);
      double[] f = first == fused ? a : b;
      double[] u = first == fused ? b : a;
      for (int k = 0; k < 2; k++) {
        fusedTimes[k][r] = f[k];
        unfusedTimes[k][r] = u[k];
      }
    }
    double samples = batches * (double) Trainer.BATCH_SIZE;
    String[] kinds = {"wall", "CPU"};
    for (int k = 0; k < 2; k++) {
      double[] ratios = new double[rounds];
      for (int r = 0; r < rounds; r++) {
        ratios[r] = unfusedTimes[k][r] / fusedTimes[k][r];
      }
      Arrays.sort(ratios);
      System.out.printf(
          Locale.ROOT,
          "%s, %s time: fused %,.0f samples/s, unfused %,.0f; unfused / fused = %.3f (rounds"
              + " %.3f-%.3f)%n",
          name,
          kinds[k],
          samples / median(fusedTimes[k]),
          samples / median(unfusedTimes[k]),
          ratios[rounds / 2],
          ratios[0],
          ratios[rounds - 1]);
    }
  }

  private static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    return sorted[sorted.length / 2];
  }

  /** A model, its SGD optimizer, its loss and the 16 batches, trained round by round. */
  private static final class Trainer {
    static final int BATCH_SIZE = 128;
    private final Layer model;
    private final BiFunction<Tensor, Tensor, Tensor> loss;
    private final Sgd optimizer;
    private final List<Tensor> inputs = new ArrayList<>();
    private final List<Tensor> targets = new ArrayList<>();

    Trainer(Layer model, BiFunction<Tensor, Tensor, Tensor> loss, Device device) {
      this.model = model;
      this.loss = loss;
      this.optimizer = new Sgd(model.parameters(), 0.05).momentum(0.9);
      Generator generator = new Generator(0);
      for (int i = 0; i < 16; i++) {
        inputs.add(Tensor.rand(Shape.of(BATCH_SIZE, 1, 28, 28), DType.FLOAT32, device, generator));
        targets.add(Tensor.randint(0, 10, Shape.of(BATCH_SIZE), device, generator));
      }
    }

    /** Trains on {@code batches} batches; returns the seconds of wall and of CPU time taken. */
    double[] round(int batches) {
      long cpu = processCpuNanos();
      long start = System.nanoTime();
      Tensor total = Tensor.zeros(Shape.scalar());
      for (int b = 0; b < batches; b++) {
        try (MemoryScope step = MemoryScope.open()) {
          Tensor value = loss.apply(model.forward(inputs.get(b % 16)), targets.get(b % 16));
          optimizer.zeroGrad();
          value.backward();
          optimizer.step();
          total = total.add(value.detach());
        }
      }
      total.item();
      return new double[] {(System.nanoTime() - start) / 1e9, (processCpuNanos() - cpu) / 1e9};
    }

    private static long processCpuNanos() {
      return ((com.sun.management.OperatingSystemMXBean)
              ManagementFactory.getOperatingSystemMXBean())
          .getProcessCpuTime();
    }
  }

  /** {@link MnistMlp} with each linear layer and its relu as two ops. */
  static final class UnfusedMlp extends Layer {
    final Linear fc1;
    final Linear fc2;
    final Linear fc3;

    UnfusedMlp(Device device) {
      fc1 = new Linear(784, 512, true, device);
      fc2 = new Linear(512, 256, true, device);
      fc3 = new Linear(256, 10, true, device);
    }

    @Override
    public Tensor forward(Tensor images) {
      Tensor x = images.flatten(1, -1);
      x = fc1.forward(x).relu();
      x = fc2.forward(x).relu();
      return fc3.forward(x);
    }
  }

  /** {@link MnistCnn} with its first linear layer and its relu as two ops. */
  static final class UnfusedCnn extends Layer {
    final Conv2d conv1;
    final Conv2d conv2;
    final MaxPool2d pool = new MaxPool2d(2);
    final Linear fc1;
    final Linear fc2;

    UnfusedCnn(Device device) {
      conv1 = new Conv2d(1, 32, 3, 1, 1, true, device);
      conv2 = new Conv2d(32, 64, 3, 1, 1, true, device);
      fc1 = new Linear(64 * 7 * 7, 128, true, device);
      fc2 = new Linear(128, 10, true, device);
    }

    @Override
    public Tensor forward(Tensor images) {
      Tensor x = pool.forward(conv1.forward(images).relu());
      x = pool.forward(conv2.forward(x).relu());
      x = fc1.forward(x.flatten(1, -1)).relu();
      return fc2.forward(x);
    }
  }
}
