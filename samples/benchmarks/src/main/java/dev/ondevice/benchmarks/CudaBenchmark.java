package dev.ondevice.benchmarks;

import dev.ondevice.Cuda;
import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Generator;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.samples.mnist.MnistCnn;
import dev.ondevice.samples.mnist.MnistMlp;
import java.util.Arrays;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * The GPU figures of {@code scripts/gpu-check.sh}, on {@code cuda:0}: matrix-product GFLOPS for n =
 * 1024 to 8192, elementwise bandwidth, host-device copy bandwidth from pinned and pageable memory,
 * the cost of one small op, and MNIST MLP and CNN training throughput (batch 128, SGD with
 * momentum, data on the device). {@code scripts/gpu_bench.py} measures the same with PyTorch. Each
 * figure is the median of several timed rounds after warm-up; every round ends with a
 * synchronisation, so the device's work is in the time. Prints one tab-separated line per figure:
 * {@code metric, value, unit}. Argument: {@code quick} for smaller sizes (a check of the script on
 * a machine without a GPU).
 */
public final class CudaBenchmark {
  private static final Device DEVICE = Device.cuda(0);

  private CudaBenchmark() {}

  /** Runs every measurement and prints its line. */
  public static void main(String[] args) {
    boolean quick = args.length > 0 && args[0].equals("quick");
    if (!Cuda.isAvailable()) {
      System.out.println("# CUDA is not available: " + Cuda.unavailableReason().orElse(""));
      return;
    }
    System.out.println("# " + Cuda.summary());
    for (int n : quick ? new int[] {256, 512} : new int[] {1024, 2048, 4096, 8192}) {
      matmul(n, quick);
    }
    elementwise(quick ? 1 << 20 : 1 << 25);
    copies(quick ? 1 << 22 : 1 << 28);
    launchOverhead(quick ? 200 : 5000);
    int rounds = quick ? 2 : 5;
    line(
        "train_mlp_samples_per_s",
        median(TrainingBenchmark.measure(new MnistMlp(DEVICE), DEVICE, rounds, quick ? 3 : 200)),
        "samples/s");
    line(
        "train_cnn_samples_per_s",
        median(TrainingBenchmark.measure(new MnistCnn(DEVICE), DEVICE, rounds, quick ? 1 : 50)),
        "samples/s");
  }

  private static void line(String metric, double value, String unit) {
    System.out.printf(Locale.ROOT, "%s\t%.3f\t%s%n", metric, value, unit);
  }

  /**
   * The median seconds of {@code rounds} timed runs of {@code work}, after {@code warmups} untimed
   * ones.
   */
  private static double seconds(int warmups, int rounds, Runnable work) {
    for (int i = 0; i < warmups; i++) {
      work.run();
    }
    Cuda.synchronize();
    double[] t = new double[rounds];
    for (int r = 0; r < rounds; r++) {
      long start = System.nanoTime();
      work.run();
      Cuda.synchronize();
      t[r] = (System.nanoTime() - start) / 1e9;
    }
    return median(t);
  }

  private static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    return sorted[sorted.length / 2];
  }

  private static void matmul(int n, boolean quick) {
    Generator g = new Generator(n);
    Tensor a = Tensor.randn(Shape.of(n, n), DType.FLOAT32, DEVICE, g);
    Tensor b = Tensor.randn(Shape.of(n, n), DType.FLOAT32, DEVICE, g);
    int reps = quick ? 2 : Math.max(3, (int) (2e11 / (2.0 * n * n * n)));
    Tensor[] sink = new Tensor[1];
    double s =
        seconds(
            2,
            5,
            () -> {
              for (int i = 0; i < reps; i++) {
                sink[0] = a.matmul(b);
              }
            });
    line("matmul_f32_n" + n + "_gflops", 2.0 * n * n * n * reps / s / 1e9, "GFLOP/s");
  }

  private static void elementwise(int n) {
    Tensor a = Tensor.rand(Shape.of(n), DEVICE);
    Tensor b = Tensor.rand(Shape.of(n), DEVICE);
    int reps = 10;
    Tensor[] sink = new Tensor[1];
    double s =
        seconds(
            3,
            5,
            () -> {
              for (int i = 0; i < reps; i++) {
                sink[0] = a.add(b);
              }
            });
    line("add_f32_gbps", 3.0 * 4 * n * reps / s / 1e9, "GB/s");
    double r =
        seconds(
            3,
            5,
            () -> {
              for (int i = 0; i < reps; i++) {
                sink[0] = a.relu();
              }
            });
    line("relu_f32_gbps", 2.0 * 4 * n * reps / r / 1e9, "GB/s");
  }

  private static void copies(int n) {
    Tensor pinned = Tensor.rand(Shape.of(n)).pinMemory();
    Tensor pageable = Tensor.rand(Shape.of(n));
    double bytes = 4.0 * n;
    Tensor[] sink = new Tensor[1];
    line(
        "h2d_pinned_gbps",
        bytes / seconds(2, 5, () -> sink[0] = pinned.to(DEVICE, true)) / 1e9,
        "GB/s");
    line(
        "h2d_pageable_gbps",
        bytes / seconds(2, 5, () -> sink[0] = pageable.to(DEVICE)) / 1e9,
        "GB/s");
    Tensor onDevice = pinned.to(DEVICE);
    line(
        "d2h_pinned_gbps",
        bytes / seconds(2, 5, () -> sink[0] = onDevice.to(Device.cpu(), true)) / 1e9,
        "GB/s");
    line(
        "d2h_pageable_gbps",
        bytes / seconds(2, 5, () -> sink[0] = onDevice.to(Device.cpu())) / 1e9,
        "GB/s");
  }

  private static void launchOverhead(int ops) {
    Tensor x = Tensor.ones(Shape.of(1), DEVICE);
    Supplier<Tensor> op = () -> x.add(x);
    Tensor[] sink = new Tensor[1];
    double s =
        seconds(
            2,
            5,
            () -> {
              for (int i = 0; i < ops; i++) {
                sink[0] = op.get();
              }
            });
    line("small_op_us", s / ops * 1e6, "us/op");
  }
}
