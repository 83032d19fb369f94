package dev.ondevice.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.ondevice.Cuda;
import dev.ondevice.DType;
import dev.ondevice.Device;
import dev.ondevice.Shape;
import dev.ondevice.Tensor;
import dev.ondevice.internal.backend.Backends;
import dev.ondevice.internal.backend.DeviceId;
import dev.ondevice.internal.backend.HostBackend;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The DataLoader: batch sizes, dropLast, shuffling per seed and epoch, every example once, prefetch
 * errors, threads that end, pinned batches and their asynchronous copies.
 */
class DataLoaderTest {
  private static final String THREAD_PREFIX = "ondevice-dataloader-";

  /** {@code n} examples: input {@code i} is {@code [i, i + 0.5]}, target {@code i} is {@code i}. */
  private static TensorDataset dataset(int n) {
    float[] x = new float[2 * n];
    for (int i = 0; i < n; i++) {
      x[2 * i] = i;
      x[2 * i + 1] = i + 0.5f;
    }
    return new TensorDataset(Tensor.of(x, n, 2), Tensor.arange(n));
  }

  private static List<Batch> epoch(Iterator<Batch> it) {
    List<Batch> out = new ArrayList<>();
    it.forEachRemaining(out::add);
    return out;
  }

  private static int[] sizes(List<Batch> batches) {
    return batches.stream().mapToInt(Batch::size).toArray();
  }

  /** The targets of an epoch, in order: the example indices it visited. */
  private static long[] visited(List<Batch> batches) {
    return batches.stream().flatMapToLong(b -> Arrays.stream(b.targets().toLongArray())).toArray();
  }

  private static long liveLoaderThreads() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.getName().startsWith(THREAD_PREFIX) && t.isAlive())
        .count();
  }

  private static void awaitNoLoaderThreads(boolean collect) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (liveLoaderThreads() > 0) {
      assertTrue(
          System.nanoTime() < deadline,
          "a DataLoader thread is still running: " + liveLoaderThreads());
      if (collect) {
        System.gc();
      }
      Thread.sleep(20);
    }
  }

  // ---------------------------------------------------------------- batches

  @ParameterizedTest
  @ValueSource(ints = {0, 1, 2})
  void batchesHaveTheBatchSizeAndTheLastOneIsSmaller(int prefetch) {
    DataLoader loader = DataLoader.builder(dataset(10)).batchSize(3).prefetch(prefetch).build();
    assertEquals(4, loader.numBatches());
    List<Batch> batches = epoch(loader.iterator());
    assertArrayEquals(new int[] {3, 3, 3, 1}, sizes(batches));
    assertArrayEquals(
        new long[] {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, visited(batches), "without shuffling, in order");
    assertEquals(Shape.of(3, 2), batches.get(0).inputs().shape());
    assertEquals(Shape.of(1, 2), batches.get(3).inputs().shape());
    assertArrayEquals(new float[] {9, 9.5f}, batches.get(3).inputs().toFloatArray());
    for (Batch b : batches) {
      assertEquals(Device.cpu(), b.inputs().device());
      assertEquals(Device.cpu(), b.targets().device());
      assertEquals(DType.INT64, b.targets().dtype());
      assertFalse(b.inputs().isPinned(), "not pinned unless asked");
    }
  }

  @Test
  void dropLastDropsTheIncompleteBatch() {
    DataLoader loader = DataLoader.builder(dataset(10)).batchSize(3).dropLast(true).build();
    assertEquals(3, loader.numBatches());
    assertArrayEquals(new int[] {3, 3, 3}, sizes(epoch(loader.iterator())));

    DataLoader exact = DataLoader.builder(dataset(9)).batchSize(3).dropLast(true).build();
    assertArrayEquals(new int[] {3, 3, 3}, sizes(epoch(exact.iterator())), "nothing to drop");
    DataLoader tooFew = DataLoader.builder(dataset(2)).batchSize(3).dropLast(true).build();
    assertEquals(0, tooFew.numBatches());
    assertFalse(tooFew.iterator().hasNext());
  }

  @Test
  void defaultsToBatchesOfOneAndAnEmptyDatasetHasNoBatches() {
    assertArrayEquals(
        new int[] {1, 1, 1}, sizes(epoch(DataLoader.builder(dataset(3)).build().iterator())));
    TensorDataset empty = new TensorDataset(Tensor.zeros(0, 2), Tensor.of(new long[0]));
    Iterator<Batch> it = DataLoader.builder(empty).batchSize(4).build().iterator();
    assertFalse(it.hasNext());
    assertFalse(it.hasNext(), "hasNext stays false at the end");
    assertThrows(NoSuchElementException.class, it::next);
  }

  @Test
  void theForEachLoopRunsOneEpochPerLoop() {
    DataLoader loader = DataLoader.builder(dataset(5)).batchSize(2).build();
    for (int e = 0; e < 3; e++) {
      int count = 0;
      for (Batch b : loader) {
        count += b.size();
      }
      assertEquals(5, count);
    }
    assertEquals(3, loader.nextEpoch());
  }

  @Test
  @SuppressWarnings("HostSyncInLoop") // deliberate: the test reads every batch back
  void batchesPairEachInputWithItsTarget() {
    DataLoader loader = DataLoader.builder(dataset(50)).batchSize(7).shuffle(3).build();
    for (Batch b : loader) {
      float[] x = b.inputs().toFloatArray();
      long[] y = b.targets().toLongArray();
      for (int i = 0; i < y.length; i++) {
        assertEquals((float) y[i], x[2 * i], "input row of example " + y[i]);
        assertEquals(y[i] + 0.5f, x[2 * i + 1]);
      }
    }
  }

  @Test
  void aGenericDatasetIsStackedExampleByExample() {
    Dataset squares =
        new Dataset() {
          @Override
          public int size() {
            return 5;
          }

          @Override
          public Example get(int index) {
            return new Example(
                Tensor.full(Shape.of(2, 2), index * index), Tensor.scalar((long) index));
          }
        };
    List<Batch> batches = epoch(DataLoader.builder(squares).batchSize(2).build().iterator());
    assertArrayEquals(new int[] {2, 2, 1}, sizes(batches));
    assertEquals(Shape.of(2, 2, 2), batches.get(0).inputs().shape());
    assertEquals(Shape.of(2), batches.get(0).targets().shape());
    assertArrayEquals(new float[] {4, 4, 4, 4, 9, 9, 9, 9}, batches.get(1).inputs().toFloatArray());
    assertArrayEquals(new long[] {4}, batches.get(2).targets().toLongArray());
  }

  // ---------------------------------------------------------------- shuffling

  @Test
  void shufflingIsReproduciblePerSeedAndNewEachEpoch() {
    DataLoader a = DataLoader.builder(dataset(40)).batchSize(8).shuffle(1234).build();
    DataLoader b = DataLoader.builder(dataset(40)).batchSize(8).shuffle(1234).build();
    long[] a0 = visited(epoch(a.iterator()));
    long[] a1 = visited(epoch(a.iterator()));
    long[] b0 = visited(epoch(b.iterator()));
    long[] b1 = visited(epoch(b.iterator()));
    assertArrayEquals(a0, b0, "same seed, same first epoch");
    assertArrayEquals(a1, b1, "same seed, same second epoch");
    assertFalse(Arrays.equals(a0, a1), "a new permutation each epoch");
    assertFalse(Arrays.equals(a0, IntStream.range(0, 40).asLongStream().toArray()), "shuffled");

    long[] other =
        visited(epoch(DataLoader.builder(dataset(40)).batchSize(8).shuffle(99).build().iterator()));
    assertFalse(Arrays.equals(a0, other), "another seed, another order");

    DataLoader resumed = DataLoader.builder(dataset(40)).batchSize(8).shuffle(1234).build();
    assertArrayEquals(
        a1, visited(epoch(resumed.iterator(1))), "iterator(epoch) resumes at that epoch");
    assertEquals(2, resumed.nextEpoch());
  }

  @Test
  void nearbySeedsDoNotShareOrdersSomeEpochsApart() {
    // A seed sweep (seeds 10 to 13, four epochs each) sees sixteen different orders: with seed + e,
    // epoch 3 of seed 10 was epoch 0 of seed 13.
    java.util.Set<String> orders = new java.util.HashSet<>();
    for (long seed = 10; seed < 14; seed++) {
      DataLoader loader = DataLoader.builder(dataset(30)).batchSize(30).shuffle(seed).build();
      for (int e = 0; e < 4; e++) {
        orders.add(Arrays.toString(visited(epoch(loader.iterator(e)))));
      }
    }
    assertEquals(16, orders.size());
  }

  @Test
  void everyExampleAppearsExactlyOncePerEpoch() {
    DataLoader loader = DataLoader.builder(dataset(103)).batchSize(10).shuffle(7).build();
    for (int e = 0; e < 3; e++) {
      long[] seen = visited(epoch(loader.iterator()));
      long[] sorted = seen.clone();
      Arrays.sort(sorted);
      assertArrayEquals(IntStream.range(0, 103).asLongStream().toArray(), sorted, "epoch " + e);
    }
    DataLoader dropping =
        DataLoader.builder(dataset(103)).batchSize(10).shuffle(7).dropLast(true).build();
    long[] seen = visited(epoch(dropping.iterator()));
    assertEquals(100, seen.length);
    assertEquals(100, Arrays.stream(seen).distinct().count(), "no example twice");
  }

  // ---------------------------------------------------------------- errors and threads

  /** A dataset whose example {@code bad} cannot be read. */
  private static final class Failing implements Dataset {
    final RuntimeException failure = new IllegalStateException("example 7 is corrupt");

    @Override
    public int size() {
      return 12;
    }

    @Override
    public Example get(int index) {
      if (index == 7) {
        throw failure;
      }
      return new Example(Tensor.full(Shape.of(3), index), Tensor.scalar((long) index));
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {0, 1, 3})
  void anExceptionWhileBuildingABatchReachesTheLoopWithItsCause(int prefetch)
      throws InterruptedException {
    Failing data = new Failing();
    DataLoader.BatchIterator it =
        DataLoader.builder(data).batchSize(2).prefetch(prefetch).build().iterator();
    for (int b = 0; b < 3; b++) {
      assertEquals(2, it.next().size(), "batches before the failing one arrive");
    }
    DataLoaderException e = assertThrows(DataLoaderException.class, it::next);
    assertSame(data.failure, e.getCause());
    assertTrue(e.getMessage().contains("batch 3 of epoch 0"), e.getMessage());
    assertTrue(e.getMessage().contains("example 7 is corrupt"), e.getMessage());
    IllegalStateException after = assertThrows(IllegalStateException.class, it::hasNext);
    assertTrue(after.getMessage().contains("failed"), after.getMessage());
    awaitNoLoaderThreads(false);
  }

  @Test
  void closingAnIteratorStopsItsThread() throws InterruptedException {
    DataLoader loader = DataLoader.builder(dataset(1000)).batchSize(2).prefetch(2).build();
    DataLoader.BatchIterator it = loader.iterator();
    it.next();
    assertTrue(liveLoaderThreads() >= 1, "the producer waits on its full queue");
    it.close();
    awaitNoLoaderThreads(false);
    IllegalStateException e = assertThrows(IllegalStateException.class, it::next);
    assertTrue(e.getMessage().contains("close() was called"), e.getMessage());
  }

  @Test
  void aNewEpochStopsThePreviousIterator() throws InterruptedException {
    DataLoader loader = DataLoader.builder(dataset(1000)).batchSize(2).build();
    DataLoader.BatchIterator first = loader.iterator();
    first.next();
    for (Batch b : loader) {
      assertEquals(2, b.size());
      break; // leaves the second epoch's iterator open
    }
    IllegalStateException e = assertThrows(IllegalStateException.class, first::next);
    assertTrue(e.getMessage().contains("epoch 1 started"), e.getMessage());
    loader.iterator().close();
    awaitNoLoaderThreads(false);
  }

  @Test
  void anAbandonedIteratorsThreadEndsWhenTheIteratorIsCollected() throws InterruptedException {
    DataLoader loader = DataLoader.builder(dataset(1000)).batchSize(2).build();
    abandon(loader);
    awaitNoLoaderThreads(true);
  }

  private static void abandon(DataLoader loader) {
    Iterator<Batch> it = loader.iterator();
    it.next();
  }

  @Test
  void theProducerIsBoundedByThePrefetchDepth() throws InterruptedException {
    AtomicInteger built = new AtomicInteger();
    CountDownLatch third = new CountDownLatch(1);
    Dataset counting =
        new Dataset() {
          @Override
          public int size() {
            return 100;
          }

          @Override
          public Example get(int index) {
            if (built.incrementAndGet() == 3) {
              third.countDown();
            }
            return new Example(Tensor.scalar((double) index), Tensor.scalar((long) index));
          }
        };
    try (DataLoader.BatchIterator it =
        DataLoader.builder(counting).prefetch(2).build().iterator()) {
      assertTrue(third.await(20, TimeUnit.SECONDS));
      Thread.sleep(200);
      assertEquals(3, built.get(), "two batches queued and one waiting to be queued, no more");
      assertArrayEquals(new long[] {0}, it.next().targets().toLongArray());
      assertArrayEquals(new long[] {1}, it.next().targets().toLongArray(), "in order");
    }
    awaitNoLoaderThreads(false);
  }

  @Test
  void badArgumentsAreRejected() {
    DataLoader.Builder b = DataLoader.builder(dataset(3));
    assertThrows(IllegalArgumentException.class, () -> b.batchSize(0));
    assertThrows(IllegalArgumentException.class, () -> b.prefetch(-1));
    assertThrows(IllegalArgumentException.class, () -> b.build().iterator(-1));
    assertThrows(NullPointerException.class, () -> DataLoader.builder(null));
    IllegalArgumentException lengths =
        assertThrows(
            IllegalArgumentException.class,
            () -> new TensorDataset(Tensor.zeros(3, 2), Tensor.arange(4)));
    assertTrue(
        lengths.getMessage().contains("3 examples") && lengths.getMessage().contains("4"),
        lengths.getMessage());
    assertThrows(
        IllegalArgumentException.class,
        () -> new TensorDataset(Tensor.scalar(1.0), Tensor.arange(1)));
    assertThrows(IndexOutOfBoundsException.class, () -> dataset(3).get(3));
  }

  @Test
  void datasetsOfThreeTensorsGiveBatchesOfThree() {
    // PyTorch's TensorDataset(x, y, lengths): for x, y, lengths in loader
    Tensor x = Tensor.arange(0, 12).reshape(6, 2);
    Tensor y = Tensor.arange(100, 106);
    Tensor lengths = Tensor.arange(10, 16).mul(2);
    TensorDataset data = new TensorDataset(x, y, lengths);
    assertEquals(3, data.tensors().size());
    Example fourth = data.get(3);
    assertArrayEquals(new long[] {6, 7}, fourth.input().toLongArray());
    assertEquals(103, fourth.target().itemAsLong());
    assertEquals(26, fourth.tensor(2).itemAsLong());
    DataLoader loader = DataLoader.builder(data).batchSize(4).shuffle(3).pinMemory(true).build();
    long seen = 0;
    for (Batch b : loader) {
      assertEquals(3, b.tensors().size());
      long[] ids = b.targets().toLongArray();
      long[] firsts = b.inputs().select(1, 0).toLongArray();
      long[] lens = b.tensor(2).toLongArray();
      for (int i = 0; i < ids.length; i++) {
        long example = ids[i] - 100;
        assertEquals(2 * example, firsts[i], "the inputs of the same example");
        assertEquals(2 * (10 + example), lens[i], "the third tensor of the same example");
        seen |= 1L << example;
      }
      for (Tensor t : b.tensors()) {
        assertTrue(t.isPinned(), "every tensor of a pinned batch is pinned");
      }
    }
    assertEquals(0b111111, seen, "every example once");
    IndexOutOfBoundsException none =
        assertThrows(IndexOutOfBoundsException.class, () -> loader.iterator().next().tensor(3));
    assertEquals(
        "Batch: no tensor 3; this batch holds 3 tensors (indices 0 to 2)", none.getMessage());
    IllegalArgumentException lengthsDiffer =
        assertThrows(
            IllegalArgumentException.class, () -> new TensorDataset(x, y, Tensor.arange(5)));
    assertEquals(
        "TensorDataset: inputs hold 6 examples (shape [6, 2]) but tensor 2 holds 5 (shape [5]);"
            + " the first dimensions must be equal",
        lengthsDiffer.getMessage());
  }

  @Test
  void datasetsOfOneTensorGiveInputsOnly() {
    TensorDataset data = new TensorDataset(Tensor.arange(0, 10).reshape(5, 2));
    Batch b = DataLoader.builder(data).batchSize(5).build().iterator().next();
    assertArrayEquals(new long[] {0, 2, 4, 6, 8}, b.inputs().select(1, 0).toLongArray());
    IllegalStateException noTargets = assertThrows(IllegalStateException.class, b::targets);
    assertTrue(
        noTargets.getMessage().startsWith("This batch has inputs only"), noTargets.getMessage());
    assertThrows(IllegalStateException.class, () -> data.get(0).target());
    assertThrows(IllegalArgumentException.class, TensorDataset::new);
  }

  @Test
  void theDefaultGetBatchStacksEveryTensorOfTheExamples() {
    Dataset triples =
        new Dataset() {
          @Override
          public int size() {
            return 4;
          }

          @Override
          public Example get(int index) {
            return new Example(
                List.of(
                    Tensor.full(Shape.of(2), index),
                    Tensor.of((long) index),
                    Tensor.full(Shape.of(1), -index)));
          }
        };
    Batch b = triples.getBatch(new int[] {2, 0});
    assertEquals(Shape.of(2, 2), b.inputs().shape());
    assertArrayEquals(new long[] {2, 0}, b.targets().toLongArray());
    assertArrayEquals(new float[] {-2, 0}, b.tensor(2).reshape(-1).toFloatArray());
    Dataset ragged =
        new Dataset() {
          @Override
          public int size() {
            return 2;
          }

          @Override
          public Example get(int index) {
            return index == 0
                ? new Example(Tensor.zeros(2), Tensor.of(0L))
                : new Example(List.of(Tensor.zeros(2), Tensor.of(1L), Tensor.zeros(1)));
          }
        };
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> ragged.getBatch(new int[] {0, 1}));
    assertEquals(
        "getBatch: example 1 holds 3 tensors but example 0 holds 2; every example of a dataset must hold"
            + " the same tensors",
        e.getMessage());
  }

  @Test
  @SuppressWarnings("CreateThenMove") // deliberate: CUDA tensors where CPU tensors belong
  void datasetsAndBatchesStayOnTheCpu() {
    assumeTrue(
        Cuda.deviceCount() >= 1, "needs an emulated cuda:0 (-Dondevice.emulatedCudaDevices=2)");
    Device cuda = Device.cuda(0);
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> new TensorDataset(Tensor.zeros(3, 2).to(cuda), Tensor.arange(3)));
    assertTrue(e.getMessage().contains("cuda:0"), e.getMessage());
    assertThrows(
        IllegalArgumentException.class,
        () -> new Batch(Tensor.zeros(3, 2), Tensor.arange(3).to(cuda)));
    IllegalArgumentException example =
        assertThrows(
            IllegalArgumentException.class,
            () -> new Example(Tensor.zeros(2).to(cuda), Tensor.of(1L)));
    assertEquals(
        "Example: tensor 0 is on cuda:0; a dataset gives examples on the CPU, and the training loop moves"
            + " each batch to its device",
        example.getMessage());
  }

  // ---------------------------------------------------------------- pinned memory

  @Test
  void pinnedLoadersGivePinnedBatches() {
    DataLoader loader =
        DataLoader.builder(dataset(10)).batchSize(4).pinMemory(true).shuffle(5).build();
    List<Batch> batches = epoch(loader.iterator());
    assertEquals(3, batches.size());
    for (Batch b : batches) {
      assertTrue(b.inputs().isPinned());
      assertTrue(b.targets().isPinned());
      assertEquals(Device.cpu(), b.inputs().device());
    }
    assertEquals(10, Arrays.stream(visited(batches)).distinct().count());
  }

  @Test
  @SuppressWarnings("HostSyncInLoop") // deliberate: the test reads every batch back
  void nonBlockingCopiesOfPinnedBatchesToCudaAreCorrect() {
    assumeTrue(
        Cuda.deviceCount() >= 1, "needs an emulated cuda:0 (-Dondevice.emulatedCudaDevices=2)");
    Device cuda = Device.cuda(0);
    DataLoader loader =
        DataLoader.builder(dataset(37)).batchSize(8).shuffle(11).pinMemory(true).build();
    for (int e = 0; e < 2; e++) {
      for (Batch b : loader) {
        Tensor xb = b.inputs().to(cuda, true);
        Tensor yb = b.targets().to(cuda, true);
        assertEquals(cuda, xb.device());
        // Compute on the device, then read back: the copies landed before the ops ran.
        float[] x = xb.mul(2.0).cpu().toFloatArray();
        long[] y = yb.cpu().toLongArray();
        for (int i = 0; i < y.length; i++) {
          assertEquals(2f * y[i], x[2 * i]);
          assertEquals(2f * (y[i] + 0.5f), x[2 * i + 1]);
        }
      }
    }
  }

  @Test
  void aPinnedBatchIsCopiedAsynchronouslyAndAPageableOneIsNot() throws Exception {
    assumeTrue(
        Cuda.deviceCount() >= 1, "needs an emulated cuda:0 (-Dondevice.emulatedCudaDevices=2)");
    Device cuda = Device.cuda(0);
    Batch pinned =
        DataLoader.builder(dataset(6)).batchSize(6).pinMemory(true).build().iterator().next();
    Batch pageable = DataLoader.builder(dataset(6)).batchSize(6).build().iterator().next();
    ExecutorService worker = Executors.newSingleThreadExecutor();
    CountDownLatch open = new CountDownLatch(1);
    try {
      holdStream(cuda, open);
      Tensor xb =
          assertTimeoutPreemptively(
              Duration.ofSeconds(20),
              () -> pinned.inputs().to(cuda, true),
              "a non-blocking copy from pinned memory only queues the copy");
      Future<Tensor> blocking = worker.submit(() -> pageable.inputs().to(cuda, true));
      Thread.sleep(300);
      assertFalse(blocking.isDone(), "a copy from pageable memory waits for the device");
      open.countDown();
      assertArrayEquals(
          pageable.inputs().toFloatArray(),
          blocking.get(20, TimeUnit.SECONDS).cpu().toFloatArray());
      assertArrayEquals(pinned.inputs().toFloatArray(), xb.cpu().toFloatArray());
    } finally {
      open.countDown();
      worker.shutdownNow();
    }
  }

  /** Queues, on {@code device}'s stream, work that waits until {@code open} is counted down. */
  private static void holdStream(Device device, CountDownLatch open)
      throws ReflectiveOperationException {
    Method enqueue = HostBackend.class.getDeclaredMethod("enqueue", Runnable.class);
    enqueue.setAccessible(true);
    enqueue.invoke(
        Backends.of(new DeviceId(device.type().label(), device.index())),
        (Runnable)
            () -> {
              while (true) {
                try {
                  open.await();
                  return;
                } catch (InterruptedException e) {
                  // The stream is ours to hold until the latch opens.
                }
              }
            });
  }

  @Test
  void differentSeedsGiveDifferentFirstBatches() {
    try (DataLoader.BatchIterator a =
            DataLoader.builder(dataset(64)).batchSize(8).shuffle(0).build().iterator();
        DataLoader.BatchIterator b =
            DataLoader.builder(dataset(64)).batchSize(8).shuffle(1).build().iterator()) {
      assertNotEquals(
          Arrays.toString(a.next().targets().toLongArray()),
          Arrays.toString(b.next().targets().toLongArray()));
    }
  }
}
