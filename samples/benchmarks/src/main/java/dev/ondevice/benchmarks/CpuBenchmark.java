package dev.ondevice.benchmarks;

import dev.ondevice.Cpu;
import dev.ondevice.Tensor;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.bytedeco.javacpp.FloatPointer;
import org.bytedeco.openblas.global.openblas;

/**
 * Measures the CPU backend side by side with what it is built on, in one run: float32 matmul
 * against {@code cblas_sgemm} called directly on pre-allocated memory, and large elementwise ops
 * against plain Java loops over heap arrays and bulk copies.
 *
 * <p>Each group of contenders is warmed up, then timed over several rounds in which the contenders
 * alternate (the starting one rotates each round), so that the machine's drifts hit them alike. The
 * table shows the median over the rounds, the range, and the ratio to each baseline: the median
 * over the rounds of that round's ratio. Our ops include everything a caller pays, the allocation
 * of the result too.
 *
 * <p>Arguments: {@code --quick} (a short run), {@code --rounds N}, {@code --only matmul} or {@code
 * --only elementwise}. The thread count is {@code -Dondevice.cpu.threads} (default: all cores); the
 * baselines use the same count. Run it in a JVM of its own, as in {@code docs/performance.md},
 * which has the command and the figures.
 */
public final class CpuBenchmark {
  private static final int THREADS = Cpu.threads();
  private static final ExecutorService POOL =
      Executors.newFixedThreadPool(
          Math.max(1, THREADS - 1),
          r -> {
            Thread t = new Thread(r, "bench-baseline");
            t.setDaemon(true);
            return t;
          });

  /** Keeps results reachable so that no call can be optimised away. */
  private static volatile Object sink;

  private final int rounds;
  private final double warmupSeconds;
  private final double roundSeconds;

  private CpuBenchmark(int rounds, double warmupSeconds, double roundSeconds) {
    this.rounds = rounds;
    this.warmupSeconds = warmupSeconds;
    this.roundSeconds = roundSeconds;
  }

  /** Runs the benchmark; see the class comment for the arguments. */
  public static void main(String[] args) {
    boolean quick = false;
    int rounds = -1;
    String only = "all";
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--quick" -> quick = true;
        case "--rounds" -> rounds = Integer.parseInt(args[++i]);
        case "--only" -> only = args[++i];
        default ->
            throw new IllegalArgumentException(
                "unknown argument "
                    + args[i]
                    + "; use --quick, --rounds N, --only matmul|elementwise");
      }
    }
    CpuBenchmark bench =
        quick
            ? new CpuBenchmark(rounds > 0 ? rounds : 5, 0.3, 0.15)
            : new CpuBenchmark(rounds > 0 ? rounds : 15, 1.5, 0.3);
    System.out.printf(
        Locale.ROOT,
        "CPU benchmark: %d threads (-Dondevice.cpu.threads), %d processors, Java %s%n",
        THREADS,
        Runtime.getRuntime().availableProcessors(),
        System.getProperty("java.version"));
    System.out.println("Matrix products: " + Cpu.matmulLibrary());
    System.out.printf(
        Locale.ROOT,
        "%d rounds, contenders alternating; medians over the rounds, [min-max],"
            + " ratio = median of the per-round ratios%n%n",
        bench.rounds);
    if (!only.equals("elementwise")) {
      bench.matmul(1024);
      bench.matmul(2048);
    }
    if (!only.equals("matmul")) {
      bench.elementwise(1 << 24);
    }
  }

  // ---------------------------------------------------------------- matmul

  private void matmul(int n) {
    Tensor a = Tensor.randn(n, n);
    Tensor b = Tensor.randn(n, n);
    FloatPointer pa = new FloatPointer(a.toFloatArray());
    FloatPointer pb = new FloatPointer(b.toFloatArray());
    FloatPointer pc = new FloatPointer((long) n * n);
    // The runtime calls OpenBLAS single-threaded and splits products over its own threads; the
    // direct call runs on OpenBLAS's own threads, as many, set for the call and reset after it.
    Runnable direct =
        () -> {
          openblas.blas_set_num_threads(Cpu.threads());
          try {
            openblas.cblas_sgemm(
                openblas.CblasRowMajor,
                openblas.CblasNoTrans,
                openblas.CblasNoTrans,
                n,
                n,
                n,
                1f,
                pa,
                n,
                pb,
                n,
                0f,
                pc,
                n);
          } finally {
            openblas.blas_set_num_threads(1);
          }
        };

    // Same numbers both ways.
    float[] ours = a.matmul(b).toFloatArray();
    direct.run();
    float[] theirs = new float[n * n];
    pc.get(theirs);
    float diff = 0;
    for (int i = 0; i < ours.length; i++) {
      diff = Math.max(diff, Math.abs(ours[i] - theirs[i]));
    }
    System.out.printf(
        Locale.ROOT,
        "matmul %dx%d float32 (%d threads, max |ours - direct| = %.2g)%n",
        n,
        n,
        Cpu.threads(),
        diff);

    double flops = 2.0 * n * n * n;
    List<Contender> cs =
        List.of(
            new Contender("a.matmul(b)", flops, 4L * n * n, () -> sink = a.matmul(b)),
            new Contender("cblas_sgemm direct", flops, direct));
    printTable("GFLOPS", cs, measure(cs), new int[] {1}, new String[] {"/ direct"});
    pa.close();
    pb.close();
    pc.close();
  }

  // ---------------------------------------------------------------- elementwise

  private void elementwise(int n) {
    Tensor x = Tensor.randn(n);
    Tensor y = Tensor.randn(n);
    float[] ha = x.toFloatArray();
    float[] hb = y.toFloatArray();
    float[] hc = new float[n];
    ByteBuffer da = ByteBuffer.allocateDirect(4 * n).order(ByteOrder.nativeOrder());
    ByteBuffer db = ByteBuffer.allocateDirect(4 * n).order(ByteOrder.nativeOrder());
    System.out.printf(
        Locale.ROOT,
        "elementwise, %d float32 elements (%d MiB per operand);"
            + " GB/s of bytes read + written (12 per element for add, 8 for the others)%n",
        n,
        (4L * n) >> 20);

    long three = 12L * n;
    long two = 8L * n;
    List<Contender> cs =
        List.of(
            new Contender(
                "java add c=a+b (float[])",
                three,
                () ->
                    split(
                        n,
                        (from, to) -> {
                          for (int i = from; i < to; i++) {
                            hc[i] = ha[i] + hb[i];
                          }
                        })),
            new Contender(
                "System.arraycopy (float[])",
                two,
                () -> split(n, (from, to) -> System.arraycopy(ha, from, hc, from, to - from))),
            new Contender(
                "direct ByteBuffer copy",
                two,
                () ->
                    split(
                        n,
                        (from, to) ->
                            db.slice(4 * from, 4 * (to - from))
                                .put(da.slice(4 * from, 4 * (to - from))))),
            new Contender("x.add(y)", three, 4L * n, () -> sink = x.add(y)),
            new Contender("x.mul(2.0)", two, 4L * n, () -> sink = x.mul(2.0)),
            new Contender("x.relu()", two, 4L * n, () -> sink = x.relu()),
            new Contender("x.exp()", two, 4L * n, () -> sink = x.exp()));
    printTable(
        "GB/s", cs, measure(cs), new int[] {0, 1}, new String[] {"/ java add", "/ arraycopy"});
  }

  /** A body over the indices {@code [from, to)}. */
  @FunctionalInterface
  private interface Range {
    void run(int from, int to);
  }

  /**
   * Runs {@code body} over {@code [0, n)} in {@link #THREADS} chunks: one here, the others on the
   * pool.
   */
  private static void split(int n, Range body) {
    List<Future<?>> others = new ArrayList<>();
    for (int c = 1; c < THREADS; c++) {
      int from = (int) ((long) n * c / THREADS);
      int to = (int) ((long) n * (c + 1) / THREADS);
      others.add(POOL.submit(() -> body.run(from, to)));
    }
    body.run(0, n / THREADS);
    try {
      for (Future<?> f : others) {
        f.get();
      }
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  // ---------------------------------------------------------------- timing and the table

  /**
   * Something to time: a name, the work of one call (flops or bytes), the bytes of fresh tensors
   * one call allocates (0 for the baselines; the warm-up uses it), and the call.
   */
  private record Contender(String name, double work, long allocates, Runnable call) {
    Contender(String name, double work, Runnable call) {
      this(name, work, 0, call);
    }
  }

  /**
   * Bytes our contenders allocate during their warm-up, at least: past the host allocator's
   * collection floor (an eighth of the heap, 768 MiB with this machine's default heap), so that
   * they are timed recycling their memory, as in a long run, not faulting in fresh pages.
   */
  private static final long WARM_BYTES = Math.max(1L << 30, Runtime.getRuntime().maxMemory() / 4);

  /**
   * Seconds per call, {@code [contender][round]}: warms each up, then alternates them round by
   * round.
   */
  private double[][] measure(List<Contender> cs) {
    int[] reps = new int[cs.size()];
    for (int i = 0; i < cs.size(); i++) {
      reps[i] = Math.max(1, (int) (roundSeconds / warmUp(cs.get(i))));
    }
    double[][] seconds = new double[cs.size()][rounds];
    for (int r = 0; r < rounds; r++) {
      for (int j = 0; j < cs.size(); j++) {
        int i = (r + j) % cs.size();
        long start = System.nanoTime();
        for (int k = 0; k < reps[i]; k++) {
          cs.get(i).call().run();
        }
        seconds[i][r] = (System.nanoTime() - start) / 1e9 / reps[i];
      }
    }
    return seconds;
  }

  /**
   * Runs a contender for the warm-up time, at least three times and until it has allocated {@link
   * #WARM_BYTES}; returns its last seconds per call.
   */
  private double warmUp(Contender c) {
    long end = System.nanoTime() + (long) (warmupSeconds * 1e9);
    double last = 0;
    long bytes = c.allocates() > 0 ? WARM_BYTES : 0;
    for (long k = 0; k < 3 || System.nanoTime() < end || k * c.allocates() < bytes; k++) {
      long start = System.nanoTime();
      c.call().run();
      last = (System.nanoTime() - start) / 1e9;
    }
    return last;
  }

  /**
   * Prints one row per contender: median time per call, median rate (work per second, in units of
   * 1e9) and its range over the rounds, and for each baseline the median over the rounds of the
   * ratio of the two rates in that round (pairs measured moments apart share the machine's state,
   * which makes the ratio steadier than either rate).
   */
  private static void printTable(
      String unit, List<Contender> cs, double[][] seconds, int[] baselines, String[] ratioNames) {
    StringBuilder head =
        new StringBuilder(
            String.format(Locale.ROOT, "  %-28s %9s %9s %15s", "", "ms/call", unit, "[min-max]"));
    for (String r : ratioNames) {
      head.append(String.format(Locale.ROOT, " %12s", r));
    }
    System.out.println(head);
    double[][] rates = new double[cs.size()][rounds(seconds)];
    for (int i = 0; i < cs.size(); i++) {
      for (int r = 0; r < rates[i].length; r++) {
        rates[i][r] = cs.get(i).work() / 1e9 / seconds[i][r];
      }
    }
    for (int i = 0; i < cs.size(); i++) {
      double[] sorted = rates[i].clone();
      Arrays.sort(sorted);
      StringBuilder row =
          new StringBuilder(
              String.format(
                  Locale.ROOT,
                  "  %-28s %9.2f %9.1f %15s",
                  cs.get(i).name(),
                  median(seconds[i]) * 1e3,
                  median(rates[i]),
                  String.format(Locale.ROOT, "[%.1f-%.1f]", sorted[0], sorted[sorted.length - 1])));
      for (int b : baselines) {
        double[] ratio = new double[rates[i].length];
        for (int r = 0; r < ratio.length; r++) {
          ratio[r] = rates[i][r] / rates[b][r];
        }
        row.append(
            isBaseline(i, baselines)
                ? String.format(Locale.ROOT, " %12s", "")
                : String.format(Locale.ROOT, " %12.3f", median(ratio)));
      }
      System.out.println(row);
    }
    System.out.println();
  }

  private static boolean isBaseline(int i, int[] baselines) {
    for (int b : baselines) {
      if (b == i) {
        return true;
      }
    }
    return false;
  }

  private static int rounds(double[][] seconds) {
    return seconds[0].length;
  }

  private static double median(double[] values) {
    double[] v = values.clone();
    Arrays.sort(v);
    return (v[(v.length - 1) / 2] + v[v.length / 2]) / 2;
  }
}
