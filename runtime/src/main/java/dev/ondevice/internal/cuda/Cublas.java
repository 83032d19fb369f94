package dev.ondevice.internal.cuda;

import dev.ondevice.internal.backend.ScalarType;
import dev.ondevice.internal.backend.Strided;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import jcuda.Pointer;
import jcuda.jcublas.JCublas2;
import jcuda.jcublas.cublasHandle;
import jcuda.jcublas.cublasOperation;
import jcuda.jcublas.cublasStatus;
import jcuda.runtime.cudaStream_t;

/**
 * cuBLAS through JCublas, where {@code libcublas.so.12} loads: strided batched SGEMM and DGEMM in
 * full precision (cuBLAS's default math mode, as PyTorch's default, which leaves TF32 off), one
 * handle per device bound to its stream. {@code -Dondevice.cuda.cublas=off} leaves the products to
 * OnDevice's own kernels. Internal to the runtime.
 */
final class Cublas {
  /** The system property that switches cuBLAS off. */
  static final String SWITCH_PROPERTY = "ondevice.cuda.cublas";

  private final String reason;
  private final Map<CudaDevice, cublasHandle> handles = new ConcurrentHashMap<>();

  private Cublas(String reason) {
    this.reason = reason;
  }

  /** cuBLAS if it loads for {@code device}, else an unavailable one that says why. */
  static Cublas load(CudaDevice device) {
    if ("off".equalsIgnoreCase(System.getProperty(SWITCH_PROPERTY, "").trim())) {
      return new Cublas("cuBLAS switched off with -D" + SWITCH_PROPERTY + "=off");
    }
    try {
      device.makeCurrent();
      cublasHandle h = new cublasHandle();
      int r = JCublas2.cublasCreate(h);
      if (r != cublasStatus.CUBLAS_STATUS_SUCCESS) {
        return new Cublas("cublasCreate: " + cublasStatus.stringFor(r));
      }
      Cublas c = new Cublas(null);
      c.bind(device, h);
      return c;
    } catch (Throwable t) {
      return new Cublas(
          CudaDriver.describeLoadFailure(t)
              .replace("the CUDA driver could not be loaded", "cuBLAS could not be loaded")
              .replace("; install an NVIDIA driver for CUDA 12 or newer", ""));
    }
  }

  boolean available() {
    return reason == null;
  }

  /** Why cuBLAS is not used; null when it is. */
  String reason() {
    return reason;
  }

  private cublasHandle handle(CudaDevice device) {
    return handles.computeIfAbsent(
        device,
        d -> {
          d.makeCurrent();
          cublasHandle h = new cublasHandle();
          int r = JCublas2.cublasCreate(h);
          if (r != cublasStatus.CUBLAS_STATUS_SUCCESS) {
            throw new IllegalStateException(
                "cublasCreate failed on " + d.device() + ": " + cublasStatus.stringFor(r));
          }
          bindStream(d, h);
          return h;
        });
  }

  private void bind(CudaDevice device, cublasHandle h) {
    bindStream(device, h);
    handles.put(device, h);
  }

  private static void bindStream(CudaDevice device, cublasHandle h) {
    int r = JCublas2.cublasSetStream(h, new cudaStream_t(device.stream()));
    if (r != cublasStatus.CUBLAS_STATUS_SUCCESS) {
      throw new IllegalStateException(
          "cublasSetStream failed on " + device.device() + ": " + cublasStatus.stringFor(r));
    }
  }

  /**
   * {@code out = a @ b} by cuBLAS, as the column-major product {@code out^T = b^T a^T}; returns
   * false, having done nothing, when a leading dimension is one cuBLAS does not accept.
   */
  boolean matmul(
      CudaBackend backend,
      CudaGemm.Operand a,
      CudaGemm.Operand b,
      Strided out,
      int batches,
      int m,
      int n,
      int k) {
    int lda = a.rowMajor() ? a.rowStride() : a.columnStride();
    int ldb = b.rowMajor() ? b.rowStride() : b.columnStride();
    if (lda < Math.max(1, a.rowMajor() ? k : m)
        || ldb < Math.max(1, b.rowMajor() ? n : k)
        || out.stride(2) != 1
        || out.stride(1) != n) {
      return false;
    }
    int opA = a.rowMajor() ? cublasOperation.CUBLAS_OP_N : cublasOperation.CUBLAS_OP_T;
    int opB = b.rowMajor() ? cublasOperation.CUBLAS_OP_N : cublasOperation.CUBLAS_OP_T;
    CudaDevice device = backend.cudaDevice();
    cublasHandle h = handle(device);
    device.makeCurrent();
    boolean single = out.dtype() == ScalarType.FLOAT32;
    Pointer alpha = single ? Pointer.to(new float[] {1}) : Pointer.to(new double[] {1});
    Pointer beta = single ? Pointer.to(new float[] {0}) : Pointer.to(new double[] {0});
    long strideA = a.batchStride();
    long strideB = b.batchStride();
    long strideC = (long) m * n;
    int r =
        single
            ? JCublas2.cublasSgemmStridedBatched(
                h,
                opB,
                opA,
                n,
                m,
                k,
                alpha,
                DevicePointers.at(CudaBackend.address(b.data())),
                ldb,
                strideB,
                DevicePointers.at(CudaBackend.address(a.data())),
                lda,
                strideA,
                beta,
                DevicePointers.at(CudaBackend.address(out)),
                n,
                strideC,
                batches)
            : JCublas2.cublasDgemmStridedBatched(
                h,
                opB,
                opA,
                n,
                m,
                k,
                alpha,
                DevicePointers.at(CudaBackend.address(b.data())),
                ldb,
                strideB,
                DevicePointers.at(CudaBackend.address(a.data())),
                lda,
                strideA,
                beta,
                DevicePointers.at(CudaBackend.address(out)),
                n,
                strideC,
                batches);
    if (r != cublasStatus.CUBLAS_STATUS_SUCCESS) {
      throw new IllegalStateException(
          "cuBLAS GEMM failed on " + device.device() + ": " + cublasStatus.stringFor(r));
    }
    return true;
  }
}
