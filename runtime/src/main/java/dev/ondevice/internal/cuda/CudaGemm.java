package dev.ondevice.internal.cuda;

import dev.ondevice.internal.backend.ScalarType;
import dev.ondevice.internal.backend.Strided;
import dev.ondevice.internal.cuda.KernelLibrary.Module;

/**
 * Batched matrix products on a CUDA device: cuBLAS where {@code libcublas.so.12} loads (float32 and
 * float64), otherwise, and for int64, the tiled kernels of {@code gemm.cu}. Transposed operands are
 * passed as strides, never copied; an operand with neither of its matrix dimensions contiguous is
 * made contiguous first. Internal to the runtime.
 */
final class CudaGemm {
  /** The tile shapes of {@code gemm.cu}: edge length per kernel, largest first, by dtype. */
  private static final int[] F32_TILES = {128, 64, 32};

  private static final int[] F64_TILES = {64, 32};
  private static final int[] I64_TILES = {32};

  /** The K slice of the kernels ({@code BK}); split-K chunks are multiples of it. */
  static final int SLICE = 8;

  /** Fewest K per split: below it a split's partial product costs more than it saves. */
  static final int MIN_SPLIT_K = 256;

  static final int MAX_SPLITS = 16;

  private final CudaDevice first;
  private volatile Cublas cublas;

  /** Products whose cuBLAS, if any, is loaded on first use, in {@code first}'s context. */
  CudaGemm(CudaDevice first) {
    this.first = first;
  }

  /** cuBLAS, loaded (or found missing) on the first call. */
  private Cublas cublas() {
    Cublas c = cublas;
    if (c == null) {
      synchronized (this) {
        c = cublas;
        if (c == null) {
          c = Cublas.load(first);
          cublas = c;
        }
      }
    }
    return c;
  }

  /** Which kernels run the products, for people. */
  String describe() {
    Cublas c = cublas();
    return c.available()
        ? "cuBLAS (float32, float64) and OnDevice's kernels (int64)"
        : "OnDevice's tiled kernels (" + c.reason() + ")";
  }

  /** A product's operand as the kernels read it: its strides over [batch, rows, columns]. */
  record Operand(Strided data, int batchStride, int rowStride, int columnStride) {
    /** Whether the columns (K for A, N for B) are contiguous. */
    boolean rowMajor() {
      return columnStride == 1;
    }
  }

  /**
   * {@code m} ({@code [B, R, C]}) with the strides of size-1 dimensions normalised, or a contiguous
   * copy when neither matrix dimension has stride 1.
   */
  static Operand operand(CudaBackend b, Strided m) {
    int rows = m.size(1);
    int cols = m.size(2);
    int bs = m.size(0) == 1 ? 0 : m.stride(0);
    int rs = m.stride(1);
    int cs = m.stride(2);
    if (cols == 1) {
      cs = 1;
    }
    if (rows == 1 && cs != 1) {
      rs = 1;
    }
    if (rows == 1 && cs == 1) {
      rs = cols;
    }
    if (cs == 1 || rs == 1) {
      return new Operand(m, bs, rs, cs);
    }
    Strided dense = b.empty(m.dtype(), m.sizes());
    b.copy(m, dense);
    return new Operand(dense, m.size(0) == 1 ? 0 : rows * cols, cols, 1);
  }

  /** How the kernels run one product. */
  record Plan(int tile, int splits, int chunk) {}

  /**
   * The plan for {@code batches} products of {@code [M, K] x [K, N]} on {@code multiprocessors}.
   */
  static Plan plan(ScalarType dtype, int batches, int m, int n, int k, int multiprocessors) {
    int[] tiles =
        dtype == ScalarType.FLOAT32
            ? F32_TILES
            : dtype == ScalarType.FLOAT64 ? F64_TILES : I64_TILES;
    int tile = tiles[tiles.length - 1];
    for (int t : tiles) {
      if (blocks(t, batches, m, n) >= multiprocessors) {
        tile = t;
        break;
      }
    }
    long blocks = blocks(tile, batches, m, n);
    int splits = 1;
    if (blocks < multiprocessors && k >= 2 * MIN_SPLIT_K) {
      splits =
          (int)
              Math.min(
                  Math.min(MAX_SPLITS, k / MIN_SPLIT_K),
                  (2L * multiprocessors + blocks - 1) / blocks);
      splits = Math.max(1, Math.min(splits, LaunchConfig.MAX_GRID_YZ / Math.max(1, batches)));
    }
    int chunk = ((k + splits - 1) / splits + SLICE - 1) / SLICE * SLICE;
    splits = (k + chunk - 1) / chunk;
    return new Plan(tile, Math.max(1, splits), chunk);
  }

  private static long blocks(int tile, int batches, int m, int n) {
    return (long) ((m + tile - 1) / tile) * ((n + tile - 1) / tile) * batches;
  }

  /** {@code out[b] = a[b] @ bm[b]} for {@code [B,M,K] x [B,K,N]}; out contiguous. */
  void matmul(CudaBackend backend, Strided a, Strided bm, Strided out) {
    int batches = a.size(0);
    int m = a.size(1);
    int k = a.size(2);
    int n = bm.size(2);
    if (m == 0 || n == 0 || batches == 0) {
      return;
    }
    if (k == 0) {
      backend.fill(out, 0);
      return;
    }
    if (a.dtype() == ScalarType.BOOL) {
      throw new IllegalArgumentException("matmul: not defined for bool tensors");
    }
    Operand pa = operand(backend, a);
    Operand pb = operand(backend, bm);
    Cublas c = cublas();
    if (c.available()
        && a.dtype().isFloatingPoint()
        && c.matmul(backend, pa, pb, out, batches, m, n, k)) {
      return;
    }
    Plan plan = plan(a.dtype(), batches, m, n, k, backend.multiprocessors());
    CudaStorage work =
        plan.splits() > 1
            ? backend.allocate((long) plan.splits() * batches * m * n * a.dtype().byteSize())
            : null;
    String type = CudaBackend.suffix(a.dtype());
    // Grids are at most 65535 tiles of rows and 65535 batches times splits: larger products
    // launch in pieces.
    int perLaunch = Math.max(1, LaunchConfig.MAX_GRID_YZ / plan.splits());
    int rowsPerLaunch = LaunchConfig.MAX_GRID_YZ * plan.tile();
    boolean vec = vectorisable(pa, pb, out);
    for (int first = 0; first < batches; first += perLaunch) {
      int count = Math.min(perLaunch, batches - first);
      for (int row = 0; row < m; row += rowsPerLaunch) {
        int rows = Math.min(rowsPerLaunch, m - row);
        // The packed arguments keep the operands and the workspace reachable until both launches
        // are queued (KernelArgs.keep): the split-K sum reads the same struct.
        pack(new Piece(first, count, row, rows), pa, pb, out, n, k, plan, work, vec);
        backend.launch(
            Module.GEMM,
            kernel(a.dtype(), plan.tile(), pa, pb),
            new LaunchConfig(
                (n + plan.tile() - 1) / plan.tile(),
                (rows + plan.tile() - 1) / plan.tile(),
                count * plan.splits(),
                256));
        if (plan.splits() > 1) {
          backend.launch(
              Module.GEMM,
              "gemm_splitk_sum_" + type,
              LaunchConfig.elementwise((long) count * rows * n, backend.multiprocessors()));
        }
      }
    }
  }

  /**
   * The kernel for a tile: float32's largest tiles have a kernel per layout ({@code sgemm128_nt}:
   * A's K contiguous, B's K contiguous), the others read any layout.
   */
  static String kernel(ScalarType dtype, int tile, Operand a, Operand b) {
    if (dtype == ScalarType.FLOAT32 && tile == 128) {
      return "sgemm128_" + (a.rowMajor() ? "n" : "t") + (b.rowMajor() ? "n" : "t");
    }
    return "gemm_" + CudaBackend.suffix(dtype) + "_" + tile;
  }

  /**
   * Whether the float4 paths of {@code sgemm128} may be taken: every operand's first element and
   * every row of its contiguous dimension on a 16-byte boundary.
   */
  static boolean vectorisable(Operand a, Operand b, Strided out) {
    return aligned(
            CudaBackend.address(a.data()),
            a.batchStride(),
            a.rowMajor() ? a.rowStride() : a.columnStride())
        && aligned(
            CudaBackend.address(b.data()),
            b.batchStride(),
            b.rowMajor() ? b.rowStride() : b.columnStride())
        && aligned(CudaBackend.address(out), out.stride(0), out.stride(1));
  }

  private static boolean aligned(long address, int batchStride, int leadingStride) {
    return address % 16 == 0 && batchStride % 4 == 0 && leadingStride % 4 == 0;
  }

  /**
   * The batches {@code [firstBatch, firstBatch + batches)} and rows {@code [firstRow, firstRow +
   * rows)} of one launch.
   */
  private record Piece(int firstBatch, int batches, int firstRow, int rows) {}

  /** {@code GemmArgs} for one piece of the product. */
  private static void pack(
      Piece p,
      Operand a,
      Operand b,
      Strided out,
      int n,
      int k,
      Plan plan,
      CudaStorage work,
      boolean vec) {
    int es = a.data().dtype().byteSize();
    Launcher.args()
        .keep(a.data().storage())
        .keep(b.data().storage())
        .keep(out.storage())
        .keep(work)
        .view(
            CudaBackend.address(a.data())
                + ((long) p.firstBatch() * a.batchStride() + (long) p.firstRow() * a.rowStride())
                    * es,
            new int[] {a.batchStride(), a.rowStride(), a.columnStride()})
        .view(
            CudaBackend.address(b.data()) + (long) p.firstBatch() * b.batchStride() * es,
            new int[] {b.batchStride(), b.rowStride(), b.columnStride()})
        .view(
            CudaBackend.address(out)
                + ((long) p.firstBatch() * out.stride(0) + (long) p.firstRow() * out.stride(1))
                    * es,
            new int[] {out.stride(0), out.stride(1), out.stride(2)})
        .pointer(work == null ? 0 : work.address())
        .i32(p.rows())
        .i32(n)
        .i32(k)
        .i32(p.batches())
        .i32(plan.splits())
        .i32(plan.chunk())
        .i32(vec ? 1 : 0);
  }
}
