package dev.ondevice;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The seed's rule, counted: host reads ({@code item()}, {@code to*Array}, printing, {@code cpu()})
 * synchronise with the device, so a training loop reads the loss once per epoch, not per batch.
 */
class SyncCountingTest {
  private static final Device CPU = Device.cpu();
  private static final Device CUDA0 = Device.cuda(0);
  private static final Device CUDA1 = Device.cuda(1);
  private static final int BATCHES = 12;

  private Tensor weights;
  private Tensor targets;
  private List<Tensor> batches;

  /** A small regression problem on cuda:0, made before counting starts. */
  @BeforeEach
  void setUp() {
    Generator gen = new Generator(42);
    weights = Tensor.randn(Shape.of(8, 1), DType.FLOAT32, CUDA0, gen).requiresGrad(true);
    targets = Tensor.randn(Shape.of(16, 1), DType.FLOAT32, CUDA0, gen);
    batches = new ArrayList<>();
    for (int i = 0; i < BATCHES; i++) {
      batches.add(Tensor.randn(Shape.of(16, 8), DType.FLOAT32, CUDA0, gen));
    }
    Cuda.synchronize();
    DeviceStats.reset();
  }

  private Tensor loss(Tensor xb) {
    return xb.matmul(weights).sub(targets).square().mean();
  }

  private static void assertSyncs(long expected, Device device, String why) {
    assertEquals(
        expected, DeviceStats.of(device).syncs(), why + " (" + DeviceStats.of(device) + ")");
  }

  // ---------------------------------------------------------------- the training loop

  @Test
  void accumulatingOnTheDeviceSynchronisesOncePerEpoch() {
    Tensor total = Tensor.zeros(Shape.scalar(), CUDA0);
    List<Tensor> losses = new ArrayList<>();
    for (Tensor xb : batches) {
      Tensor loss = loss(xb);
      loss.backward();
      losses.add(loss.detach());
      total = total.add(loss.detach());
    }
    assertSyncs(0, CUDA0, "the loop itself never waits for the device");
    double epochLoss = total.item();
    assertSyncs(1, CUDA0, "one item() after the epoch");
    assertEquals(1, DeviceStats.of(CUDA0).deviceToHostCopies());
    assertEquals(0, DeviceStats.of(CUDA0).hostToDeviceCopies());

    double expected = 0;
    for (Tensor l : losses) {
      expected += l.item();
    }
    assertEquals(expected, epochLoss, 1e-4 * Math.abs(expected));
  }

  @Test
  void accumulatingFromAPlainZeroSynchronisesOncePerEpochToo() {
    Tensor total = Tensor.scalar(0.0);
    for (Tensor xb : batches) {
      total = total.add(loss(xb).detach());
    }
    assertEquals(CUDA0, total.device(), "a CPU scalar plus a device tensor lives on the device");
    total.item();
    assertSyncs(1, CUDA0, "one item() after the epoch");
    assertEquals(0, DeviceStats.of(CUDA0).hostToDeviceCopies(), "the CPU zero is not transferred");
  }

  @Test
  void callingItemPerBatchSynchronisesEveryBatch() {
    double total = 0;
    for (Tensor xb : batches) {
      Tensor loss = loss(xb);
      loss.backward();
      total += loss.item();
    }
    assertSyncs(BATCHES, CUDA0, "one item() per batch");
    assertEquals(BATCHES, DeviceStats.of(CUDA0).deviceToHostCopies());
    assertTrue(total > 0);
  }

  @Test
  void callingCpuPerBatchSynchronisesEveryBatch() {
    for (Tensor xb : batches) {
      loss(xb).detach().cpu();
    }
    assertSyncs(BATCHES, CUDA0, "one cpu() per batch");
  }

  @Test
  void deviceOpsAloneNeverSynchronise() {
    Tensor x = batches.get(0);
    for (int i = 0; i < 50; i++) {
      x = x.mul(0.5).add(x.relu()).softmax(1);
    }
    Tensor y = Tensor.cat(List.of(x, x), 0).sum(0).to(CUDA1).mul(2.0);
    assertEquals(CUDA1, y.device());
    for (Device d : new Device[] {CPU, CUDA0, CUDA1}) {
      assertSyncs(0, d, "no host read yet on " + d);
    }
  }

  // ---------------------------------------------------------------- each host read, once

  static Stream<Arguments> hostReads() {
    return Stream.of(
        Arguments.of("item", (Consumer<Tensor>) t -> t.sum().item()),
        Arguments.of("itemAsLong", (Consumer<Tensor>) t -> t.sum().to(DType.INT64).itemAsLong()),
        Arguments.of("itemAsBoolean", (Consumer<Tensor>) t -> t.sum().gt(0.0).itemAsBoolean()),
        Arguments.of("toFloatArray", (Consumer<Tensor>) Tensor::toFloatArray),
        Arguments.of("toDoubleArray", (Consumer<Tensor>) Tensor::toDoubleArray),
        Arguments.of("toLongArray", (Consumer<Tensor>) t -> t.to(DType.INT64).toLongArray()),
        Arguments.of("toBooleanArray", (Consumer<Tensor>) t -> t.gt(0.0).toBooleanArray()),
        Arguments.of("toString", (Consumer<Tensor>) t -> assertFalse(t.toString().isEmpty())),
        Arguments.of("cpu", (Consumer<Tensor>) Tensor::cpu),
        Arguments.of("to(cpu)", (Consumer<Tensor>) t -> t.to(CPU)),
        Arguments.of(
            "copyFrom into the host",
            (Consumer<Tensor>) t -> Tensor.zeros(t.shape(), CPU).copyFrom(t)),
        Arguments.of(
            "reading a non-blocking copy", (Consumer<Tensor>) t -> t.to(CPU, true).toFloatArray()));
  }

  static Stream<Arguments> hostReadsOnDevices() {
    return hostReads()
        .flatMap(r -> Stream.of(CUDA0, CUDA1).map(d -> Arguments.of(r.get()[0], r.get()[1], d)));
  }

  @ParameterizedTest(name = "{0} on {2}")
  @MethodSource("hostReadsOnDevices")
  void eachHostReadSynchronisesOnce(String name, Consumer<Tensor> read, Device device) {
    Tensor t = Tensor.full(Shape.of(2, 3), 1.5, device);
    DeviceStats.reset();
    read.accept(t);
    assertSyncs(1, device, name);
    Device other = device.equals(CUDA0) ? CUDA1 : CUDA0;
    assertSyncs(0, other, name + " does not touch " + other);
  }

  @Test
  void printingATensorSynchronisesOnce() {
    Tensor t = Tensor.of(new float[] {1, 2}, Shape.of(2), CUDA0);
    DeviceStats.reset();
    String printed = String.valueOf(t);
    assertEquals("tensor([1., 2.], device='cuda:0 (emulated)')", printed);
    assertSyncs(1, CUDA0, "printing");
  }

  @Test
  void synchronizeCountsOnce() {
    Cuda.synchronize(CUDA0);
    assertSyncs(1, CUDA0, "Cuda.synchronize(cuda:0)");
    assertSyncs(0, CUDA1, "Cuda.synchronize(cuda:0) leaves cuda:1 alone");
    Cuda.synchronize(Device.cuda());
    assertSyncs(2, CUDA0, "Cuda.synchronize(cuda) means cuda:0");
  }

  @Test
  void synchronizeAllCountsOncePerDevice() {
    Cuda.synchronize();
    assertSyncs(1, CUDA0, "Cuda.synchronize()");
    assertSyncs(1, CUDA1, "Cuda.synchronize()");
    assertSyncs(0, CPU, "Cuda.synchronize()");
  }

  @Test
  void aCpuTensorsItemCountsOnTheCpu() {
    Tensor s = Tensor.scalar(3.0);
    assertEquals(3.0, s.item());
    assertSyncs(1, CPU, "item() on the CPU");
    assertSyncs(0, CUDA0, "item() on the CPU");
    Tensor.of(1f, 2f).toFloatArray();
    assertSyncs(2, CPU, "toFloatArray() on the CPU");
  }

  @Test
  void resetZeroesEveryCounter() {
    Tensor x = Tensor.ones(4).to(CUDA0);
    x.to(CUDA1).sum().item();
    x.toFloatArray();
    x.to(CPU);
    Tensor.scalar(1.0).item();
    DeviceStats.reset();
    for (Device d : new Device[] {CPU, CUDA0, CUDA1}) {
      DeviceStats s = DeviceStats.of(d);
      assertEquals(0, s.syncs(), d.toString());
      assertEquals(0, s.hostToDeviceCopies(), d.toString());
      assertEquals(0, s.hostToDeviceBytes(), d.toString());
      assertEquals(0, s.deviceToHostCopies(), d.toString());
      assertEquals(0, s.deviceToHostBytes(), d.toString());
      assertEquals(0, s.deviceToDeviceCopies(), d.toString());
      assertEquals(0, s.deviceToDeviceBytes(), d.toString());
    }
  }

  @Test
  void statsAreASnapshotOfAnIndexedDevice() {
    DeviceStats before = DeviceStats.of(Device.cuda());
    assertEquals(CUDA0, before.device());
    Cuda.synchronize(CUDA0);
    assertEquals(0, before.syncs(), "a snapshot does not change");
    assertEquals(1, DeviceStats.of(Device.cuda()).syncs());
    assertEquals(DeviceStats.of(CUDA0).toString(), DeviceStats.of(Device.cuda()).toString());
    assertTrue(
        DeviceStats.of(CUDA0)
            .toString()
            .startsWith("cuda:0 (emulated): 1 syncs (host waits for the device), "),
        DeviceStats.of(CUDA0).toString());
    assertSame(CPU, DeviceStats.of(CPU).device());
  }

  @Test
  void onTheCpuTheCountSaysItCountsHostReads() {
    Tensor.scalar(2.0).item();
    Tensor.ones(3).toFloatArray();
    assertEquals(
        "cpu: 2 host reads (item(), to*Array(), printing; none waits for a device)",
        DeviceStats.of(CPU).toString());
  }

  @Test
  void aNonBlockingResultWhoseArrivalWasObservedIsReadWithoutASync() {
    Device cuda = Device.cuda(0);
    Tensor host = Tensor.ones(Shape.of(4), cuda).mul(3.0).to(Device.cpu(), true);
    while (!host.isReady()) {
      Thread.onSpinWait();
    }
    DeviceStats.reset();
    assertEquals(3.0, host.toFloatArray()[0]);
    assertEquals(0, DeviceStats.of(cuda).syncs());
    assertFalse(
        Tensor.ones(Shape.of(1), cuda).isReady(), "a tensor on a device is never ready to read");
  }
}
