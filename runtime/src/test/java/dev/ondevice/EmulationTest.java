package dev.ondevice;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ondevice.internal.backend.AsyncDeviceException;
import dev.ondevice.internal.backend.Backends;
import dev.ondevice.internal.backend.HostBackend;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.ThrowingSupplier;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Emulated CUDA devices: asynchronous, in-order streams; errors of queued work reported at the next
 * synchronisation; independent devices; installing and restoring them.
 *
 * <p>Asynchrony is shown without timing: a {@link StreamGate} holds a device's stream, so work
 * queued behind it provably has not run, and a call that waited for it could not return.
 */
class EmulationTest {
  private static final Device CUDA0 = Device.cuda(0);
  private static final Device CUDA1 = Device.cuda(1);

  /**
   * Holds a device's stream until opened: everything queued after it waits. Queued through the
   * backend's package-private {@code enqueue}, the one way to put a blocking step on a stream.
   */
  static final class StreamGate implements AutoCloseable {
    private final CountDownLatch open = new CountDownLatch(1);
    private final CountDownLatch reached = new CountDownLatch(1);

    StreamGate(Device device) {
      try {
        Method enqueue = HostBackend.class.getDeclaredMethod("enqueue", Runnable.class);
        enqueue.setAccessible(true);
        enqueue.invoke(Backends.of(BackendTypes.id(device)), (Runnable) this::hold);
      } catch (ReflectiveOperationException e) {
        throw new LinkageError("cannot queue a gate on " + device, e);
      }
    }

    private void hold() {
      reached.countDown();
      while (true) {
        try {
          open.await();
          return;
        } catch (InterruptedException e) {
          // The stream thread is ours to hold until the gate opens.
        }
      }
    }

    /** Waits until the stream has reached the gate (all work queued before it has run). */
    void awaitReached() throws InterruptedException {
      assertTrue(reached.await(30, TimeUnit.SECONDS), "the stream never reached the gate");
    }

    void open() {
      open.countDown();
    }

    @Override
    public void close() {
      open();
    }
  }

  /** Runs {@code call}, failing (rather than hanging) if it blocks on a held stream. */
  static <T> T promptly(ThrowingSupplier<T> call) {
    return assertTimeoutPreemptively(
        Duration.ofSeconds(30),
        call,
        "the call waited for the device, but it should only queue work");
  }

  /**
   * Starts {@code read} on another thread and checks that it is still waiting a while later: it
   * must not complete while the stream is held. (A wrong implementation could only slip through on
   * a machine too slow to start a thread in the time given; it cannot fail a right one.)
   */
  static <T> Future<T> assertWaits(ExecutorService executor, Callable<T> read)
      throws InterruptedException {
    Future<T> future = executor.submit(read);
    Thread.sleep(300);
    assertFalse(future.isDone(), "the read returned while the device still held the data back");
    return future;
  }

  @AfterEach
  void drainPendingErrors() {
    for (int i = 0; i < Cuda.deviceCount(); i++) {
      try {
        Cuda.synchronize(Device.cuda(i));
      } catch (AsyncDeviceException ignored) {
        // A failed test may leave an error queued; it must not leak into the next test.
      }
    }
  }

  // ---------------------------------------------------------------- asynchrony

  @Test
  void opsReturnBeforeTheirWorkRuns() throws Exception {
    ExecutorService reader = Executors.newSingleThreadExecutor();
    try (StreamGate gate = new StreamGate(CUDA0)) {
      Tensor sum =
          promptly(
              () -> {
                Tensor x = Tensor.ones(64, 64, CUDA0);
                Tensor y = x.matmul(x).add(1.0);
                return y.sum();
              });
      assertEquals(CUDA0, sum.device());
      Future<Double> value = assertWaits(reader, sum::item);
      gate.open();
      assertEquals(65.0 * 64 * 64, value.get(30, TimeUnit.SECONDS));
    } finally {
      reader.shutdownNow();
    }
  }

  @Test
  void aLargeMatmulIsQueuedAndItsResultIsRightAfterSynchronising() {
    Tensor a = Tensor.full(Shape.of(512, 512), 0.5, CUDA0);
    Tensor b = Tensor.full(Shape.of(512, 512), 2.0, CUDA0);
    Tensor c = a;
    for (int i = 0; i < 8; i++) {
      c = c.matmul(b).div(512.0);
    }
    Cuda.synchronize(CUDA0);
    float[] values = c.toFloatArray();
    assertEquals(512 * 512, values.length);
    for (float v : values) {
      assertEquals(0.5f * 256f, v, 1e-3f);
    }
  }

  @Test
  void anInvalidOpReturnsAndOnlyTheSynchronisationReportsIt() {
    Tensor x = Tensor.of(new float[] {1, 2, 3}, Shape.of(3), CUDA0);
    Tensor index = Tensor.of(new long[] {0, 7}, Shape.of(2), CUDA0);
    Tensor bad = assertDoesNotThrow(() -> x.gather(0, index));
    assertEquals(CUDA0, bad.device());
    assertThrows(AsyncDeviceException.class, () -> Cuda.synchronize(CUDA0));
  }

  @Test
  void queuedWorkRunsInOrder() throws Exception {
    try (StreamGate gate = new StreamGate(CUDA0)) {
      Tensor x =
          promptly(
              () -> {
                Tensor t = Tensor.full(Shape.of(4), 2.0, CUDA0);
                for (int i = 0; i < 20; i++) {
                  if (i % 2 == 0) {
                    t.muli(3.0);
                  } else {
                    t.subi(2.0);
                  }
                }
                return t;
              });
      Tensor y = promptly(() -> x.mul(2.0).add(x));
      gate.open();
      double expected = 2;
      for (int i = 0; i < 20; i++) {
        expected = i % 2 == 0 ? expected * 3 : expected - 2;
      }
      assertArrayEquals(new double[] {expected, expected, expected, expected}, x.toDoubleArray());
      assertArrayEquals(
          new double[] {3 * expected, 3 * expected, 3 * expected, 3 * expected}, y.toDoubleArray());
    }
  }

  @Test
  void readsOfEarlierResultsSeeEveryEarlierWrite() {
    Tensor acc = Tensor.zeros(Shape.of(128, 128), CUDA0);
    Tensor w = Tensor.eye(128, CUDA0);
    for (int i = 1; i <= 30; i++) {
      acc = acc.matmul(w).add((double) i);
    }
    float[] values = acc.toFloatArray();
    for (float v : values) {
      assertEquals(465f, v);
    }
  }

  // ---------------------------------------------------------------- errors of queued work

  /** The message of the same bad gather run synchronously on the CPU. */
  private static String cpuGatherMessage() {
    Tensor x = Tensor.of(1f, 2f, 3f);
    Tensor index = Tensor.of(new long[] {0, 7}, Shape.of(2), Device.cpu());
    return assertThrows(IndexOutOfBoundsException.class, () -> x.gather(0, index)).getMessage();
  }

  private static Tensor queueBadGather(Device device) {
    Tensor x = Tensor.of(new float[] {1, 2, 3}, Shape.of(3), device);
    Tensor index = Tensor.of(new long[] {0, 7}, Shape.of(2), device);
    return assertDoesNotThrow(
        () -> x.gather(0, index), "a device error is reported later, not at the call");
  }

  static Stream<Arguments> synchronisations() {
    return Stream.of(
        Arguments.of("Cuda.synchronize(device)", (Consumer<Tensor>) t -> Cuda.synchronize(CUDA0)),
        Arguments.of("Cuda.synchronize()", (Consumer<Tensor>) t -> Cuda.synchronize()),
        Arguments.of("item()", (Consumer<Tensor>) t -> t.sum().item()),
        Arguments.of("toFloatArray()", (Consumer<Tensor>) Tensor::toFloatArray),
        Arguments.of("toString()", (Consumer<Tensor>) t -> assertFalse(t.toString().isEmpty())),
        Arguments.of("cpu()", (Consumer<Tensor>) Tensor::cpu),
        Arguments.of(
            "copyFrom into a CPU tensor", (Consumer<Tensor>) t -> Tensor.zeros(3).copyFrom(t)),
        Arguments.of(
            "reading a non-blocking copy",
            (Consumer<Tensor>) t -> t.to(Device.cpu(), true).toFloatArray()),
        Arguments.of(
            "a CPU op on a non-blocking copy",
            (Consumer<Tensor>) t -> t.to(Device.cpu(), true).add(Tensor.ones(3))));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("synchronisations")
  void anErrorOfQueuedWorkSurfacesAtTheNextSynchronisationOnce(
      String name, Consumer<Tensor> synchronise) {
    String original = cpuGatherMessage();
    queueBadGather(CUDA0);
    Tensor good = Tensor.of(new float[] {4, 5, 6}, Shape.of(3), CUDA0).mul(2.0);

    AsyncDeviceException e =
        assertThrows(AsyncDeviceException.class, () -> synchronise.accept(good), name);
    assertTrue(e.getMessage().contains("cuda:0 (emulated)"), e.getMessage());
    assertTrue(e.getMessage().contains(original), e.getMessage());
    assertNotNull(e.getCause());
    assertEquals(original, e.getCause().getMessage());
    assertSame(IndexOutOfBoundsException.class, e.getCause().getClass());

    assertDoesNotThrow(() -> Cuda.synchronize(CUDA0), "the error is reported once");
    assertArrayEquals(new float[] {8, 10, 12}, good.toFloatArray(), "later work is unaffected");
  }

  @Test
  void anErrorIsReportedOnlyByItsOwnDevice() {
    queueBadGather(CUDA1);
    assertDoesNotThrow(() -> Cuda.synchronize(CUDA0));
    assertDoesNotThrow(() -> Tensor.ones(3, CUDA0).sum().item());
    AsyncDeviceException e =
        assertThrows(AsyncDeviceException.class, () -> Cuda.synchronize(CUDA1));
    assertTrue(e.getMessage().contains("cuda:1 (emulated)"), e.getMessage());
  }

  @Test
  void onlyTheFirstOfSeveralErrorsIsReported() {
    queueBadGather(CUDA0);
    Tensor x = Tensor.of(new float[] {1, 2, 3}, Shape.of(3), CUDA0);
    x.gather(0, Tensor.of(new long[] {-4}, Shape.of(1), CUDA0));
    AsyncDeviceException e =
        assertThrows(AsyncDeviceException.class, () -> Cuda.synchronize(CUDA0));
    assertTrue(e.getMessage().contains("index 7"), e.getMessage());
    assertDoesNotThrow(() -> Cuda.synchronize(CUDA0));
  }

  // ---------------------------------------------------------------- independent devices

  @Test
  void twoEmulatedDevicesAreDistinctIdentities() {
    assertNotEquals(CUDA0, CUDA1);
    Tensor a = Tensor.ones(2, CUDA0);
    Tensor b = Tensor.ones(2, CUDA1);
    assertEquals(CUDA0, a.device());
    assertEquals(CUDA1, b.device());
    assertEquals("cuda:0 (emulated)", a.device().describe());
    assertEquals("cuda:1 (emulated)", b.device().describe());
    assertNotEquals(Backends.of(BackendTypes.id(CUDA0)), Backends.of(BackendTypes.id(CUDA1)));
    assertThrows(DeviceMismatchException.class, () -> a.add(b));
  }

  @Test
  void aHeldDeviceDoesNotHoldTheOther() throws Exception {
    try (StreamGate gate = new StreamGate(CUDA0)) {
      double value = promptly(() -> Tensor.ones(8, CUDA1).mul(2.0).sum().item());
      assertEquals(16.0, value);
      promptly(
          () -> {
            Cuda.synchronize(CUDA1);
            return null;
          });
      gate.open();
    }
  }

  @Test
  void devicesCountSeparately() {
    DeviceStats.reset();
    Cuda.synchronize(CUDA1);
    Tensor.ones(4).to(CUDA1);
    assertEquals(0, DeviceStats.of(CUDA0).syncs());
    assertEquals(0, DeviceStats.of(CUDA0).hostToDeviceCopies());
    assertEquals(1, DeviceStats.of(CUDA1).syncs());
    assertEquals(1, DeviceStats.of(CUDA1).hostToDeviceCopies());
  }

  // ---------------------------------------------------------------- installing

  @Test
  void installReplacesTheDevicesAndCloseRestoresThem() {
    assertEquals(2, Cuda.deviceCount());
    try (EmulatedCuda.Installation three = EmulatedCuda.install(3)) {
      assertEquals(3, Cuda.deviceCount());
      assertTrue(Cuda.isEmulated());
      Tensor t = Tensor.ones(2, Device.cuda(2));
      assertEquals(Device.cuda(2), t.device());
      assertEquals("cuda:2 (emulated)", t.device().describe());
      assertArrayEquals(new float[] {1, 1}, t.toFloatArray());
      try (EmulatedCuda.Installation none = EmulatedCuda.install(0)) {
        assertEquals(0, Cuda.deviceCount());
        assertFalse(Cuda.isAvailable());
      }
      assertEquals(3, Cuda.deviceCount());
    }
    assertEquals(2, Cuda.deviceCount());
    assertTrue(Cuda.isAvailable());
    assertThrows(IllegalStateException.class, () -> Tensor.ones(2, Device.cuda(2)));
  }

  @Test
  void closingTwiceRestoresOnce() {
    EmulatedCuda.Installation outer = EmulatedCuda.install(1);
    try {
      EmulatedCuda.Installation inner = EmulatedCuda.install(4);
      inner.close();
      assertEquals(1, Cuda.deviceCount());
      inner.close();
      assertEquals(1, Cuda.deviceCount(), "a second close must not restore again");
    } finally {
      outer.close();
    }
    assertEquals(2, Cuda.deviceCount());
  }

  @Test
  void installedDevicesAreFreshIdentitiesWithTheirOwnStreams() throws Exception {
    try (StreamGate gate = new StreamGate(CUDA0);
        EmulatedCuda.Installation ignored = EmulatedCuda.install(1)) {
      assertEquals(4.0, promptly(() -> Tensor.ones(4, Device.cuda(0)).sum().item()));
      gate.open();
    }
  }

  @Test
  void aNegativeCountIsRejected() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> EmulatedCuda.install(-1));
    assertTrue(e.getMessage().contains("-1"), e.getMessage());
    assertEquals(2, Cuda.deviceCount());
  }

  @Test
  void closingAnInstallationFinishesQueuedWorkThenStopsItsStreams() throws Exception {
    Tensor survivor;
    Thread stream;
    java.util.Set<Thread> before = Thread.getAllStackTraces().keySet();
    try (EmulatedCuda.Installation ignored = EmulatedCuda.install(1)) {
      survivor = Tensor.ones(Shape.of(4), Device.cuda(0)).mul(3.0);
      stream =
          Thread.getAllStackTraces().keySet().stream()
              .filter(
                  t -> t.getName().equals("ondevice-cuda:0-emulated-stream") && !before.contains(t))
              .findFirst()
              .orElseThrow();
    }
    stream.join(10_000);
    assertFalse(stream.isAlive());
    Tensor orphan = survivor;
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> orphan.add(1.0));
    assertTrue(e.getMessage().contains("no longer exists"), e.getMessage());
  }
}
