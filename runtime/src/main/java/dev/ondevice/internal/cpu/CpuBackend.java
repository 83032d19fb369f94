package dev.ondevice.internal.cpu;

import dev.ondevice.internal.backend.AdamStep;
import dev.ondevice.internal.backend.BinaryOp;
import dev.ondevice.internal.backend.Conv2dKernels;
import dev.ondevice.internal.backend.DeviceId;
import dev.ondevice.internal.backend.Event;
import dev.ondevice.internal.backend.HostAllocator;
import dev.ondevice.internal.backend.HostBackend;
import dev.ondevice.internal.backend.HostStorage;
import dev.ondevice.internal.backend.RandomKind;
import dev.ondevice.internal.backend.ReduceOp;
import dev.ondevice.internal.backend.ScalarType;
import dev.ondevice.internal.backend.SgdStep;
import dev.ondevice.internal.backend.Storage;
import dev.ondevice.internal.backend.Stream;
import dev.ondevice.internal.backend.Strided;
import dev.ondevice.internal.backend.TransferCounters;
import dev.ondevice.internal.backend.UnaryOp;
import dev.ondevice.internal.backend.Window2d;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A backend on host memory that runs the CPU kernels: the CPU itself (kernels run on the calling
 * thread, after waiting for any pending copy into their operands) and each emulated CUDA device
 * (kernels are queued on the device's own stream and run asynchronously, in order).
 */
public final class CpuBackend implements HostBackend {
  private final DeviceId device;
  private final Stream stream;
  private final AtomicLong liveBytes = new AtomicLong();
  private final AtomicLong peakBytes = new AtomicLong();

  private CpuBackend(DeviceId device, Stream stream) {
    this.device = device;
    this.stream = stream;
  }

  /** The CPU. */
  static CpuBackend cpu() {
    return new CpuBackend(DeviceId.CPU, null);
  }

  /** An emulated CUDA device with its own stream thread. */
  static CpuBackend emulatedCuda(int index) {
    DeviceId d = DeviceId.cuda(index);
    return new CpuBackend(d, new Stream(d, "ondevice-" + d + "-emulated-stream"));
  }

  @Override
  public DeviceId device() {
    return device;
  }

  @Override
  public String describe() {
    return stream == null ? device.toString() : device + " (emulated)";
  }

  /**
   * Stops the stream of an emulated device after its queued work; later use of the device fails.
   */
  @Override
  public void close() {
    if (stream != null) {
      stream.close();
    }
  }

  /**
   * Bytes of this emulated device's storages that are still reachable, by size class (the CPU's are
   * not counted: its allocations are the hot path).
   */
  @Override
  public AtomicLong liveBytes() {
    return liveBytes;
  }

  /** The most bytes of this emulated device's storages that were reachable at once. */
  @Override
  public AtomicLong peakBytes() {
    return peakBytes;
  }

  /** Whether work runs asynchronously on a stream (an emulated device). */
  @Override
  public boolean isAsync() {
    return stream != null;
  }

  @Override
  public Storage allocate(long bytes) {
    return HostAllocator.allocate(this, bytes, false);
  }

  @Override
  public HostStorage allocatePinned(long bytes) {
    return HostAllocator.allocate(this, bytes, true);
  }

  /** Runs a kernel: now on the CPU, or queued on the stream of an emulated device. */
  void run(Runnable kernel, Strided... operands) {
    if (stream == null) {
      for (Strided s : operands) {
        s.host().awaitReady();
      }
      kernel.run();
    } else {
      stream.submit(kernel);
    }
  }

  /** Queues work on this device's stream, or runs it now on the CPU. */
  @Override
  public void enqueue(Runnable work) {
    if (stream == null) {
      work.run();
    } else {
      stream.submit(work);
    }
  }

  /** An event after all work queued so far. */
  @Override
  public Event record() {
    return stream == null ? Event.completed(device) : stream.record();
  }

  @Override
  public void fill(Strided out, double value) {
    run(() -> CopyKernels.fill(out, value), out);
  }

  @Override
  public void copy(Strided from, Strided to) {
    run(() -> CopyKernels.copy(from, to), from, to);
  }

  @Override
  public void unary(UnaryOp op, Strided in, Strided out) {
    run(() -> UnaryKernels.apply(op, in, out), in, out);
  }

  @Override
  public void binary(BinaryOp op, Strided a, Strided b, Strided out) {
    run(() -> BinaryKernels.apply(op, a, b, out), a, b, out);
  }

  @Override
  public void binaryScalar(BinaryOp op, Strided a, double s, boolean scalarFirst, Strided out) {
    Storage cell = allocate(8);
    Strided scalar = new Strided(cell, a.dtype(), 0, a.sizes(), new int[a.rank()]);
    run(
        () -> {
          CopyKernels.fill(scalar.withLayout(0, new int[0], new int[0]), s);
          if (scalarFirst) {
            BinaryKernels.apply(op, scalar, a, out);
          } else {
            BinaryKernels.apply(op, a, scalar, out);
          }
        },
        a,
        out);
    cell.free(
        "after the op it held the scalar operand of (freed in the order of the device's work)");
  }

  @Override
  public void scaledAdd(Strided target, Strided other, double alpha) {
    run(() -> FusedKernels.scaledAdd(target, other, alpha), target, other);
  }

  @Override
  public void reluBackward(Strided grad, Strided output, Strided out) {
    run(() -> FusedKernels.reluBackward(grad, output, out), grad, output, out);
  }

  @Override
  public void sgdStep(Strided param, Strided grad, Strided buffer, SgdStep step) {
    Strided[] operands =
        buffer == null ? new Strided[] {param, grad} : new Strided[] {param, grad, buffer};
    run(() -> OptimizerKernels.sgd(param, grad, buffer, step), operands);
  }

  @Override
  public void adamStep(
      Strided param,
      Strided grad,
      Strided expAvg,
      Strided expAvgSq,
      Strided maxExpAvgSq,
      AdamStep step) {
    Strided[] operands =
        maxExpAvgSq == null
            ? new Strided[] {param, grad, expAvg, expAvgSq}
            : new Strided[] {param, grad, expAvg, expAvgSq, maxExpAvgSq};
    run(() -> OptimizerKernels.adam(param, grad, expAvg, expAvgSq, maxExpAvgSq, step), operands);
  }

  @Override
  public void where(Strided cond, Strided a, Strided b, Strided out) {
    run(() -> BinaryKernels.where(cond, a, b, out), cond, a, b, out);
  }

  @Override
  public void reduce(ReduceOp op, Strided in, int[] dims, Strided out) {
    run(() -> ReduceKernels.reduce(op, in, dims, out), in, out);
  }

  @Override
  public void reduceWithIndices(boolean max, Strided in, int dim, Strided values, Strided indices) {
    run(() -> ReduceKernels.reduceWithIndices(max, in, dim, values, indices), in, values, indices);
  }

  @Override
  public void matmul(Strided a, Strided b, Strided out) {
    run(() -> Gemm.matmul(a, b, out), a, b, out);
  }

  @Override
  public void linear(Strided a, Strided b, Strided bias, boolean relu, Strided out) {
    Strided[] operands = bias == null ? new Strided[] {a, b, out} : new Strided[] {a, b, bias, out};
    run(() -> Gemm.linear(a, b, bias, relu, out), operands);
  }

  @Override
  public void softmax(Strided in, int dim, boolean log, Strided out) {
    run(() -> SoftmaxKernels.softmax(in, dim, log, out), in, out);
  }

  @Override
  public void crossEntropy(Strided in, int dim, Strided target, Strided logProbs, Strided losses) {
    run(
        () -> CrossEntropyKernels.forward(in, dim, target, logProbs, losses),
        in,
        target,
        logProbs,
        losses);
  }

  @Override
  public void crossEntropyBackward(
      Strided logProbs, int dim, Strided target, Strided grad, Strided out) {
    run(
        () -> CrossEntropyKernels.backward(logProbs, dim, target, grad, out),
        logProbs,
        target,
        grad,
        out);
  }

  @Override
  public void gather(Strided in, int dim, Strided index, Strided out) {
    run(() -> IndexKernels.gather(in, dim, index, out), in, index, out);
  }

  @Override
  public void scatterAdd(Strided target, int dim, Strided index, Strided src) {
    run(() -> IndexKernels.scatterAdd(target, dim, index, src), target, index, src);
  }

  @Override
  public void indexSelect(Strided in, int dim, Strided index, Strided out) {
    run(() -> IndexKernels.indexSelect(in, dim, index, out), in, index, out);
  }

  @Override
  public void indexAdd(Strided target, int dim, Strided index, Strided src) {
    run(() -> IndexKernels.indexAdd(target, dim, index, src), target, index, src);
  }

  @Override
  public void unfold2d(Strided in, Window2d window, Strided out) {
    run(() -> UnfoldKernels.unfold2d(in, window, out), in, out);
  }

  @Override
  public void fold2d(Strided cols, Window2d window, Strided out) {
    run(() -> UnfoldKernels.fold2d(cols, window, out), cols, out);
  }

  /** oneDNN's convolutions for float32 where it loads ({@link Dnnl}); the Java path otherwise. */
  @Override
  public Optional<Conv2dKernels> conv2dKernels(ScalarType type) {
    return type == ScalarType.FLOAT32
        ? Dnnl.get().map(dnnl -> new DnnlConv2d(this, dnnl))
        : Optional.empty();
  }

  @Override
  public void maxPool2d(Strided in, Window2d window, Strided values, Strided indices) {
    run(() -> PoolKernels.maxPool2d(in, window, values, indices), in, values, indices);
  }

  @Override
  public void maxPool2dBackward(Strided gradOut, Strided indices, Strided out) {
    run(() -> PoolKernels.maxPool2dBackward(gradOut, indices, out), gradOut, indices, out);
  }

  @Override
  public void random(RandomKind kind, double a, double b, long seed, long counter, Strided out) {
    run(() -> RandomKernels.random(kind, a, b, seed, counter, out), out);
  }

  @Override
  public void bernoulli(Strided p, long seed, long counter, Strided out) {
    run(() -> RandomKernels.bernoulli(p, seed, counter, out), p, out);
  }

  @Override
  public void arange(double start, double step, Strided out) {
    run(() -> RandomKernels.arange(start, step, out), out);
  }

  @Override
  public void copyNow(Strided from, Strided to) {
    CopyKernels.copy(from, to);
  }

  @Override
  public int threads() {
    return Parallel.THREADS;
  }

  @Override
  public String matmulLibrary() {
    return Gemm.nativeStatus();
  }

  @Override
  public void synchronize() {
    if (stream != null) {
      stream.synchronize();
    } else {
      TransferCounters.of(device).recordSync();
    }
  }
}
