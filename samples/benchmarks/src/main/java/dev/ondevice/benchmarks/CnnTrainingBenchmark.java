package dev.ondevice.benchmarks;

import dev.ondevice.Autograd;
import dev.ondevice.Cpu;
import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Generator;
import dev.ondevice.Parameter;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.nn.Conv2d;
import dev.ondevice.nn.CrossEntropyLoss;
import dev.ondevice.nn.Flatten;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.MaxPool2d;
import dev.ondevice.nn.ReLU;
import dev.ondevice.nn.Sequential;
import java.util.Locale;

/**
 * Training throughput of a small MNIST CNN on the CPU: conv 1->32 3x3 pad 1, relu, max-pool 2, conv
 * 32->64 3x3 pad 1, relu, max-pool 2, linear 3136->128, relu, linear 128->10, cross entropy, and a
 * plain SGD update, on random 28x28 batches. It prints samples per second over the timed steps,
 * after warm-up steps that let the JIT compile the kernels.
 *
 * <p>Arguments: {@code --batch N} (128), {@code --warmup N} (10 steps), {@code --steps N} (30).
 */
public final class CnnTrainingBenchmark {
  private CnnTrainingBenchmark() {}

  /** Runs the benchmark; see the class comment for the arguments. */
  public static void main(String[] args) {
    int batch = 128;
    int warmup = 10;
    int steps = 30;
    for (int i = 0; i + 1 < args.length; i += 2) {
      int value = Integer.parseInt(args[i + 1]);
      switch (args[i]) {
        case "--batch" -> batch = value;
        case "--warmup" -> warmup = value;
        case "--steps" -> steps = value;
        default -> throw new IllegalArgumentException("Unknown argument " + args[i]);
      }
    }
    Device cpu = Device.cpu();
    Sequential net =
        new Sequential(
            new Conv2d(1, 32, 3, 1, 1, true, cpu),
            new ReLU(),
            new MaxPool2d(2),
            new Conv2d(32, 64, 3, 1, 1, true, cpu),
            new ReLU(),
            new MaxPool2d(2),
            new Flatten(),
            new Linear(3136, 128, true, cpu),
            new ReLU(),
            new Linear(128, 10, true, cpu));
    CrossEntropyLoss criterion = new CrossEntropyLoss();
    Generator data = new Generator(1);
    Tensor images = Tensor.randn(Shape.of(batch, 1, 28, 28), DType.FLOAT32, cpu, data);
    Tensor labels = Tensor.randint(0, 10, Shape.of(batch), cpu, data);
    double loss = 0;
    for (int i = 0; i < warmup; i++) {
      loss = step(net, criterion, images, labels);
    }
    long start = System.nanoTime();
    for (int i = 0; i < steps; i++) {
      loss = step(net, criterion, images, labels);
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    System.out.printf(
        Locale.ROOT,
        "MNIST CNN, batch %d, %d threads: %.1f ms/step, %.0f samples/s (last loss %.4f)%n",
        batch,
        Cpu.threads(),
        1000 * seconds / steps,
        batch * steps / seconds,
        loss);
  }

  /** One forward, backward and SGD step; returns the loss (a host read, once per step). */
  private static double step(
      Sequential net, CrossEntropyLoss criterion, Tensor images, Tensor labels) {
    net.zeroGrad();
    Tensor loss = criterion.forward(net.forward(images), labels);
    loss.backward();
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      for (Parameter p : net.parameters()) {
        p.addi(p.grad(), -0.01);
      }
    }
    return loss.item();
  }
}
