package dev.ondevice;

import static dev.ondevice.EmulationTest.assertWaits;
import static dev.ondevice.EmulationTest.promptly;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ondevice.EmulationTest.StreamGate;
import java.util.Arrays;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Moving tensors between devices: {@code to} returns a new tensor (or the same one, free, when it
 * is already there), the copies are counted, and non-blocking copies are asynchronous yet never
 * read stale.
 */
class TransferTest {
  private static final Device CPU = Device.cpu();
  private static final Device CUDA0 = Device.cuda(0);
  private static final Device CUDA1 = Device.cuda(1);

  private ExecutorService worker;

  @BeforeEach
  void startWorker() {
    worker = Executors.newSingleThreadExecutor();
  }

  @AfterEach
  void stopWorker() {
    worker.shutdownNow();
  }

  private static float[] range(int n) {
    float[] v = new float[n];
    for (int i = 0; i < n; i++) {
      v[i] = i * 0.5f - 3;
    }
    return v;
  }

  /** All counters of the devices here, for "nothing changed" checks. */
  private static String counters() {
    return DeviceStats.of(CPU) + " | " + DeviceStats.of(CUDA0) + " | " + DeviceStats.of(CUDA1);
  }

  // ---------------------------------------------------------------- to() returns a new tensor

  @Test
  void toReturnsANewTensorAndLeavesTheOriginalWhereItWas() {
    Tensor x = Tensor.of(1f, 2f, 3f);
    Tensor y = x.to(CUDA0);
    assertNotSame(x, y);
    assertEquals(CPU, x.device());
    assertEquals(CUDA0, y.device());
    assertArrayEquals(new float[] {1, 2, 3}, y.toFloatArray());

    y.addi(10.0);
    assertArrayEquals(new float[] {1, 2, 3}, x.toFloatArray(), "the copy has its own memory");
    assertArrayEquals(new float[] {11, 12, 13}, y.toFloatArray());
  }

  @Test
  void discardingTheResultOfToMovesNothing() {
    Tensor x = Tensor.of(1f, 2f, 3f);
    x.to(CUDA0);
    assertEquals(CPU, x.device(), "a tensor never changes device in place");
    Tensor c = Tensor.ones(2, CUDA0);
    c.cpu();
    c.to(CUDA1);
    assertEquals(CUDA0, c.device());
  }

  static Stream<Device> devices() {
    return TestDevices.withSecondDevice();
  }

  @ParameterizedTest
  @MethodSource("devices")
  void toTheSameDeviceIsTheSameInstanceAndCopiesNothing(Device device) {
    Tensor x = Tensor.ones(4, 4, device);
    Cuda.synchronize();
    DeviceStats.reset();
    String before = counters();
    assertSame(x, x.to(device));
    assertSame(x, x.to(device, true));
    assertSame(x, x.to(Device.parse(device.toString())));
    assertEquals(before, counters(), "a no-op move is free");
  }

  @Test
  void theCurrentCudaDeviceIsCudaZero() {
    Tensor x = Tensor.ones(2, CUDA0);
    DeviceStats.reset();
    String before = counters();
    assertSame(x, x.to(Device.cuda()));
    assertSame(x, x.cuda());
    assertSame(x, x.cuda(0));
    assertEquals(before, counters());

    Tensor y = Tensor.ones(2, CUDA1);
    Tensor moved = y.to(Device.cuda());
    assertNotSame(y, moved);
    assertEquals(CUDA0, moved.device());
    assertEquals(CUDA0, y.cuda().device());
    assertEquals(CUDA1, y.device());
  }

  @Test
  void shorthandsMoveToTheirDevice() {
    Tensor x = Tensor.of(1f, 2f);
    Tensor c = x.cuda();
    assertEquals(CUDA0, c.device());
    Tensor c1 = x.cuda(1);
    assertEquals(CUDA1, c1.device());
    assertSame(x, x.cpu());
    Tensor back = c1.cpu();
    assertNotSame(c1, back);
    assertEquals(CPU, back.device());
    assertArrayEquals(new float[] {1, 2}, back.toFloatArray());
    assertEquals(CUDA1, c1.device());
  }

  @Test
  void toKeepsDtypeAndShapeAndCopiesViewsContiguously() {
    Tensor x = Tensor.of(new double[] {1, 2, 3, 4, 5, 6}, 2, 3).t();
    Tensor y = x.to(CUDA1);
    assertEquals(DType.FLOAT64, y.dtype());
    assertEquals(Shape.of(3, 2), y.shape());
    assertTrue(y.isContiguous());
    assertArrayEquals(new double[] {1, 4, 2, 5, 3, 6}, y.toDoubleArray());
    assertArrayEquals(new double[] {1, 4, 2, 5, 3, 6}, y.to(CUDA0).to(CPU).toDoubleArray());
  }

  @Test
  void theGradientOfAMoveGoesBackToTheSourceDevice() {
    Tensor x = Tensor.of(1f, 2f, 3f).requiresGrad(true);
    x.to(CUDA0).mul(2.0).sum().backward();
    assertEquals(CPU, x.grad().device());
    assertArrayEquals(new float[] {2, 2, 2}, x.grad().toFloatArray());
  }

  // ---------------------------------------------------------------- host to device

  static Stream<Arguments> dtypes() {
    return Stream.of(
        Arguments.of(DType.FLOAT32, 4),
        Arguments.of(DType.FLOAT64, 8),
        Arguments.of(DType.INT64, 8),
        Arguments.of(DType.BOOL, 1));
  }

  @ParameterizedTest
  @MethodSource("dtypes")
  void aBlockingHostToDeviceCopyIsCountedWithItsBytes(DType dtype, int bytesPerElement) {
    Tensor x = Tensor.ones(Shape.of(10, 10), dtype, CPU);
    DeviceStats.reset();
    Tensor y = x.to(CUDA0);
    DeviceStats s = DeviceStats.of(CUDA0);
    assertEquals(1, s.hostToDeviceCopies());
    assertEquals(100L * bytesPerElement, s.hostToDeviceBytes());
    assertEquals(0, s.deviceToHostCopies());
    assertEquals(0, s.deviceToDeviceCopies());
    assertEquals(0, s.syncs());
    assertEquals(0, DeviceStats.of(CUDA1).hostToDeviceCopies());
    assertEquals(0, DeviceStats.of(CPU).syncs());
    assertEquals(dtype, y.dtype());
  }

  @ParameterizedTest(name = "nonBlocking={0}")
  @ValueSource(booleans = {false, true})
  void theSourceOfACopyFromPageableMemoryMayBeReusedOnceItReturns(boolean nonBlocking)
      throws Exception {
    Tensor x = Tensor.of(range(1000), 1000);
    assertFalse(x.isPinned());
    Future<Tensor> moved;
    try (StreamGate gate = new StreamGate(CUDA0)) {
      moved =
          worker.submit(
              () -> {
                Tensor y = x.to(CUDA0, nonBlocking);
                x.fill(99.0);
                return y;
              });
      Thread.sleep(300);
    }
    Tensor y = moved.get(30, TimeUnit.SECONDS);
    assertArrayEquals(
        range(1000), y.toFloatArray(), "the copy holds the values at the time of the call");
  }

  @Test
  void pinMemoryGivesAPinnedCopy() {
    Tensor x = Tensor.of(range(10), 10);
    Tensor p = x.pinMemory();
    assertTrue(p.isPinned());
    assertFalse(x.isPinned());
    assertEquals(CPU, p.device());
    assertArrayEquals(range(10), p.toFloatArray());
    assertSame(p, p.pinMemory(), "already pinned");
    assertFalse(p.to(CUDA0).isPinned());
    assertFalse(p.add(1.0).isPinned());
  }

  @Test
  void onlyCpuTensorsCanBePinned() {
    IllegalStateException e =
        assertThrows(IllegalStateException.class, () -> Tensor.ones(2, CUDA0).pinMemory());
    assertTrue(e.getMessage().contains("cuda:0"), e.getMessage());
  }

  @Test
  void aNonBlockingCopyFromPinnedMemoryIsAsynchronous() throws Exception {
    Tensor p = Tensor.of(range(1000), 1000).pinMemory();
    Tensor y;
    try (StreamGate gate = new StreamGate(CUDA0)) {
      DeviceStats.reset();
      y = promptly(() -> p.to(CUDA0, true));
      assertEquals(CUDA0, y.device());
      assertEquals(1, DeviceStats.of(CUDA0).hostToDeviceCopies());
      assertEquals(4000, DeviceStats.of(CUDA0).hostToDeviceBytes());
      assertEquals(0, DeviceStats.of(CUDA0).syncs());
    }
    assertArrayEquals(range(1000), y.toFloatArray());
  }

  @Test
  void aNonBlockingCopyFromPinnedMemoryFeedsLaterDeviceWork() {
    Tensor p = Tensor.of(range(256), 16, 16).pinMemory();
    Tensor y = p.to(CUDA0, true).matmul(Tensor.eye(16, CUDA0)).mul(2.0);
    float[] expected = range(256);
    for (int i = 0; i < expected.length; i++) {
      expected[i] *= 2;
    }
    assertArrayEquals(expected, y.toFloatArray());
  }

  // ---------------------------------------------------------------- device to host

  @Test
  void aBlockingDeviceToHostCopyIsCountedAndSynchronisesOnce() {
    Tensor x = Tensor.full(Shape.of(5, 5), 3.0, CUDA0);
    DeviceStats.reset();
    Tensor y = x.to(CPU);
    DeviceStats s = DeviceStats.of(CUDA0);
    assertEquals(1, s.deviceToHostCopies());
    assertEquals(100, s.deviceToHostBytes());
    assertEquals(1, s.syncs());
    assertEquals(0, s.hostToDeviceCopies());
    assertEquals(CPU, y.device());

    float[] values = y.toFloatArray();
    assertEquals(
        1,
        DeviceStats.of(CUDA0).syncs(),
        "reading the host copy does not wait for the device again");
    assertEquals(1, DeviceStats.of(CPU).syncs(), "it is a host read");
    float[] expected = new float[25];
    Arrays.fill(expected, 3f);
    assertArrayEquals(expected, values);
  }

  @Test
  void aNonBlockingDeviceToHostCopyReturnsAtOnceAndItsReadWaits() throws Exception {
    Tensor x = Tensor.of(range(1000), Shape.of(1000), CUDA0);
    Tensor r;
    Future<float[]> read;
    try (StreamGate gate = new StreamGate(CUDA0)) {
      Tensor doubled = promptly(() -> x.mul(2.0));
      DeviceStats.reset();
      r = promptly(() -> doubled.to(CPU, true));
      assertEquals(CPU, r.device());
      assertEquals(1, DeviceStats.of(CUDA0).deviceToHostCopies());
      assertEquals(4000, DeviceStats.of(CUDA0).deviceToHostBytes());
      assertEquals(0, DeviceStats.of(CUDA0).syncs(), "the copy itself does not wait");
      read = assertWaits(worker, r::toFloatArray);
    }
    float[] expected = range(1000);
    for (int i = 0; i < expected.length; i++) {
      expected[i] *= 2;
    }
    assertArrayEquals(expected, read.get(30, TimeUnit.SECONDS));
    assertEquals(1, DeviceStats.of(CUDA0).syncs(), "the first read waited for the device");
    assertArrayEquals(expected, r.toFloatArray());
    assertEquals(1, DeviceStats.of(CUDA0).syncs(), "later reads do not wait again");
  }

  /**
   * A long computation on cuda:0 (many 512x512 matmuls) whose result is copied back without
   * blocking: every value is 41 when it is done, and anything read earlier would differ.
   */
  private static Tensor longComputation() {
    Tensor identity = Tensor.eye(512, CUDA0);
    Tensor v = Tensor.ones(512, 512, CUDA0);
    for (int i = 0; i < 40; i++) {
      v = v.matmul(identity).add(1.0);
    }
    return v;
  }

  static Stream<Arguments> readsOfANonBlockingCopy() {
    return Stream.of(
        Arguments.of(
            "toFloatArray",
            (ToDoubleFunction<Tensor>)
                r -> {
                  float[] v = r.toFloatArray();
                  float min = Float.MAX_VALUE;
                  float max = -Float.MAX_VALUE;
                  for (float f : v) {
                    min = Math.min(min, f);
                    max = Math.max(max, f);
                  }
                  assertEquals(min, max, "every element is the same");
                  return min;
                }),
        Arguments.of(
            "item", (ToDoubleFunction<Tensor>) r -> r.select(0, 511).select(0, 511).item()),
        Arguments.of(
            "a CPU op", (ToDoubleFunction<Tensor>) r -> r.add(Tensor.zeros(512, 512)).max().item()),
        Arguments.of("a CPU reduction", (ToDoubleFunction<Tensor>) r -> r.min().item()),
        Arguments.of(
            "a copy back to the device", (ToDoubleFunction<Tensor>) r -> r.to(CUDA1).min().item()),
        Arguments.of("pinning", (ToDoubleFunction<Tensor>) r -> r.pinMemory().min().item()),
        Arguments.of(
            "printing",
            (ToDoubleFunction<Tensor>)
                r -> {
                  assertTrue(r.toString().startsWith("tensor([[41., 41., 41.,"), "printed");
                  return 41;
                }));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("readsOfANonBlockingCopy")
  void aNonBlockingDeviceToHostCopyIsNeverReadStale(String name, ToDoubleFunction<Tensor> read) {
    Tensor r = longComputation().to(CPU, true);
    assertEquals(CPU, r.device());
    assertEquals(41.0, read.applyAsDouble(r));
  }

  @Test
  void aZeroDimResultCopiedWithoutBlockingReadsRight() {
    Tensor r = longComputation().sum().to(CPU, true);
    assertEquals(41.0 * 512 * 512, r.item());
  }

  // ---------------------------------------------------------------- device to device

  @Test
  void aCopyBetweenDevicesIsCountedOnTheTarget() {
    Tensor x = Tensor.full(Shape.of(8), 2.0, CUDA0);
    DeviceStats.reset();
    Tensor y = x.to(CUDA1);
    assertEquals(CUDA1, y.device());
    assertEquals(1, DeviceStats.of(CUDA1).deviceToDeviceCopies());
    assertEquals(32, DeviceStats.of(CUDA1).deviceToDeviceBytes());
    assertEquals(0, DeviceStats.of(CUDA0).deviceToDeviceCopies());
    for (Device d : new Device[] {CUDA0, CUDA1}) {
      assertEquals(0, DeviceStats.of(d).hostToDeviceCopies(), d.toString());
      assertEquals(0, DeviceStats.of(d).deviceToHostCopies(), d.toString());
      assertEquals(0, DeviceStats.of(d).syncs(), d.toString());
    }
    assertArrayEquals(new float[] {2, 2, 2, 2, 2, 2, 2, 2}, y.toFloatArray());
  }

  @Test
  void aCopyBetweenDevicesWaitsForTheSourcesWork() throws Exception {
    Tensor y;
    try (StreamGate gate = new StreamGate(CUDA0)) {
      y = promptly(() -> Tensor.full(Shape.of(4), 7.0, CUDA0).to(CUDA1).add(1.0));
    }
    assertArrayEquals(new float[] {8, 8, 8, 8}, y.toFloatArray());
    assertEquals(41.0, longComputation().to(CUDA1).min().item());
  }

  @Test
  void aCopyIntoATensorOnAnotherDeviceWaitsForItsPendingWork() throws Exception {
    Tensor dst;
    try (StreamGate gate = new StreamGate(CUDA1)) {
      Tensor src = Tensor.full(Shape.of(4), 7.0, CUDA0);
      Cuda.synchronize(CUDA0);
      dst =
          promptly(
              () -> {
                Tensor d = Tensor.zeros(4, CUDA1);
                d.copyFrom(src);
                return d;
              });
    }
    assertArrayEquals(
        new float[] {7, 7, 7, 7},
        dst.toFloatArray(),
        "the copy must land after the zeros queued on the destination before it");
  }

  // ---------------------------------------------------------------- copyFrom across devices

  @Test
  void copyFromADeviceIntoTheHost() {
    Tensor src = Tensor.full(Shape.of(3), 4.0, CUDA0);
    Tensor dst = Tensor.zeros(3);
    DeviceStats.reset();
    assertSame(dst, dst.copyFrom(src));
    assertEquals(CPU, dst.device());
    assertEquals(1, DeviceStats.of(CUDA0).deviceToHostCopies());
    assertEquals(12, DeviceStats.of(CUDA0).deviceToHostBytes());
    assertEquals(1, DeviceStats.of(CUDA0).syncs());
    assertArrayEquals(new float[] {4, 4, 4}, dst.toFloatArray());
  }

  @Test
  void copyFromTheHostIntoADevice() {
    Tensor src = Tensor.of(1f, 2f, 3f);
    Tensor dst = Tensor.zeros(2, 3, CUDA0);
    DeviceStats.reset();
    assertSame(dst, dst.copyFrom(src));
    assertEquals(CUDA0, dst.device());
    assertEquals(1, DeviceStats.of(CUDA0).hostToDeviceCopies());
    assertArrayEquals(
        new float[] {1, 2, 3, 1, 2, 3}, dst.toFloatArray(), "broadcast across devices");
  }

  @Test
  void copyFromAnotherDevice() {
    Tensor src = Tensor.of(new float[] {5, 6}, Shape.of(2), CUDA0);
    Tensor dst = Tensor.zeros(2, CUDA1);
    DeviceStats.reset();
    dst.copyFrom(src);
    assertEquals(CUDA1, dst.device());
    assertEquals(1, DeviceStats.of(CUDA1).deviceToDeviceCopies());
    assertArrayEquals(new float[] {5, 6}, dst.toFloatArray());
  }

  @Test
  void copyFromConvertsTheDtypeAcrossDevices() {
    Tensor src = Tensor.of(new float[] {1.5f, -2f}, Shape.of(2), CUDA0);
    Tensor dst = Tensor.zeros(Shape.of(2), DType.FLOAT64, CPU);
    dst.copyFrom(src);
    assertArrayEquals(new double[] {1.5, -2}, dst.toDoubleArray());
  }

  @Test
  void aNonBlockingCopyFromADeviceIntoTheHostIsReadOnlyWhenDone() throws Exception {
    Tensor src = Tensor.of(range(100), Shape.of(100), CUDA0);
    Tensor dst = Tensor.zeros(100);
    Future<float[]> read;
    try (StreamGate gate = new StreamGate(CUDA0)) {
      Tensor shifted = promptly(() -> src.add(1.0));
      promptly(() -> dst.copyFrom(shifted, true));
      read = assertWaits(worker, dst::toFloatArray);
    }
    float[] expected = range(100);
    for (int i = 0; i < expected.length; i++) {
      expected[i] += 1;
    }
    assertArrayEquals(expected, read.get(30, TimeUnit.SECONDS));
  }

  @Test
  void anInPlaceCpuOpOnAPendingCopyWaitsForIt() throws Exception {
    Tensor r;
    try (StreamGate gate = new StreamGate(CUDA0)) {
      Tensor x = promptly(() -> Tensor.full(Shape.of(3), 5.0, CUDA0));
      r = promptly(() -> x.to(CPU, true));
      Future<Tensor> write = assertWaits(worker, () -> r.addi(1.0));
      gate.open();
      write.get(30, TimeUnit.SECONDS);
    }
    assertArrayEquals(
        new float[] {6, 6, 6}, r.toFloatArray(), "the copy landed before the write, not after");
  }

  @Test
  void aLaterCopyIntoAPendingHostTensorLandsLast() throws Exception {
    Tensor dst;
    try (StreamGate gate = new StreamGate(CUDA1)) {
      Tensor ones = promptly(() -> Tensor.full(Shape.of(3), 1.0, CUDA1));
      Tensor pending = promptly(() -> ones.to(CPU, true));
      Tensor twos = Tensor.full(Shape.of(3), 2.0, CUDA0);
      Future<Tensor> copy = worker.submit(() -> pending.copyFrom(twos, true));
      Thread.sleep(300);
      gate.open();
      dst = copy.get(30, TimeUnit.SECONDS);
    }
    Cuda.synchronize(CUDA1);
    assertArrayEquals(
        new float[] {2, 2, 2}, dst.toFloatArray(), "the copy from cuda:0 came second");
  }

  @Test
  void copyFromTheSameDeviceCountsNoTransfer() {
    Tensor src = Tensor.ones(3, CUDA0);
    Tensor dst = Tensor.zeros(3, CUDA0);
    DeviceStats.reset();
    String before = counters();
    dst.copyFrom(src);
    assertEquals(before, counters());
    assertArrayEquals(new float[] {1, 1, 1}, dst.toFloatArray());
  }
}
