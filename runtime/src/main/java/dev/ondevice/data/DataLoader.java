package dev.ondevice.data;

import dev.ondevice.Autograd;
import dev.ondevice.Tensor;
import dev.ondevice.annotations.BatchSource;
import java.lang.ref.Cleaner;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Batches of a {@link Dataset}, epoch after epoch: PyTorch's {@code DataLoader}.
 *
 * <pre>{@code
 * DataLoader loader = DataLoader.builder(dataset)
 *     .batchSize(64).shuffle(42).dropLast(true).pinMemory(true).build();
 * for (int epoch = 0; epoch < 10; epoch++) {
 *   for (Batch b : loader) {                          // each for-loop is a new epoch
 *     Tensor xb = b.inputs().to(device, true);        // asynchronous from pinned memory
 *     Tensor yb = b.targets().to(device, true);       // inputs AND targets
 *     ...
 *   }
 * }
 * }</pre>
 *
 * <ul>
 *   <li><b>Epochs.</b> Each call to {@link #iterator()} starts the next epoch (0, 1, 2, ...);
 *       {@link #iterator(long)} starts a given one, to resume a run. Every example appears exactly
 *       once per epoch.
 *   <li><b>Shuffling.</b> With {@link Builder#shuffle(long) shuffle(seed)}, epoch {@code e} visits
 *       the examples in a permutation drawn from {@code seed} and {@code e}: a new order each
 *       epoch, the same orders in every run with that seed (on every JVM: the generator is
 *       SplitMix64, written out here). Without it, examples come in index order.
 *   <li><b>Batches.</b> {@code batchSize} examples each; the last one is smaller unless {@link
 *       Builder#dropLast(boolean) dropLast} drops it. Batches are CPU tensors: the loop moves them.
 *   <li><b>Pinned memory.</b> With {@link Builder#pinMemory(boolean) pinMemory(true)} every batch
 *       is copied to page-locked memory ({@link dev.ondevice.Tensor#pinMemory()}), so that {@code
 *       xb.to(device, true)} is an asynchronous copy that overlaps the device's work, on real and
 *       emulated CUDA devices alike. Without pinning, {@code to(device, true)} copies before it
 *       returns.
 *   <li><b>Prefetching.</b> By default a background thread (a daemon, named {@code
 *       ondevice-dataloader-N}) builds up to {@link Builder#prefetch(int) prefetch} batches ahead
 *       (2 by default) while the loop trains; {@code prefetch(0)} builds each batch on the calling
 *       thread instead. An exception thrown while building a batch reaches the loop at that batch,
 *       as a {@link DataLoaderException} whose cause is the original exception.
 * </ul>
 *
 * <p><b>Threads never leak.</b> The prefetch thread holds at most {@code prefetch} batches and
 * waits while the queue is full; it ends when the epoch's batches are all built, when its {@link
 * BatchIterator} is {@linkplain BatchIterator#close() closed}, when the iterator becomes garbage (a
 * loop left with {@code break} or an exception), or when a new epoch starts on the same loader. So
 * one loader runs one epoch at a time: starting an epoch closes the iterator of the previous one,
 * whose later use throws {@link IllegalStateException}. Use two loaders for two concurrent passes
 * over a dataset.
 *
 * <p>The type is a {@link BatchSource}: the ondevice processor treats a loop over a loader as a
 * batch loop, and reports host synchronisations in it and targets left on the CPU.
 */
@BatchSource
public final class DataLoader implements Iterable<Batch> {
  private static final Cleaner CLEANER = Cleaner.create();
  private static final AtomicInteger THREAD_COUNT = new AtomicInteger();

  /** How often a waiting producer or consumer re-checks whether its partner is gone, in ms. */
  private static final long POLL_MS = 100;

  private final Dataset dataset;
  private final int batchSize;
  private final boolean shuffle;
  private final long seed;
  private final boolean dropLast;
  private final int prefetch;
  private final boolean pinMemory;
  private long nextEpoch;
  private Producer running;

  private DataLoader(Builder b) {
    this.dataset = b.dataset;
    this.batchSize = b.batchSize;
    this.shuffle = b.shuffle;
    this.seed = b.seed;
    this.dropLast = b.dropLast;
    this.prefetch = b.prefetch;
    this.pinMemory = b.pinMemory;
  }

  /**
   * A builder of a loader of {@code dataset}: batch size 1, no shuffling, last batch kept, two
   * batches prefetched, no pinning.
   */
  public static Builder builder(Dataset dataset) {
    return new Builder(Objects.requireNonNull(dataset, "DataLoader: dataset is null"));
  }

  /** The dataset. */
  public Dataset dataset() {
    return dataset;
  }

  /** The number of examples per batch (the last batch may have fewer, unless dropped). */
  public int batchSize() {
    return batchSize;
  }

  /** The dataset's size, checked: a negative size is the dataset's bug, named here. */
  private int datasetSize() {
    int n = dataset.size();
    if (n < 0) {
      throw new IllegalStateException(
          dataset.getClass().getSimpleName()
              + ".size() returned "
              + n
              + "; a dataset's size is its number of examples, >= 0");
    }
    return n;
  }

  /** The number of batches of an epoch: PyTorch's {@code len(loader)}. */
  public int numBatches() {
    int n = datasetSize();
    return (int) (dropLast ? n / batchSize : ((long) n + batchSize - 1) / batchSize);
  }

  /** The epoch the next {@link #iterator()} will start. */
  public synchronized long nextEpoch() {
    return nextEpoch;
  }

  /**
   * Starts the next epoch: the first call gives epoch 0, then 1, 2, ... Closes the iterator of the
   * previous epoch if it is still open.
   */
  @Override
  public synchronized BatchIterator iterator() {
    return iterator(nextEpoch);
  }

  /**
   * Starts epoch {@code epoch}, the one that {@code epoch} earlier calls to {@link #iterator()}
   * would reach (to resume a run); the epoch after it comes next. Closes the iterator of the
   * previous epoch if it is still open.
   *
   * @throws IllegalArgumentException if {@code epoch} is negative
   */
  public synchronized BatchIterator iterator(long epoch) {
    if (epoch < 0) {
      throw new IllegalArgumentException(
          "DataLoader.iterator: the epoch must be >= 0, got " + epoch);
    }
    if (running != null) {
      running.stop(epoch);
      running = null;
    }
    nextEpoch = epoch + 1;
    int[] order = order(datasetSize(), shuffle, seed, epoch);
    Producer producer = new Producer(this, order, epoch);
    BatchIterator it = new BatchIterator(producer);
    running = producer;
    if (producer.prefetching()) {
      producer.start();
    }
    return it;
  }

  /** Example indices in the order of epoch {@code epoch}. */
  static int[] order(int n, boolean shuffle, long seed, long epoch) {
    int[] order = new int[n];
    for (int i = 0; i < n; i++) {
      order[i] = i;
    }
    if (shuffle) {
      // The seed is mixed before the epoch is added: seeds 5 and 6 must not give the same orders
      // one
      // epoch apart, as seed + epoch would.
      SplitMix64 random = new SplitMix64(new SplitMix64(seed).nextLong() + epoch);
      for (int i = n - 1; i > 0; i--) {
        int j = random.nextInt(i + 1);
        int t = order[i];
        order[i] = order[j];
        order[j] = t;
      }
    }
    return order;
  }

  /** Builds batch {@code b} of an epoch whose example order is {@code order}, without autograd. */
  private Batch build(int[] order, int b) {
    int from = (int) ((long) b * batchSize);
    int to = (int) Math.min(order.length, (long) from + batchSize);
    int[] indices = new int[to - from];
    System.arraycopy(order, from, indices, 0, indices.length);
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      Batch batch = dataset.getBatch(indices);
      if (batch.size() != indices.length) {
        throw new IllegalStateException(
            dataset.getClass().getSimpleName()
                + ".getBatch returned "
                + batch.size()
                + " examples for "
                + indices.length
                + " indices");
      }
      return pinMemory ? batch.map(Tensor::pinMemory) : batch;
    }
  }

  /** Configures a {@link DataLoader}. */
  public static final class Builder {
    private final Dataset dataset;
    private int batchSize = 1;
    private boolean shuffle;
    private long seed;
    private boolean dropLast;
    private int prefetch = 2;
    private boolean pinMemory;

    private Builder(Dataset dataset) {
      this.dataset = dataset;
    }

    /**
     * The number of examples per batch (default 1).
     *
     * @throws IllegalArgumentException if not positive
     */
    public Builder batchSize(int batchSize) {
      if (batchSize <= 0) {
        throw new IllegalArgumentException(
            "DataLoader: batchSize must be positive, got " + batchSize);
      }
      this.batchSize = batchSize;
      return this;
    }

    /**
     * Shuffles every epoch: epoch {@code e} uses the permutation drawn from {@code seed} and {@code
     * e}, so a run is reproducible, each epoch has its own order, and two seeds give different
     * orders in every epoch.
     */
    public Builder shuffle(long seed) {
      this.shuffle = true;
      this.seed = seed;
      return this;
    }

    /**
     * Whether to drop the last batch when it has fewer than {@code batchSize} examples (default
     * false).
     */
    public Builder dropLast(boolean dropLast) {
      this.dropLast = dropLast;
      return this;
    }

    /**
     * How many batches a background thread builds ahead of the loop (default 2); 0 builds each
     * batch on the calling thread, without a background thread.
     *
     * @throws IllegalArgumentException if negative
     */
    public Builder prefetch(int batches) {
      if (batches < 0) {
        throw new IllegalArgumentException(
            "DataLoader: prefetch must be >= 0 batches, got " + batches);
      }
      this.prefetch = batches;
      return this;
    }

    /**
     * Whether batches are copied to pinned (page-locked) host memory (default false), the source of
     * asynchronous copies with {@code to(device, true)}.
     */
    public Builder pinMemory(boolean pinMemory) {
      this.pinMemory = pinMemory;
      return this;
    }

    /** The loader. */
    public DataLoader build() {
      return new DataLoader(this);
    }
  }

  /**
   * The batches of one epoch. Closing it (or dropping it) stops its prefetch thread; using it after
   * it was closed, after a failed batch, or after a new epoch started on its loader, throws {@link
   * IllegalStateException}. It closes itself after the last batch. A {@link BatchSource} too: the
   * processor treats {@code while (it.hasNext())} as a batch loop, and {@code it.next()} as a batch
   * in host memory.
   */
  @BatchSource
  public static final class BatchIterator implements Iterator<Batch>, AutoCloseable {
    private final Producer producer;
    private final Cleaner.Cleanable cleanable;
    private Item next;
    private boolean ended;
    private int delivered;

    private BatchIterator(Producer producer) {
      this.producer = producer;
      this.cleanable = CLEANER.register(this, new Stop(producer));
    }

    /** The epoch of these batches. */
    public long epoch() {
      return producer.epoch;
    }

    /**
     * Whether another batch follows; may wait for the prefetch thread.
     *
     * @throws DataLoaderException if building the next batch failed (the cause is the original
     *     exception), or if the calling thread is interrupted while waiting
     * @throws IllegalStateException if this iterator was closed
     */
    @Override
    public boolean hasNext() {
      if (ended) {
        return false;
      }
      if (next == null) {
        String reason = producer.closedReason;
        if (reason != null) {
          throw new IllegalStateException(
              "DataLoader: this iterator of epoch " + producer.epoch + " is closed: " + reason);
        }
        next =
            producer.prefetching() ? producer.take(delivered) : producer.buildOnCaller(delivered);
      }
      if (next.failure != null) {
        Throwable failure = next.failure;
        next = null;
        producer.stop(
            "building batch "
                + delivered
                + " failed (the DataLoaderException thrown then has the cause)");
        cleanable.clean();
        throw new DataLoaderException(
            "DataLoader: building batch "
                + delivered
                + " of epoch "
                + producer.epoch
                + " failed: "
                + failure,
            failure);
      }
      if (next.batch == null) {
        ended = true;
        close();
        return false;
      }
      return true;
    }

    /**
     * The next batch.
     *
     * @throws NoSuchElementException after the last batch
     * @throws DataLoaderException if building it failed
     * @throws IllegalStateException if this iterator was closed
     */
    @Override
    public Batch next() {
      if (!hasNext()) {
        throw new NoSuchElementException(
            "DataLoader: epoch "
                + producer.epoch
                + " has no more batches (it had "
                + delivered
                + ")");
      }
      Batch b = next.batch;
      next = null;
      delivered++;
      return b;
    }

    /** Stops the prefetch thread and drops the prefetched batches; idempotent. */
    @Override
    public void close() {
      producer.stop("close() was called");
      cleanable.clean();
    }
  }

  /**
   * Stops a producer; holds no reference to its iterator, so that the iterator can be collected.
   */
  private static final class Stop implements Runnable {
    private final Producer producer;

    Stop(Producer producer) {
      this.producer = producer;
    }

    @Override
    public void run() {
      producer.stop("it was dropped before its last batch");
    }
  }

  /** A built batch, the end of the epoch (both null), or a failure. */
  private static final class Item {
    static final Item END = new Item(null, null);
    final Batch batch;
    final Throwable failure;

    Item(Batch batch, Throwable failure) {
      this.batch = batch;
      this.failure = failure;
    }
  }

  /** Builds the batches of one epoch, on its own thread (prefetching) or on the caller's. */
  private static final class Producer implements Runnable {
    private final DataLoader loader;
    private final int[] order;
    private final long epoch;
    private final int batches;
    private final BlockingQueue<Item> queue;
    private Thread thread;
    private volatile String closedReason;

    Producer(DataLoader loader, int[] order, long epoch) {
      this.loader = loader;
      this.order = order;
      this.epoch = epoch;
      this.batches = loader.numBatches();
      this.queue = loader.prefetch > 0 ? new ArrayBlockingQueue<>(loader.prefetch) : null;
    }

    boolean prefetching() {
      return queue != null;
    }

    void start() {
      thread = new Thread(this, "ondevice-dataloader-" + THREAD_COUNT.incrementAndGet());
      thread.setDaemon(true);
      thread.start();
    }

    @Override
    public void run() {
      try {
        for (int b = 0; b < batches; b++) {
          if (closedReason != null || !offer(new Item(loader.build(order, b), null))) {
            return;
          }
        }
        offer(Item.END);
      } catch (Throwable t) {
        if (closedReason == null) {
          offer(new Item(null, t));
        }
      }
    }

    /** Queues an item; false if this producer was stopped meanwhile. */
    private boolean offer(Item item) {
      try {
        while (!queue.offer(item, POLL_MS, TimeUnit.MILLISECONDS)) {
          if (closedReason != null) {
            return false;
          }
        }
        return true;
      } catch (InterruptedException e) {
        return false;
      }
    }

    /** The next item from the prefetch thread, batch {@code index} of the epoch. */
    Item take(int index) {
      try {
        while (true) {
          Item item = queue.poll(POLL_MS, TimeUnit.MILLISECONDS);
          if (item != null) {
            return item;
          }
          if (!thread.isAlive() && queue.isEmpty()) {
            return new Item(
                null,
                new IllegalStateException(
                    "the prefetch thread "
                        + thread.getName()
                        + " ended without delivering batch "
                        + index));
          }
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new DataLoaderException(
            "DataLoader: interrupted while waiting for batch " + index + " of epoch " + epoch, e);
      }
    }

    /** Builds batch {@code index} on the calling thread (no prefetching). */
    Item buildOnCaller(int index) {
      if (index >= batches) {
        return Item.END;
      }
      try {
        return new Item(loader.build(order, index), null);
      } catch (RuntimeException | Error e) {
        return new Item(null, e);
      }
    }

    /** Stops because the loader started epoch {@code newEpoch}. */
    void stop(long newEpoch) {
      stop("epoch " + newEpoch + " started on its DataLoader, which runs one epoch at a time");
    }

    /** Stops the thread, if any, and drops the queued batches; the first reason is kept. */
    void stop(String reason) {
      if (closedReason == null) {
        closedReason = reason;
      }
      if (thread != null) {
        thread.interrupt();
      }
      if (queue != null) {
        queue.clear();
      }
    }
  }

  /** SplitMix64 (Steele, Lea and Flood, 2014): a small, fast generator, identical on every JVM. */
  private static final class SplitMix64 {
    private long state;

    SplitMix64(long seed) {
      this.state = seed;
    }

    long nextLong() {
      long z = (state += 0x9E3779B97F4A7C15L);
      z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
      z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
      return z ^ (z >>> 31);
    }

    /**
     * Uniform on {@code [0, bound)}, without modulo bias (rejection, as {@code
     * Random.nextInt(bound)}).
     */
    int nextInt(int bound) {
      int bits;
      int value;
      do {
        bits = (int) (nextLong() >>> 33);
        value = bits % bound;
      } while (bits - value + (bound - 1) < 0);
      return value;
    }
  }
}
