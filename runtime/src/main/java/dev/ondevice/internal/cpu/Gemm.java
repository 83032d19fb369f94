package dev.ondevice.internal.cpu;

import dev.ondevice.internal.backend.BinaryOp;
import dev.ondevice.internal.backend.HostStorage;
import dev.ondevice.internal.backend.ScalarType;
import dev.ondevice.internal.backend.Strided;
import dev.ondevice.internal.backend.UnaryOp;
import java.nio.FloatBuffer;
import java.nio.LongBuffer;
import org.bytedeco.javacpp.DoublePointer;
import org.bytedeco.javacpp.FloatPointer;
import org.bytedeco.openblas.global.openblas;

/**
 * Batched matrix products on host memory. Float32 and float64 go to OpenBLAS ({@code cblas_sgemm},
 * {@code cblas_dgemm}) directly on the tensors' memory, with transposed operands passed as flags
 * rather than copied. OpenBLAS runs single-threaded; a product is split into bands of C computed on
 * the runtime's threads ({@link Parallel}), so that no idle OpenBLAS worker spins on a core the
 * next kernel needs. Only products of several GFLOP, where its threading wins and the spinning
 * after them is small beside them, run on OpenBLAS's own threads. Where the OpenBLAS natives cannot
 * be loaded (a platform without them), a blocked Java kernel takes over, and {@link
 * #nativeStatus()} says why.
 */
public final class Gemm {
  /** Products of at least this many flops (about 1,300³ × 2) run on OpenBLAS's own threads. */
  private static final double LARGE_PRODUCT_FLOPS = 0x1p32;

  private static final String STATUS;
  private static final boolean NATIVE;

  static {
    String status;
    boolean ok;
    try {
      // Single-threaded calls, split over the runtime's own threads: OpenBLAS's worker threads
      // would spin after each product and take the cores from the elementwise kernels that follow.
      openblas.blas_set_num_threads(1);
      status =
          "OpenBLAS (bytedeco "
              + openblas.class.getPackage().getImplementationVersion()
              + ", "
              + Parallel.THREADS
              + " threads)";
      ok = true;
    } catch (Throwable t) {
      status = "OpenBLAS could not be loaded (" + t + "); using the Java kernel";
      ok = false;
    }
    STATUS = status;
    NATIVE = ok && !Boolean.getBoolean("ondevice.cpu.javaGemm");
  }

  private Gemm() {}

  /** Which kernel runs matrix products, and why. */
  public static String nativeStatus() {
    return NATIVE ? STATUS : STATUS + (STATUS.startsWith("OpenBLAS ") ? " (disabled)" : "");
  }

  /** {@code out[b] = a[b] @ bm[b]} for {@code [B,M,K] x [B,K,N]}; out contiguous. */
  public static void matmul(Strided a, Strided bm, Strided out) {
    linear(a, bm, null, false, out);
  }

  /**
   * {@link #matmul} with {@code bias} ({@code [N]} contiguous, or null) added to every row, then
   * relu where {@code relu}, in the product's output pass: on the OpenBLAS float32 path each
   * thread's band of C starts as copies of the bias, to which the product adds ({@code beta = 1},
   * where {@code beta = 0} would have OpenBLAS zero C first), and gets its relu while the band is
   * still in the cache. Other dtypes and the Java kernel add the bias and apply the relu after the
   * product.
   */
  public static void linear(Strided a, Strided bm, Strided bias, boolean relu, Strided out) {
    int batches = a.size(0);
    int m = a.size(1);
    int k = a.size(2);
    int n = bm.size(2);
    if (m == 0 || n == 0) {
      return;
    }
    boolean fused = NATIVE && a.dtype() == ScalarType.FLOAT32 && k > 0;
    if (k == 0) {
      CopyKernels.fill(out, 0);
    } else {
      Operand pa = Operand.of(a, 1, 2);
      Operand pb = Operand.of(bm, 1, 2);
      for (int b = 0; b < batches; b++) {
        int offA = a.offset() + b * a.stride(0);
        int offB = bm.offset() + b * bm.stride(0);
        int offC = out.offset() + b * out.stride(0);
        if (fused) {
          Epilogue e = new Epilogue(bias, relu, out.host(), offC, n);
          sgemm(pa, pb, a.host(), offA, bm.host(), offB, e, m, n, k);
        } else if (NATIVE && a.dtype() == ScalarType.FLOAT64) {
          dgemm(pa, pb, a.host(), offA, bm.host(), offB, out.host(), offC, m, n, k);
        } else {
          javaGemm(a.dtype(), pa, pb, a.host(), offA, bm.host(), offB, out.host(), offC, m, n, k);
        }
      }
    }
    if (!fused && bias != null) {
      int[] strides = new int[out.rank()];
      strides[out.rank() - 1] = 1;
      Strided rows = bias.withLayout(bias.offset(), out.sizes().clone(), strides);
      BinaryKernels.apply(BinaryOp.ADD, out, rows, out);
    }
    if (!fused && relu) {
      UnaryKernels.apply(UnaryOp.RELU, out, out);
    }
  }

  /**
   * The output C of one float32 product and what its output pass does besides: starting from the
   * bias rows, and the relu.
   */
  private record Epilogue(Strided bias, boolean relu, HostStorage c, int offC, int n) {
    /** Fills rows {@code [i0, i1)}, columns {@code [j0, j1)} of C with the bias; returns beta. */
    float start(int i0, int i1, int j0, int j1) {
      if (bias == null) {
        return 0f;
      }
      FloatBuffer values = bias.host().floats();
      FloatBuffer cf = c.floats();
      for (int i = i0; i < i1; i++) {
        cf.put(offC + i * n + j0, values, bias.offset() + j0, j1 - j0);
      }
      return 1f;
    }

    /** Adds the bias to the {@code m} rows of a C the Java kernel wrote, and applies the relu. */
    void finishAfterJava(int m) {
      if (bias != null) {
        FloatBuffer values = bias.host().floats();
        FloatBuffer cf = c.floats();
        for (int i = 0; i < m; i++) {
          for (int j = 0; j < n; j++) {
            int p = offC + i * n + j;
            cf.put(p, cf.get(p) + values.get(bias.offset() + j));
          }
        }
      }
      finish(0, m, 0, n);
    }

    /** Applies the relu, if any, to rows {@code [i0, i1)}, columns {@code [j0, j1)} of C. */
    void finish(int i0, int i1, int j0, int j1) {
      if (relu) {
        FloatBuffer cf = c.floats();
        for (int i = i0; i < i1; i++) {
          int row = offC + i * n + j0;
          FloatRows.relu(cf, row, cf, row, j1 - j0);
        }
      }
    }
  }

  /** How a strided matrix is handed to BLAS: transposed or not, and its leading dimension. */
  private static final class Operand {
    final boolean transposed;
    final int lead;
    final int rowStride;
    final int colStride;

    private Operand(boolean transposed, int lead, int rowStride, int colStride) {
      this.transposed = transposed;
      this.lead = lead;
      this.rowStride = rowStride;
      this.colStride = colStride;
    }

    static Operand of(Strided s, int rowDim, int colDim) {
      int rows = s.size(rowDim);
      int cols = s.size(colDim);
      int rs = s.stride(rowDim);
      int cs = s.stride(colDim);
      if ((cs == 1 || cols == 1) && (rows == 1 || rs >= Math.max(1, cols))) {
        return new Operand(false, rows == 1 ? Math.max(1, cols) : rs, rs, cs);
      }
      if ((rs == 1 || rows == 1) && (cols == 1 || cs >= Math.max(1, rows))) {
        return new Operand(true, cols == 1 ? Math.max(1, rows) : cs, rs, cs);
      }
      return new Operand(false, -1, rs, cs);
    }

    boolean blasCompatible() {
      return lead > 0;
    }

    int trans() {
      return transposed ? openblas.CblasTrans : openblas.CblasNoTrans;
    }
  }

  /** A BLAS call on a block of C: rows {@code [i0, i1)} and columns {@code [j0, j1)}. */
  @FunctionalInterface
  private interface Block {
    void run(int i0, int i1, int j0, int j1);
  }

  /**
   * Runs {@code block} over C split into one band per thread: bands of columns when C is wider than
   * tall (each thread then reads all of A and its share of B), bands of rows otherwise. Products
   * under about a million multiply-adds stay on the calling thread.
   */
  private static void split(int m, int n, int k, Block block) {
    if (2.0 * m * n * k >= LARGE_PRODUCT_FLOPS && Parallel.THREADS > 1) {
      // Large enough that OpenBLAS's own threading, which shares packed panels between its
      // threads, wins, and that its workers' spinning after the call costs little beside it.
      openblas.blas_set_num_threads(Parallel.THREADS);
      try {
        block.run(0, m, 0, n);
      } finally {
        openblas.blas_set_num_threads(1);
      }
      return;
    }
    int grain =
        (int)
            Math.max(
                1,
                Math.min(Integer.MAX_VALUE, (1L << 20) / Math.max(1L, (long) k * Math.min(m, n))));
    if (n >= m) {
      Parallel.forRange(n, Math.max(grain, 16), (from, to) -> block.run(0, m, from, to));
    } else {
      Parallel.forRange(m, Math.max(grain, 16), (from, to) -> block.run(from, to, 0, n));
    }
  }

  private static void sgemm(
      Operand pa,
      Operand pb,
      HostStorage a,
      int offA,
      HostStorage b,
      int offB,
      Epilogue epilogue,
      int m,
      int n,
      int k) {
    HostStorage c = epilogue.c();
    int offC = epilogue.offC();
    if (!pa.blasCompatible() || !pb.blasCompatible()) {
      javaGemm(ScalarType.FLOAT32, pa, pb, a, offA, b, offB, c, offC, m, n, k);
      epilogue.finishAfterJava(m);
      return;
    }
    split(
        m,
        n,
        k,
        (i0, i1, j0, j1) -> {
          float beta = epilogue.start(i0, i1, j0, j1);
          FloatPointer ap = new FloatPointer(a.floats()).position(offA + i0 * pa.rowStride);
          FloatPointer bp = new FloatPointer(b.floats()).position(offB + j0 * pb.colStride);
          FloatPointer cp = new FloatPointer(c.floats()).position(offC + i0 * n + j0);
          openblas.cblas_sgemm(
              openblas.CblasRowMajor,
              pa.trans(),
              pb.trans(),
              i1 - i0,
              j1 - j0,
              k,
              1f,
              ap,
              pa.lead,
              bp,
              pb.lead,
              beta,
              cp,
              n);
          epilogue.finish(i0, i1, j0, j1);
        });
  }

  private static void dgemm(
      Operand pa,
      Operand pb,
      HostStorage a,
      int offA,
      HostStorage b,
      int offB,
      HostStorage c,
      int offC,
      int m,
      int n,
      int k) {
    if (!pa.blasCompatible() || !pb.blasCompatible()) {
      javaGemm(ScalarType.FLOAT64, pa, pb, a, offA, b, offB, c, offC, m, n, k);
      return;
    }
    split(
        m,
        n,
        k,
        (i0, i1, j0, j1) -> {
          DoublePointer ap = new DoublePointer(a.doubles()).position(offA + i0 * pa.rowStride);
          DoublePointer bp = new DoublePointer(b.doubles()).position(offB + j0 * pb.colStride);
          DoublePointer cp = new DoublePointer(c.doubles()).position(offC + i0 * n + j0);
          openblas.cblas_dgemm(
              openblas.CblasRowMajor,
              pa.trans(),
              pb.trans(),
              i1 - i0,
              j1 - j0,
              k,
              1.0,
              ap,
              pa.lead,
              bp,
              pb.lead,
              0.0,
              cp,
              n);
        });
  }

  /**
   * The portable kernel: B is packed row-major into a heap array once, then each thread computes a
   * band of rows of C with an i-k-j loop the JIT vectorises.
   */
  private static void javaGemm(
      ScalarType t,
      Operand pa,
      Operand pb,
      HostStorage a,
      int offA,
      HostStorage b,
      int offB,
      HostStorage c,
      int offC,
      int m,
      int n,
      int k) {
    if (t == ScalarType.INT64) {
      longGemm(pa, pb, a.longs(), offA, b.longs(), offB, c.longs(), offC, m, n, k);
      return;
    }
    double[] packedB = new double[k * n];
    for (int p = 0; p < k; p++) {
      for (int j = 0; j < n; j++) {
        packedB[p * n + j] = Elements.getDouble(b, t, offB + p * pb.rowStride + j * pb.colStride);
      }
    }
    Parallel.forRange(
        m,
        Math.max(1, 4096 / Math.max(1, n)),
        (from, to) -> {
          double[] row = new double[n];
          for (int i = from; i < to; i++) {
            java.util.Arrays.fill(row, 0);
            for (int p = 0; p < k; p++) {
              double av = Elements.getDouble(a, t, offA + i * pa.rowStride + p * pa.colStride);
              int base = p * n;
              for (int j = 0; j < n; j++) {
                row[j] += av * packedB[base + j];
              }
            }
            for (int j = 0; j < n; j++) {
              Elements.setDouble(c, t, offC + i * n + j, row[j]);
            }
          }
        });
  }

  private static void longGemm(
      Operand pa,
      Operand pb,
      LongBuffer a,
      int offA,
      LongBuffer b,
      int offB,
      LongBuffer c,
      int offC,
      int m,
      int n,
      int k) {
    for (int i = 0; i < m; i++) {
      for (int j = 0; j < n; j++) {
        long acc = 0;
        for (int p = 0; p < k; p++) {
          acc +=
              a.get(offA + i * pa.rowStride + p * pa.colStride)
                  * b.get(offB + p * pb.rowStride + j * pb.colStride);
        }
        c.put(offC + i * n + j, acc);
      }
    }
  }
}
