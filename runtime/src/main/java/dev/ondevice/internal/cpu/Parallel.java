package dev.ondevice.internal.cpu;

import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinTask;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.TimeUnit;

/**
 * Splits index ranges over the CPU threads: the calling thread runs one chunk and a pool of daemon
 * threads the others. The thread count is {@code -Dondevice.cpu.threads}, by default the number of
 * processors.
 */
public final class Parallel {
  /** The number of threads kernels use. */
  public static final int THREADS =
      Math.max(
          1,
          Integer.getInteger("ondevice.cpu.threads", Runtime.getRuntime().availableProcessors()));

  /**
   * Workers idle for a second end (and are started again by the next kernel that needs them), so
   * that a launcher that waits for the threads of a program after its main method returns, such as
   * Maven's {@code exec:java}, is not kept waiting: ForkJoinPool workers do not end when
   * interrupted.
   */
  private static final ForkJoinPool POOL =
      new ForkJoinPool(
          THREADS,
          pool -> {
            ForkJoinWorkerThread t =
                ForkJoinPool.defaultForkJoinWorkerThreadFactory.newThread(pool);
            t.setDaemon(true);
            t.setName("ondevice-cpu-" + t.getPoolIndex());
            return t;
          },
          null,
          false,
          0,
          THREADS + 256,
          1,
          null,
          1,
          TimeUnit.SECONDS);

  private Parallel() {}

  /** A body that handles the indices {@code [from, to)}. */
  @FunctionalInterface
  public interface Range {
    void run(int from, int to);
  }

  /**
   * Runs {@code body} over {@code [0, n)} in at most {@link #THREADS} chunks of at least {@code
   * grain} indices; small ranges run on the calling thread alone.
   */
  public static void forRange(int n, int grain, Range body) {
    int chunks = (int) Math.min(THREADS, Math.max(1, (long) n / Math.max(1, grain)));
    if (chunks <= 1) {
      if (n > 0) {
        body.run(0, n);
      }
      return;
    }
    @SuppressWarnings("unchecked")
    ForkJoinTask<?>[] tasks = new ForkJoinTask<?>[chunks - 1];
    for (int c = 1; c < chunks; c++) {
      int from = (int) ((long) n * c / chunks);
      int to = (int) ((long) n * (c + 1) / chunks);
      tasks[c - 1] = POOL.submit(() -> body.run(from, to));
    }
    RuntimeException failure = null;
    try {
      body.run(0, (int) ((long) n / chunks));
    } catch (RuntimeException e) {
      failure = e;
    }
    for (ForkJoinTask<?> t : tasks) {
      try {
        t.join();
      } catch (RuntimeException e) {
        if (failure == null) {
          failure = e;
        }
      }
    }
    if (failure != null) {
      throw failure;
    }
  }
}
