package dev.ondevice.internal.cpu;

import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.bytedeco.dnnl.engine;
import org.bytedeco.dnnl.stream;

/**
 * oneDNN (through JavaCPP's {@code org.bytedeco:dnnl} preset) for the CPU backend: the CPU engine
 * and its stream, or the reason it is not used. Loading never throws: where the natives cannot be
 * loaded the backend keeps its Java kernels, and this is logged once.
 *
 * <p>Threads: a primitive runs on the calling thread and oneDNN's OpenMP team (the preset's
 * libgomp), whose size is {@code OMP_NUM_THREADS}, by default the number of processors; the
 * runtime's own threads are idle while it runs. After each primitive, libgomp's idle workers spin
 * (by default for about 300,000 iterations) on the cores the runtime's threads need for the
 * elementwise and pooling kernels that follow: on a 2-core machine that made a CNN training step
 * two to three times slower than the Java kernels (docs/performance.md). Workers that sleep instead
 * ({@code OMP_WAIT_POLICY=passive}) cost a wake-up per primitive. Neither setting can be made from
 * Java once the process runs (libgomp reads the environment when it loads, and the preset exposes
 * no call for it), so {@code -Dondevice.cpu.dnnl} chooses:
 *
 * <ul>
 *   <li>{@code auto} (the default): oneDNN where the environment has {@code
 *       OMP_WAIT_POLICY=passive}, else the Java kernels;
 *   <li>{@code true}: oneDNN whatever the environment;
 *   <li>{@code false}: the Java kernels (read at each use, so that tests and benchmarks can compare
 *       the two).
 * </ul>
 */
final class Dnnl {
  /** The property that chooses: {@code auto}, {@code true} or {@code false}. */
  static final String PROPERTY = "ondevice.cpu.dnnl";

  private static final System.Logger LOG = System.getLogger(Dnnl.class.getName());
  private static final AtomicBoolean MISSING_LOGGED = new AtomicBoolean();
  private static final boolean PASSIVE_OPENMP =
      "passive".equalsIgnoreCase(System.getenv("OMP_WAIT_POLICY"));

  /** The CPU engine. */
  final engine cpu;

  /** The engine's stream; primitives run on it under this object's lock. */
  final stream queue;

  private Dnnl(engine cpu) {
    this.cpu = cpu;
    this.queue = new stream(cpu);
  }

  /** oneDNN where it loads and {@code -Dondevice.cpu.dnnl} chooses it (see the class comment). */
  static Optional<Dnnl> get() {
    if (!wanted()) {
      return Optional.empty();
    }
    try {
      return Loaded.INSTANCE;
    } catch (LinkageError e) {
      // The preset's classes are not on the class path (a build that left org.bytedeco:dnnl out):
      // the holder's initialisation fails before load() can catch it.
      if (MISSING_LOGGED.compareAndSet(false, true)) {
        LOG.log(System.Logger.Level.WARNING, unavailable(e));
      }
      return Optional.empty();
    }
  }

  /**
   * Which kernels run float32 convolutions, and why; without loading oneDNN, which loads at the
   * first float32 convolution (and logs if it cannot).
   */
  static String status() {
    String mode = System.getProperty(PROPERTY, "auto");
    if (wanted()) {
      return "oneDNN ("
          + ("true".equalsIgnoreCase(mode) ? "-D" + PROPERTY + "=true" : "OMP_WAIT_POLICY=passive")
          + ")";
    }
    return "Java kernels and OpenBLAS ("
        + ("false".equalsIgnoreCase(mode)
            ? "-D" + PROPERTY + "=false"
            : "oneDNN needs OMP_WAIT_POLICY=passive in the environment, or -D" + PROPERTY + "=true")
        + ")";
  }

  /**
   * oneDNN made by {@code loader}, or empty with {@code loader}'s failure logged through {@code
   * log}: loading never throws.
   */
  static Optional<Dnnl> load(Supplier<engine> loader, System.Logger log) {
    try {
      return Optional.of(new Dnnl(loader.get()));
    } catch (Throwable t) {
      log.log(System.Logger.Level.WARNING, unavailable(t));
      return Optional.empty();
    }
  }

  /** The message logged when loading fails with {@code cause}. */
  static String unavailable(Throwable cause) {
    return "oneDNN could not be loaded ("
        + cause
        + "); convolutions use the Java kernels and OpenBLAS. The natives come from"
        + " org.bytedeco:dnnl and org.bytedeco:opencl with the platform's classifier.";
  }

  private static boolean wanted() {
    String mode = System.getProperty(PROPERTY, "auto");
    return "true".equalsIgnoreCase(mode) || ("auto".equalsIgnoreCase(mode) && PASSIVE_OPENMP);
  }

  /** Loads the natives on first use, once. */
  private static final class Loaded {
    static final Optional<Dnnl> INSTANCE = load(() -> new engine(engine.kind.cpu, 0), LOG);
  }
}
