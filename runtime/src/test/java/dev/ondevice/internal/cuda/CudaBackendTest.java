package dev.ondevice.internal.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ondevice.Cuda;
import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.DeviceOutOfMemoryException;
import dev.ondevice.DeviceStats;
import dev.ondevice.Generator;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.internal.backend.Backends;
import dev.ondevice.internal.backend.DeviceId;
import dev.ondevice.nn.Conv2d;
import dev.ondevice.nn.CrossEntropyLoss;
import dev.ondevice.nn.Linear;
import dev.ondevice.nn.MaxPool2d;
import dev.ondevice.nn.ReLU;
import dev.ondevice.nn.Sequential;
import dev.ondevice.optim.Adam;
import dev.ondevice.optim.Optimizer;
import dev.ondevice.optim.Sgd;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The CUDA backend against the CPU on random inputs large enough for every launch plan: multi-block
 * grids, split reductions, every GEMM tile and split-K, strided and broadcast operands, copies in
 * both directions and between devices, memory accounting and training. Runs on a GPU, or on the
 * host-executed driver (the backend's own code and kernels on the CPU); reported as skipped where
 * cuda:0 is not the CUDA backend's (no CUDA, or emulated devices).
 */
class CudaBackendTest {
  private static final Device CPU = Device.cpu();

  static Stream<Device> cuda() {
    return Stream.of(Device.cuda(0));
  }

  private static void requireBackend(Device d) {
    Assumptions.assumeTrue(
        Cuda.isAvailable() && !Cuda.isEmulated() && cudaBackend(d) != null,
        "cuda:0 is not the CUDA backend's: "
            + Cuda.unavailableReason().orElse("the devices are emulated"));
  }

  private static Tensor random(Generator g, long... shape) {
    return Tensor.randn(Shape.of(shape), DType.FLOAT32, CPU, g);
  }

  /**
   * Asserts that {@code op} gives the same values on {@code d} as on the CPU, within float32
   * rounding.
   */
  private static void sameAsCpu(
      String what, Device d, Tensor[] inputs, Function<Tensor[], Tensor> op, double rtol) {
    Tensor expected = op.apply(inputs);
    Tensor[] moved = new Tensor[inputs.length];
    for (int i = 0; i < inputs.length; i++) {
      moved[i] = inputs[i].to(d);
    }
    Tensor actual = op.apply(moved);
    assertEquals(d, actual.device(), what + " stays on the device");
    assertEquals(expected.shape(), actual.shape(), what);
    assertEquals(expected.dtype(), actual.dtype(), what);
    assertClose(
        what,
        expected.to(DType.FLOAT64).toDoubleArray(),
        actual.to(DType.FLOAT64).toDoubleArray(),
        rtol);
  }

  /**
   * Asserts each value within {@code rtol} of its own magnitude plus {@code rtol} of a tenth of the
   * largest: float32 sums (dot products, convolutions) round relative to their terms, not to a
   * result that cancels.
   */
  private static void assertClose(String what, double[] expected, double[] actual, double rtol) {
    assertEquals(expected.length, actual.length, what);
    double scale = 0;
    for (double e : expected) {
      if (Double.isFinite(e)) {
        scale = Math.max(scale, Math.abs(e));
      }
    }
    for (int i = 0; i < expected.length; i++) {
      double e = expected[i];
      double a = actual[i];
      if (Double.isNaN(e) || Double.isInfinite(e)) {
        assertEquals(e, a, what + " at " + i);
        continue;
      }
      double tol = rtol * (Math.abs(e) + 0.1 * scale) + 1e-30;
      assertTrue(Math.abs(e - a) <= tol, what + " at " + i + ": expected " + e + " but was " + a);
    }
  }

  @ParameterizedTest
  @MethodSource("cuda")
  void elementwiseOpsOnLargeStridedAndBroadcastOperands(Device d) {
    requireBackend(d);
    Generator g = new Generator(1);
    Tensor a = random(g, 300, 700);
    Tensor b = random(g, 700);
    Tensor c = random(g, 700, 300);
    sameAsCpu("add with a broadcast row", d, new Tensor[] {a, b}, t -> t[0].add(t[1]), 1e-6);
    sameAsCpu("mul by a transposed view", d, new Tensor[] {a, c}, t -> t[0].mul(t[1].t()), 1e-6);
    sameAsCpu("div", d, new Tensor[] {a, c}, t -> t[0].div(t[1].t().abs().add(0.5)), 1e-6);
    sameAsCpu("pow", d, new Tensor[] {a}, t -> t[0].abs().pow(t[0].mul(0.5)), 1e-5);
    sameAsCpu(
        "exp, log, tanh, sigmoid, erf",
        d,
        new Tensor[] {a},
        t ->
            t[0].exp()
                .add(t[0].abs().add(1e-3).log())
                .add(t[0].tanh())
                .add(t[0].sigmoid())
                .add(t[0].erf()),
        1e-5);
    sameAsCpu(
        "sqrt, rsqrt, sin, cos, round",
        d,
        new Tensor[] {a},
        t ->
            t[0].abs()
                .sqrt()
                .add(t[0].abs().add(1).rsqrt())
                .add(t[0].sin())
                .add(t[0].cos())
                .add(t[0].mul(3).round()),
        1e-5);
    sameAsCpu(
        "comparisons and where",
        d,
        new Tensor[] {a, c},
        t -> Tensor.where(t[0].gt(t[1].t()), t[0], t[1].t().neg()),
        0);
    sameAsCpu("maximum with NaN", d, new Tensor[] {a}, t -> t[0].maximum(t[0].log()), 0);
    sameAsCpu(
        "float64",
        d,
        new Tensor[] {a.to(DType.FLOAT64)},
        t -> t[0].mul(t[0]).sub(t[0].exp()),
        1e-12);
    sameAsCpu(
        "int64 arithmetic",
        d,
        new Tensor[] {a.mul(100).to(DType.INT64)},
        t -> t[0].mul(t[0]).sub(t[0].abs()).add(7.0),
        0);
    sameAsCpu(
        "conversions",
        d,
        new Tensor[] {a.mul(1e3)},
        t -> t[0].to(DType.INT64).to(DType.FLOAT64).add(t[0].gt(0.0).to(DType.FLOAT64)),
        0);
  }

  @ParameterizedTest
  @MethodSource("cuda")
  void reductionsOverEveryPlan(Device d) {
    requireBackend(d);
    Generator g = new Generator(2);
    Tensor a = random(g, 300, 1000);
    sameAsCpu("row sums (a block per row)", d, new Tensor[] {a}, t -> t[0].sum(1), 1e-5);
    sameAsCpu("column sums (a thread per column)", d, new Tensor[] {a}, t -> t[0].sum(0), 1e-5);
    sameAsCpu(
        "a full sum split over the device",
        d,
        new Tensor[] {random(g, 2_000_000)},
        t -> t[0].sum(),
        1e-6);
    sameAsCpu("mean over a transposed view", d, new Tensor[] {a}, t -> t[0].t().mean(1), 1e-5);
    sameAsCpu("max", d, new Tensor[] {a}, t -> t[0].max(), 0);
    sameAsCpu("argmax of rows", d, new Tensor[] {a}, t -> t[0].argmax(1, false), 0);
    sameAsCpu("argmax of columns", d, new Tensor[] {a}, t -> t[0].argmax(0, true), 0);
    sameAsCpu("argmax of everything", d, new Tensor[] {a}, t -> t[0].argmax(), 0);
    sameAsCpu("int64 sums", d, new Tensor[] {a.mul(1000).to(DType.INT64)}, t -> t[0].sum(1), 0);
    sameAsCpu("bool counts", d, new Tensor[] {a}, t -> t[0].gt(0.0).sum(), 0);
    sameAsCpu(
        "softmax of long rows", d, new Tensor[] {random(g, 8, 5000)}, t -> t[0].softmax(1), 1e-5);
    sameAsCpu(
        "log-softmax along dim 0",
        d,
        new Tensor[] {random(g, 40, 3, 7)},
        t -> t[0].logSoftmax(0),
        1e-5);
  }

  @ParameterizedTest
  @MethodSource("cuda")
  void matrixProductsOfEveryTileAndLayout(Device d) {
    requireBackend(d);
    Generator g = new Generator(3);
    BiFunction<long[], long[], Tensor[]> pair = (x, y) -> new Tensor[] {random(g, x), random(g, y)};
    sameAsCpu(
        "1x1x1", d, pair.apply(new long[] {1, 1}, new long[] {1, 1}), t -> t[0].matmul(t[1]), 1e-6);
    sameAsCpu(
        "odd sizes",
        d,
        pair.apply(new long[] {17, 33}, new long[] {33, 9}),
        t -> t[0].matmul(t[1]),
        1e-5);
    sameAsCpu(
        "128x128 tiles",
        d,
        pair.apply(new long[] {300, 260}, new long[] {260, 280}),
        t -> t[0].matmul(t[1]),
        1e-4);
    sameAsCpu(
        "128x128 tiles, A transposed",
        d,
        pair.apply(new long[] {200, 260}, new long[] {200, 270}),
        t -> t[0].t().matmul(t[1]),
        1e-4);
    sameAsCpu(
        "128x128 tiles, B transposed",
        d,
        pair.apply(new long[] {260, 200}, new long[] {270, 200}),
        t -> t[0].matmul(t[1].t()),
        1e-4);
    sameAsCpu(
        "128x128 tiles, both transposed",
        d,
        pair.apply(new long[] {200, 260}, new long[] {270, 200}),
        t -> t[0].t().matmul(t[1].t()),
        1e-4);
    sameAsCpu(
        "128x128 tiles, rows not 16-byte aligned",
        d,
        pair.apply(new long[] {257, 259}, new long[] {259, 261}),
        t -> t[0].matmul(t[1]),
        1e-4);
    sameAsCpu(
        "split K",
        d,
        pair.apply(new long[] {128, 784}, new long[] {784, 512}),
        t -> t[0].matmul(t[1]),
        1e-4);
    sameAsCpu(
        "A transposed",
        d,
        pair.apply(new long[] {70, 50}, new long[] {70, 60}),
        t -> t[0].t().matmul(t[1]),
        1e-5);
    sameAsCpu(
        "B transposed",
        d,
        pair.apply(new long[] {50, 70}, new long[] {60, 70}),
        t -> t[0].matmul(t[1].t()),
        1e-5);
    sameAsCpu(
        "both transposed",
        d,
        pair.apply(new long[] {70, 50}, new long[] {60, 70}),
        t -> t[0].t().matmul(t[1].t()),
        1e-5);
    sameAsCpu(
        "batched, broadcast",
        d,
        pair.apply(new long[] {4, 64, 48}, new long[] {48, 32}),
        t -> t[0].matmul(t[1]),
        1e-5);
    sameAsCpu(
        "a strided slice",
        d,
        pair.apply(new long[] {40, 90}, new long[] {30, 20}),
        t -> t[0].slice(1, 0, 90, 3).matmul(t[1]),
        1e-5);
    sameAsCpu(
        "more rows than one grid holds",
        d,
        pair.apply(new long[] {LaunchConfig.MAX_GRID_YZ * 128L + 300, 4}, new long[] {4, 2}),
        t -> t[0].matmul(t[1]),
        1e-6);
    sameAsCpu(
        "float64",
        d,
        new Tensor[] {random(g, 65, 70).to(DType.FLOAT64), random(g, 70, 66).to(DType.FLOAT64)},
        t -> t[0].matmul(t[1]),
        1e-12);
    sameAsCpu(
        "int64",
        d,
        new Tensor[] {
          random(g, 33, 40).mul(10).to(DType.INT64), random(g, 40, 35).mul(10).to(DType.INT64)
        },
        t -> t[0].matmul(t[1]),
        0);
  }

  @ParameterizedTest
  @MethodSource("cuda")
  void convolutionAndPoolingWithTheirGradients(Device d) {
    requireBackend(d);
    Generator.manualSeed(11);
    Conv2d conv = new Conv2d(3, 8, 3, 2, 1, true);
    MaxPool2d pool = new MaxPool2d(2);
    Tensor x = random(new Generator(4), 4, 3, 29, 29);
    Tensor cpuOut = pool.forward(conv.forward(x.requiresGrad(true)).relu());
    cpuOut.sum().backward();
    double[] cpuGradX = x.grad().toDoubleArray();
    double[] cpuGradW = conv.weight().grad().toDoubleArray();
    conv.zeroGrad();
    conv.toDevice(d);
    Tensor xd = x.detach().to(d).requiresGrad(true);
    Tensor out = pool.forward(conv.forward(xd).relu());
    assertClose("forward", cpuOut.toDoubleArray(), out.toDoubleArray(), 1e-5);
    out.sum().backward();
    assertClose("input gradient", cpuGradX, xd.grad().toDoubleArray(), 1e-5);
    assertClose("weight gradient", cpuGradW, conv.weight().grad().toDoubleArray(), 1e-4);
  }

  @ParameterizedTest
  @MethodSource("cuda")
  void indexingOnLargeTensors(Device d) {
    requireBackend(d);
    Generator g = new Generator(5);
    Tensor table = random(g, 1000, 64);
    Tensor rows = Tensor.randint(0, 1000, Shape.of(500), CPU, g);
    sameAsCpu("indexSelect", d, new Tensor[] {table, rows}, t -> t[0].indexSelect(0, t[1]), 0);
    Tensor cols = Tensor.randint(0, 64, Shape.of(1000, 5), CPU, g);
    sameAsCpu("gather", d, new Tensor[] {table, cols}, t -> t[0].gather(1, t[1]), 0);
    Tensor w = table.detach().requiresGrad(true);
    w.indexSelect(0, rows).sum().backward();
    double[] cpuGrad = w.grad().toDoubleArray();
    Tensor wd = table.to(d).requiresGrad(true);
    wd.indexSelect(0, rows.to(d)).sum().backward();
    assertClose("indexAdd of repeated rows (atomics)", cpuGrad, wd.grad().toDoubleArray(), 1e-6);
  }

  @ParameterizedTest
  @MethodSource("cuda")
  void nonBlockingCopiesFromAndToPinnedMemory(Device d) {
    requireBackend(d);
    Tensor host = random(new Generator(6), 256, 1024).pinMemory();
    assertTrue(host.isPinned());
    Cuda.synchronize();
    DeviceStats.reset();
    Tensor dev = host.to(d, true);
    Tensor back = dev.mul(2.0).to(CPU, true);
    assertTrue(back.isPinned(), "a non-blocking copy to the host lands in pinned memory");
    assertEquals(0, DeviceStats.of(d).syncs(), "neither copy waited for the device");
    assertClose("round trip", host.mul(2.0).toDoubleArray(), back.toDoubleArray(), 0);
    assertTrue(back.isReady(), "reading waited for the copy");
    assertEquals(1, DeviceStats.of(d).hostToDeviceCopies());
    assertEquals(1, DeviceStats.of(d).deviceToHostCopies());
    // A blocking copy from pageable memory goes through a staging buffer and is right at once.
    Tensor pageable = random(new Generator(7), 1000);
    assertClose("pageable", pageable.toDoubleArray(), pageable.to(d).toDoubleArray(), 0);
    // Strided and converting copies in both directions.
    Tensor m = random(new Generator(8), 30, 40);
    assertClose(
        "strided to the device",
        m.t().contiguous().toDoubleArray(),
        m.t().to(d).contiguous().toDoubleArray(),
        0);
    Tensor target = Tensor.zeros(Shape.of(40, 30), DType.FLOAT64, CPU);
    target.copyFrom(m.t().to(d));
    assertClose(
        "converting into a host tensor",
        m.t().contiguous().toDoubleArray(),
        target.toDoubleArray(),
        1e-7);
  }

  @ParameterizedTest
  @MethodSource("cuda")
  void copiesBetweenDevices(Device d) {
    requireBackend(d);
    Assumptions.assumeTrue(Cuda.deviceCount() > 1, "needs a second CUDA device");
    Device other = Device.cuda(1);
    Tensor x = random(new Generator(9), 100, 50).to(d);
    Tensor y = x.t().to(other);
    assertEquals(other, y.device());
    assertClose(
        "peer copy of a transposed view",
        x.t().contiguous().toDoubleArray(),
        y.contiguous().toDoubleArray(),
        0);
    Tensor z = Tensor.zeros(Shape.of(50, 100), DType.FLOAT64, other);
    z.copyFrom(x.t());
    assertClose(
        "peer copy into a float64 tensor",
        x.t().contiguous().toDoubleArray(),
        z.toDoubleArray(),
        1e-7);
  }

  @ParameterizedTest
  @MethodSource("cuda")
  void memoryIsAccountedAndTheCacheGivenBack(Device d) {
    requireBackend(d);
    long before = Cuda.memoryAllocated(d);
    Tensor t = Tensor.zeros(Shape.of(5, 1 << 20), d);
    assertTrue(Cuda.memoryAllocated(d) >= before + (20L << 20), "20 MiB more are allocated");
    assertTrue(Cuda.memoryReserved(d) >= Cuda.memoryAllocated(d));
    assertTrue(Cuda.maxMemoryAllocated(d) >= Cuda.memoryAllocated(d));
    assertEquals(0.0, t.sum().item());
    t = null;
    long deadline = System.nanoTime() + 30_000_000_000L;
    while (Cuda.memoryAllocated(d) > before && System.nanoTime() < deadline) {
      System.gc();
      Thread.onSpinWait();
    }
    Cuda.emptyCache();
    assertTrue(
        Cuda.memoryReserved(d) < before + (20L << 20) + Cuda.memoryAllocated(d),
        "the block went back to the driver");
    assertFalse(Cuda.deviceName(0).isBlank());
  }

  @ParameterizedTest
  @MethodSource("cuda")
  void runningOutOfMemoryNamesTheRequest(Device d) {
    requireBackend(d);
    long chunk = Math.min(cudaBackend(d).cudaDevice().totalMemory() / 8, 1L << 30);
    List<Tensor> held = new ArrayList<>();
    DeviceOutOfMemoryException e =
        assertThrows(
            DeviceOutOfMemoryException.class,
            () -> {
              for (int i = 0; i < 1000; i++) {
                held.add(Tensor.empty(Shape.of(chunk / 4), DType.FLOAT32, d));
              }
            });
    assertTrue(
        e.getMessage().startsWith("CUDA out of memory on cuda:0: tried to allocate "),
        e.getMessage());
    assertTrue(e.getMessage().contains("tensors hold"), e.getMessage());
    assertTrue(
        e.getMessage().endsWith("Free the tensors you no longer need or use smaller batches"),
        e.getMessage());
    assertTrue(
        held.size() >= 6,
        "the device filled up before it ran out: " + held.size() + " blocks of " + chunk);
    held.clear();
    Cuda.emptyCache();
    assertEquals(
        2.0, Tensor.ones(Shape.of(2), d).sum().item(), "the device works after the failure");
  }

  @ParameterizedTest
  @MethodSource("cuda")
  void trainingMatchesTheCpuStepForStep(Device d) {
    requireBackend(d);
    Tensor x = random(new Generator(10), 64, 20);
    Tensor y = Tensor.randint(0, 5, Shape.of(64), CPU, new Generator(11));
    double[] cpu = train(CPU, x, y, false);
    double[] dev = train(d, x, y, false);
    assertClose("SGD losses", cpu, dev, 1e-4);
    assertTrue(dev[dev.length - 1] < dev[0] * 0.8, "the loss falls");
    assertClose("Adam losses", train(CPU, x, y, true), train(d, x, y, true), 1e-4);
  }

  private static double[] train(Device d, Tensor x, Tensor y, boolean adam) {
    Generator.manualSeed(12);
    Sequential model = new Sequential(new Linear(20, 32), new ReLU(), new Linear(32, 5));
    model.toDevice(d);
    Optimizer opt =
        adam ? new Adam(model.parameters(), 0.01) : new Sgd(model.parameters(), 0.1).momentum(0.9);
    CrossEntropyLoss criterion = new CrossEntropyLoss();
    Tensor xd = x.to(d);
    Tensor yd = y.to(d);
    List<Double> losses = new ArrayList<>();
    for (int step = 0; step < 15; step++) {
      Tensor loss = criterion.forward(model.forward(xd), yd);
      opt.zeroGrad();
      loss.backward();
      opt.step();
      losses.add(loss.item());
    }
    return losses.stream().mapToDouble(Double::doubleValue).toArray();
  }

  @ParameterizedTest
  @MethodSource("cuda")
  void anEpochWithPinnedBatchesSynchronisesOnce(Device d) {
    requireBackend(d);
    Generator.manualSeed(13);
    Sequential model = new Sequential(new Linear(20, 16), new ReLU(), new Linear(16, 3));
    model.toDevice(d);
    Sgd opt = new Sgd(model.parameters(), 0.05);
    CrossEntropyLoss criterion = new CrossEntropyLoss();
    List<Tensor[]> batches = new ArrayList<>();
    Generator g = new Generator(14);
    for (int i = 0; i < 10; i++) {
      batches.add(
          new Tensor[] {
            random(g, 32, 20).pinMemory(), Tensor.randint(0, 3, Shape.of(32), CPU, g).pinMemory()
          });
    }
    Cuda.synchronize();
    DeviceStats.reset();
    Tensor total = Tensor.zeros(Shape.scalar(), d);
    for (Tensor[] b : batches) {
      Tensor loss = criterion.forward(model.forward(b[0].to(d, true)), b[1].to(d, true));
      opt.zeroGrad();
      loss.backward();
      opt.step();
      total = total.add(loss.detach());
    }
    double mean = total.item() / batches.size();
    assertTrue(mean > 0 && Double.isFinite(mean));
    assertEquals(
        1, DeviceStats.of(d).syncs(), "one host synchronisation: the item() after the epoch");
    assertEquals(20, DeviceStats.of(d).hostToDeviceCopies(), "inputs and targets of every batch");
  }

  /** The CUDA backend of {@code d}, or null where it is emulated or absent. */
  static CudaBackend cudaBackend(dev.ondevice.Device d) {
    if (!d.isCuda() || Backends.deviceCount(DeviceId.CUDA_TYPE) <= Math.max(d.index(), 0)) {
      return null;
    }
    return Backends.of(DeviceId.cuda(Math.max(d.index(), 0))) instanceof CudaBackend b ? b : null;
  }
}
