package dev.ondevice.internal.cuda;

import static dev.ondevice.internal.cuda.CudaDriver.check;

import dev.ondevice.internal.backend.AdamStep;
import dev.ondevice.internal.backend.BinaryOp;
import dev.ondevice.internal.backend.Bytes;
import dev.ondevice.internal.backend.Coalesced;
import dev.ondevice.internal.backend.CopyEngine;
import dev.ondevice.internal.backend.DeviceId;
import dev.ondevice.internal.backend.RandomKind;
import dev.ondevice.internal.backend.ReduceOp;
import dev.ondevice.internal.backend.ScalarType;
import dev.ondevice.internal.backend.SgdStep;
import dev.ondevice.internal.backend.Strided;
import dev.ondevice.internal.backend.UnaryOp;
import dev.ondevice.internal.backend.Window2d;
import dev.ondevice.internal.backend.WindowChecks;
import dev.ondevice.internal.backend.WindowGrid;
import dev.ondevice.internal.cuda.KernelLibrary.Module;
import java.util.Arrays;
import jcuda.driver.JCudaDriver;

/**
 * The kernels of one CUDA device: every op of the {@link dev.ondevice.internal.backend.Backend}
 * contract as a launch of the PTX kernels of {@code runtime/src/main/cuda} on the device's stream,
 * with the CPU backend's semantics (dtype conversions, NaN rules, the order of ties) and its
 * argument checks, made on the host before the launch. Data-dependent errors (an index out of
 * range) are reported by the kernels and surface at the next synchronisation. Internal to the
 * runtime.
 */
public final class CudaBackend implements CopyEngine {
  private final CudaDevice device;
  private final CudaCopies copies;
  private final CudaGemm gemm;

  CudaBackend(CudaDevice device, CudaGemm gemm) {
    this.device = device;
    this.copies = new CudaCopies(this);
    this.gemm = gemm;
  }

  CudaDevice cudaDevice() {
    return device;
  }

  @Override
  public DeviceId device() {
    return device.device();
  }

  @Override
  public String describe() {
    return device.device().toString();
  }

  /** The device, its compute capability and memory, for people. */
  public String details() {
    return device + ", " + Bytes.human(device.totalMemory());
  }

  /** What runs this device's matrix products, for people. */
  public String gemmDescription() {
    return gemm.describe();
  }

  /** Bytes held by this device's live tensors. */
  public long allocatedBytes() {
    return device.allocator().allocatedBytes();
  }

  /** Bytes this device's caching allocator holds from the driver. */
  public long reservedBytes() {
    return device.allocator().reservedBytes();
  }

  /** The most bytes this device's tensors held at once. */
  public long peakAllocatedBytes() {
    return device.allocator().peakAllocatedBytes();
  }

  @Override
  public long[] memory() {
    return new long[] {allocatedBytes(), reservedBytes(), peakAllocatedBytes()};
  }

  /** Frees this device's cached blocks, once its queued work has run. */
  @Override
  public void emptyCache() {
    device.allocator().emptyCache();
  }

  /** The device's name, as {@code NVIDIA H200}. */
  @Override
  public String name() {
    return device.name();
  }

  @Override
  public CudaStorage allocate(long bytes) {
    return CudaStorage.allocate(this, device.allocator(), bytes);
  }

  /** A contiguous view of fresh memory on this device. */
  Strided empty(ScalarType dtype, int[] sizes) {
    long n = 1;
    for (int s : sizes) {
      n *= s;
    }
    return Strided.contiguous(allocate(n * dtype.byteSize()), dtype, sizes.clone());
  }

  /** The device address of the first element of {@code s}. */
  static long address(Strided s) {
    return ((CudaStorage) s.storage()).address() + (long) s.offset() * s.dtype().byteSize();
  }

  static String suffix(ScalarType t) {
    return switch (t) {
      case BOOL -> "bool";
      case INT64 -> "i64";
      case FLOAT32 -> "f32";
      case FLOAT64 -> "f64";
    };
  }

  // ---------------------------------------------------------------- launching

  /**
   * Packs the coalesced index space of {@code sizes} and the views into the argument buffer and
   * returns it with the element count in {@link Packed}; the caller appends the scalars.
   */
  private Packed pack(int[] sizes, Strided... views) {
    int[][] strides = new int[views.length][];
    for (int k = 0; k < views.length; k++) {
      strides[k] = views[k].strides();
    }
    Coalesced c = Coalesced.of(sizes, strides);
    KernelArgs args = Launcher.args().dims(c.sizes);
    for (int k = 0; k < views.length; k++) {
      args.view(views[k], c.strides[k]);
    }
    return new Packed(args, c.numel());
  }

  /** Packed arguments and the number of elements the kernel covers. */
  private record Packed(KernelArgs args, int numel) {}

  private void launch(Module module, String name, long elements) {
    if (elements == 0) {
      return;
    }
    launch(module, name, LaunchConfig.elementwise(elements, device.multiprocessors()));
  }

  void launch(Module module, String name, LaunchConfig config) {
    Launcher.launch(device, device.kernels().kernel(module, name), config);
  }

  int multiprocessors() {
    return device.multiprocessors();
  }

  // ---------------------------------------------------------------- elementwise

  @Override
  public void fill(Strided out, double value) {
    Packed p = pack(out.sizes(), out);
    p.args().f64(value);
    launch(Module.ELEMENTWISE, "fill_" + suffix(out.dtype()), p.numel());
  }

  @Override
  public void copy(Strided from, Strided to) {
    if (from.dtype() == to.dtype() && from.isContiguous() && to.isContiguous()) {
      long bytes = (long) from.numel() * from.dtype().byteSize();
      if (bytes > 0) {
        device.makeCurrent();
        check(
            JCudaDriver.cuMemcpyDtoDAsync(
                DevicePointers.at(address(to)),
                DevicePointers.at(address(from)),
                bytes,
                device.stream()),
            "cuMemcpyDtoDAsync",
            device.device());
      }
      return;
    }
    Packed p = pack(to.sizes(), from, to);
    launch(
        Module.ELEMENTWISE, "copy_" + suffix(from.dtype()) + "_" + suffix(to.dtype()), p.numel());
  }

  @Override
  public void unary(UnaryOp op, Strided in, Strided out) {
    String name;
    if (op == UnaryOp.LOGICAL_NOT) {
      requireType("logicalNot", in, ScalarType.BOOL);
      name = "logical_not";
    } else if (in.dtype() == ScalarType.INT64) {
      if (!op.acceptsIntegers()) {
        throw new IllegalArgumentException(op + " is not defined on integers");
      }
      name = "unary_i64";
    } else if (in.dtype().isFloatingPoint()) {
      name = "unary_" + suffix(in.dtype());
    } else {
      throw new IllegalArgumentException(op + " is not defined on bool operands");
    }
    Packed p = pack(out.sizes(), in, out);
    p.args().i32(KernelCodes.of(op));
    launch(Module.ELEMENTWISE, name, p.numel());
  }

  @Override
  public void binary(BinaryOp op, Strided a, Strided b, Strided out) {
    checkBinary(op, a.dtype());
    Packed p = pack(out.sizes(), a, b, out);
    p.args().i32(KernelCodes.of(op));
    launch(Module.ELEMENTWISE, "binary_" + suffix(a.dtype()), p.numel());
  }

  @Override
  public void binaryScalar(BinaryOp op, Strided a, double s, boolean scalarFirst, Strided out) {
    checkBinary(op, a.dtype());
    Packed p = pack(out.sizes(), a, out);
    p.args().f64(s).i32(KernelCodes.of(op)).i32(scalarFirst ? 1 : 0);
    launch(Module.ELEMENTWISE, "binary_scalar_" + suffix(a.dtype()), p.numel());
  }

  /** The CPU kernels' rules: comparisons on any type, arithmetic not on bool, no int64 division. */
  private static void checkBinary(BinaryOp op, ScalarType t) {
    if (op.isComparison()) {
      return;
    }
    if (t == ScalarType.BOOL) {
      throw new IllegalArgumentException(op.opName() + " is not defined on bool operands");
    }
    if (t == ScalarType.INT64 && op == BinaryOp.DIV) {
      throw new IllegalArgumentException(op.opName() + " is not defined on int64 operands");
    }
  }

  @Override
  public void scaledAdd(Strided target, Strided other, double alpha) {
    if (target.dtype() == ScalarType.BOOL) {
      throw new IllegalArgumentException("addi is not defined on bool tensors");
    }
    Packed p = pack(target.sizes(), target, other);
    p.args().f64(alpha);
    launch(Module.ELEMENTWISE, "scaled_add_" + suffix(target.dtype()), p.numel());
  }

  @Override
  public void reluBackward(Strided grad, Strided output, Strided out) {
    requireFloating("reluBackward", out);
    Packed p = pack(out.sizes(), grad, output, out);
    launch(Module.ELEMENTWISE, "relu_backward_" + suffix(out.dtype()), p.numel());
  }

  @Override
  public void where(Strided cond, Strided a, Strided b, Strided out) {
    Packed p = pack(out.sizes(), cond, a, b, out);
    launch(Module.ELEMENTWISE, "where_" + suffix(out.dtype()), p.numel());
  }

  @Override
  public void arange(double start, double step, Strided out) {
    requireNotBool("arange", out);
    Packed p = pack(out.sizes(), out);
    p.args().f64(start).f64(step);
    launch(Module.ELEMENTWISE, "arange_" + suffix(out.dtype()), p.numel());
  }

  @Override
  public void random(RandomKind kind, double a, double b, long seed, long counter, Strided out) {
    requireNotBool("random", out);
    // Draws are numbered in row-major order of out, as the CPU numbers its elements; coalescing
    // keeps that order.
    Packed packed = pack(out.sizes(), out);
    packed.args().f64(a).f64(b).i64(seed).i64(counter).i32(KernelCodes.of(kind));
    launch(Module.ELEMENTWISE, "random_" + suffix(out.dtype()), packed.numel());
  }

  @Override
  public void bernoulli(Strided p, long seed, long counter, Strided out) {
    requireFloating("bernoulli", p);
    if (out.dtype() != p.dtype()) {
      Strided draws = empty(p.dtype(), out.sizes());
      bernoulli(p, seed, counter, draws);
      copy(draws, out);
      return;
    }
    Packed packed = pack(out.sizes(), p, out);
    device.errors().pack(packed.args().i64(seed).i64(counter));
    launch(Module.ELEMENTWISE, "bernoulli_" + suffix(p.dtype()), packed.numel());
  }

  // ---------------------------------------------------------------- optimizers

  @Override
  public void sgdStep(Strided param, Strided grad, Strided buffer, SgdStep step) {
    requireFloating("sgdStep", param);
    boolean momentum = buffer != null;
    Packed p =
        momentum
            ? pack(param.sizes(), param, grad, buffer)
            : pack(param.sizes(), param, grad, param);
    p.args()
        .f64(step.lr())
        .f64(step.weightDecay())
        .f64(step.momentum())
        .f64(1 - step.dampening())
        .i32(momentum ? 1 : 0)
        .i32(step.nesterov() ? 1 : 0)
        .i32(step.firstStep() ? 1 : 0);
    launch(Module.OPTIM, "sgd_" + suffix(param.dtype()), p.numel());
  }

  @Override
  public void adamStep(
      Strided param,
      Strided grad,
      Strided expAvg,
      Strided expAvgSq,
      Strided maxExpAvgSq,
      AdamStep h) {
    requireFloating("adamStep", param);
    Strided max = maxExpAvgSq == null ? expAvgSq : maxExpAvgSq;
    Packed p = pack(param.sizes(), param, grad, expAvg, expAvgSq, max);
    double t = (double) h.step();
    p.args()
        .f64(h.decoupled() ? 1 - h.lr() * h.weightDecay() : 1)
        .f64(h.decoupled() ? 0 : h.weightDecay())
        .f64(h.beta1())
        .f64(1 - h.beta1())
        .f64(h.beta2())
        .f64(1 - h.beta2())
        .f64(h.eps())
        .f64(h.lr() / (1 - Math.pow(h.beta1(), t)))
        .f64(Math.sqrt(1 - Math.pow(h.beta2(), t)))
        .i32(h.amsgrad() ? 1 : 0)
        .i32(h.flushesSecondMoment(param.dtype() == ScalarType.FLOAT32) ? 1 : 0);
    launch(Module.OPTIM, "adam_" + suffix(param.dtype()), p.numel());
  }

  // ---------------------------------------------------------------- reductions

  @Override
  public void reduce(ReduceOp op, Strided in, int[] dims, Strided out) {
    CudaReductions.reduce(this, op, in, dims, out, null);
  }

  @Override
  public void reduceWithIndices(boolean max, Strided in, int dim, Strided values, Strided indices) {
    CudaReductions.reduce(
        this, max ? ReduceOp.ARGMAX : ReduceOp.ARGMIN, in, new int[] {dim}, indices, values);
  }

  @Override
  public void softmax(Strided in, int dim, boolean log, Strided out) {
    CudaReductions.softmax(this, in, dim, log, out);
  }

  @Override
  public void matmul(Strided a, Strided b, Strided out) {
    gemm.matmul(this, a, b, out);
  }

  // ---------------------------------------------------------------- indexing

  @Override
  public void gather(Strided in, int dim, Strided index, Strided out) {
    requireType("gather", index, ScalarType.INT64);
    int[] inStrides = Arrays.copyOf(in.strides(), index.rank());
    inStrides[dim] = 0;
    KernelArgs args = packIndexed(index.sizes(), in, inStrides, index, out);
    device.errors().pack(args).i32(dim).i32(in.stride(dim)).i32(in.size(dim));
    launch(Module.INDEX, "gather_" + suffix(in.dtype()), index.numel());
  }

  @Override
  public void scatterAdd(Strided target, int dim, Strided index, Strided src) {
    requireType("scatterAdd", index, ScalarType.INT64);
    requireNotBool("scatterAdd", target);
    int[] tStrides = Arrays.copyOf(target.strides(), index.rank());
    tStrides[dim] = 0;
    KernelArgs args = packIndexed(index.sizes(), target, tStrides, index, src);
    device.errors().pack(args).i32(dim).i32(target.stride(dim)).i32(target.size(dim));
    launch(Module.INDEX, "scatter_add_" + suffix(target.dtype()), index.numel());
  }

  /** Dims of {@code sizes} (not coalesced) and the three views, the first with its own strides. */
  private static KernelArgs packIndexed(
      int[] sizes, Strided first, int[] firstStrides, Strided second, Strided third) {
    return Launcher.args()
        .dims(sizes)
        .view(first, firstStrides)
        .view(second, second.strides())
        .view(third, third.strides());
  }

  @Override
  public void indexSelect(Strided in, int dim, Strided index, Strided out) {
    requireType("indexSelect", index, ScalarType.INT64);
    slices("index_select_", in, dim, index, out);
  }

  @Override
  public void indexAdd(Strided target, int dim, Strided index, Strided src) {
    requireType("indexAdd", index, ScalarType.INT64);
    requireNotBool("indexAdd", target);
    slices("index_add_", target, dim, index, src);
  }

  /**
   * Launches a kernel over slices along {@code dim}: the index space is {@code other}'s (not
   * coalesced, since coordinate {@code dim} picks the index); {@code sliced} is addressed with the
   * stride of {@code dim} replaced by the slice the index names.
   */
  private void slices(String kernel, Strided sliced, int dim, Strided index, Strided other) {
    int[] strides = sliced.strides().clone();
    strides[dim] = 0;
    KernelArgs args =
        Launcher.args()
            .dims(other.sizes())
            .view(sliced, strides)
            .view(other, other.strides())
            .view(index, index.strides());
    device.errors().pack(args).i32(dim).i32(sliced.stride(dim)).i32(sliced.size(dim));
    launch(Module.INDEX, kernel + suffix(sliced.dtype()), other.numel());
  }

  // ---------------------------------------------------------------- sliding windows

  @Override
  public void unfold2d(Strided in, Window2d window, Strided out) {
    WindowGrid grid = WindowChecks.unfold(in, window, out);
    KernelArgs args =
        Launcher.args().dims(out.sizes()).view(in, in.strides()).view(out, out.strides());
    geometry(args, window, grid);
    launch(Module.WINDOW, "unfold2d_" + suffix(in.dtype()), out.numel());
  }

  @Override
  public void fold2d(Strided cols, Window2d window, Strided out) {
    WindowGrid grid = WindowChecks.fold(cols, window, out);
    KernelArgs args =
        Launcher.args().dims(out.sizes()).view(cols, cols.strides()).view(out, out.strides());
    geometry(args, window, grid);
    launch(Module.WINDOW, "fold2d_" + suffix(out.dtype()), out.numel());
  }

  @Override
  public void maxPool2d(Strided in, Window2d window, Strided values, Strided indices) {
    WindowGrid grid = WindowChecks.maxPool(in, window, values, indices);
    KernelArgs args =
        Launcher.args()
            .dims(values.sizes())
            .view(in, in.strides())
            .view(values, values.strides())
            .view(indices, indices.strides());
    geometry(args, window, grid);
    launch(Module.WINDOW, "max_pool2d_" + suffix(in.dtype()), values.numel());
  }

  @Override
  public void maxPool2dBackward(Strided gradOut, Strided indices, Strided out) {
    WindowChecks.maxPoolBackward(gradOut, indices, out);
    fill(out, 0);
    KernelArgs args =
        Launcher.args()
            .dims(gradOut.sizes())
            .view(gradOut, gradOut.strides())
            .view(indices, indices.strides())
            .view(out, out.strides());
    device.errors().pack(args).i32(out.size(2)).i32(out.size(3));
    launch(Module.WINDOW, "max_pool2d_backward_" + suffix(out.dtype()), gradOut.numel());
  }

  /** {@code WindowGeometry}: plane, kernel, stride, padding and output sizes. */
  private static void geometry(KernelArgs args, Window2d w, WindowGrid g) {
    args.i32(g.height())
        .i32(g.width())
        .i32(w.kernelH())
        .i32(w.kernelW())
        .i32(w.strideH())
        .i32(w.strideW())
        .i32(w.padH())
        .i32(w.padW())
        .i32(g.outHeight())
        .i32(g.outWidth());
  }

  // ---------------------------------------------------------------- synchronisation and copies

  @Override
  public void synchronize() {
    device.record().hostWait();
  }

  @Override
  public void copyFromHost(Strided src, Strided dst, boolean nonBlocking) {
    copies.fromHost(src, dst, nonBlocking);
  }

  @Override
  public void copyToHost(Strided src, Strided dst, boolean nonBlocking) {
    copies.toHost(src, dst, nonBlocking);
  }

  @Override
  public void copyFromPeer(Strided src, Strided dst) {
    copies.fromPeer(src, dst);
  }

  // ---------------------------------------------------------------- checks

  private static void requireType(String op, Strided s, ScalarType type) {
    if (s.dtype() != type) {
      throw new IllegalArgumentException(
          op + ": expected a " + type + " operand, got " + s.dtype());
    }
  }

  private static void requireFloating(String op, Strided s) {
    if (!s.dtype().isFloatingPoint()) {
      throw new IllegalArgumentException(
          op + ": expected a float32 or float64 operand, got " + s.dtype());
    }
  }

  private static void requireNotBool(String op, Strided s) {
    if (s.dtype() == ScalarType.BOOL) {
      throw new IllegalArgumentException(op + " is not defined on bool tensors on CUDA devices");
    }
  }
}
