package dev.ondevice.internal.cpu;

import java.util.Optional;
import org.bytedeco.dnnl.dnnl_version_t;
import org.bytedeco.dnnl.engine;
import org.bytedeco.dnnl.global.dnnl;
import org.bytedeco.dnnl.stream;

/**
 * oneDNN (through JavaCPP's {@code org.bytedeco:dnnl} preset) for the CPU backend: the CPU engine
 * and its stream, or the reason it is not used. Loading never throws: where the natives cannot be
 * loaded the backend keeps its Java kernels, and this is logged once. {@code
 * -Dondevice.cpu.dnnl=false} forces the Java kernels (read at each use, so that tests and
 * benchmarks can compare the two).
 *
 * <p>Threads: a primitive runs on the calling thread and oneDNN's OpenMP team (the bundled
 * libgomp), whose size is {@code OMP_NUM_THREADS}, by default the number of processors; the
 * runtime's own threads are idle while it runs. The preset exposes no call to size that team from
 * Java, so to run on fewer threads than the processors set {@code OMP_NUM_THREADS} as well as
 * {@code -Dondevice.cpu.threads}.
 */
final class Dnnl {
  /** The property that disables oneDNN when {@code false}. */
  static final String PROPERTY = "ondevice.cpu.dnnl";

  private static final System.Logger LOG = System.getLogger(Dnnl.class.getName());
  private static final Dnnl INSTANCE;
  private static final String STATUS;

  static {
    Dnnl instance = null;
    String status;
    try {
      instance = new Dnnl(new engine(engine.kind.cpu, 0));
      dnnl_version_t v = dnnl.dnnl_version();
      status = "oneDNN " + v.major() + "." + v.minor() + "." + v.patch();
    } catch (Throwable t) {
      status = unavailable(t);
      LOG.log(System.Logger.Level.WARNING, status);
    }
    INSTANCE = instance;
    STATUS = status;
  }

  /** The CPU engine. */
  final engine cpu;

  /** The engine's stream; primitives run on it under this object's lock. */
  final stream stream;

  private Dnnl(engine cpu) {
    this.cpu = cpu;
    this.stream = new stream(cpu);
  }

  /** oneDNN, unless its natives could not be loaded or {@code -Dondevice.cpu.dnnl=false}. */
  static Optional<Dnnl> get() {
    return enabled() ? Optional.ofNullable(INSTANCE) : Optional.empty();
  }

  /** Which kernels run convolutions, and why. */
  static String status() {
    return INSTANCE != null && !enabled()
        ? STATUS + " (disabled by -D" + PROPERTY + "=false)"
        : STATUS;
  }

  /** The message logged when loading fails with {@code cause}. */
  static String unavailable(Throwable cause) {
    return "oneDNN could not be loaded ("
        + cause
        + "); convolutions use the Java kernels and OpenBLAS. The natives come from"
        + " org.bytedeco:dnnl and org.bytedeco:opencl with the platform's classifier.";
  }

  private static boolean enabled() {
    return !"false".equalsIgnoreCase(System.getProperty(PROPERTY));
  }
}
