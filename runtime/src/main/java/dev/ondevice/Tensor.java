package dev.ondevice;

import dev.ondevice.annotations.Factory;
import dev.ondevice.annotations.HostSync;
import dev.ondevice.annotations.InPlace;
import dev.ondevice.annotations.Move;
import dev.ondevice.annotations.NonBlocking;
import dev.ondevice.annotations.ReadinessCheck;
import dev.ondevice.annotations.ReturnsDevice;
import dev.ondevice.annotations.SameDevice;
import dev.ondevice.annotations.ZeroDim;
import dev.ondevice.internal.backend.BinaryOp;
import dev.ondevice.internal.backend.ReduceOp;
import dev.ondevice.internal.backend.Strided;
import dev.ondevice.internal.backend.UnaryOp;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * An n-dimensional array on one device, with PyTorch's device rules and autograd.
 *
 * <ul>
 *   <li><b>Created on a device.</b> Every factory takes a device; without one it is the CPU, as in
 *       PyTorch. {@code *Like} factories use the device of their argument. Prefer {@code
 *       Tensor.randn(n, n, device)} to {@code Tensor.randn(n, n).to(device)}, which creates on the
 *       CPU and copies.
 *   <li><b>Moving returns a new tensor.</b> {@link #to(Device)} never changes this tensor: write
 *       {@code x = x.to(device)}. It returns this same instance when the tensor is already there.
 *   <li><b>One device per op.</b> Tensor operands of an op must share a device, else a {@link
 *       DeviceMismatchException}; a 0-dim CPU tensor may stand as a scalar beside any device.
 *   <li><b>Host reads synchronise.</b> {@link #item()}, the {@code to*Array} methods and printing
 *       wait for the device; they are counted in {@link DeviceStats}.
 * </ul>
 *
 * <p>Ops are out of place unless their name ends in {@code i} ({@link #addi}, {@link #muli}, ...)
 * or says so ({@link #fill}, {@link #copyFrom}).
 */
@SameDevice
public class Tensor {
  Strided data;
  private boolean requiresGrad;
  private Tensor grad;

  /**
   * Whether {@link #grad} is memory that a backward pass made, which {@link Parameter#clearGrad}
   * may free.
   */
  private boolean gradMadeByBackward;

  private Node gradFn;

  Tensor(Strided data) {
    this.data = data;
  }

  // ---------------------------------------------------------------- factories

  /** Uninitialised memory of the given shape, dtype and device. */
  @Factory
  public static Tensor empty(Shape shape, DType dtype, Device device) {
    return Creation.empty(shape, dtype, device);
  }

  /** Uninitialised memory of the given shape and dtype, on the CPU. */
  @Factory
  public static Tensor empty(Shape shape, DType dtype) {
    return Creation.empty(shape, dtype, Device.cpu());
  }

  /** Zeros, float32, on the CPU. */
  @Factory
  public static Tensor zeros(@ZeroDim long... shape) {
    return Creation.full(Shape.of(shape), 0, DType.FLOAT32, Device.cpu());
  }

  /** Zeros, float32, on the CPU. */
  @Factory
  public static Tensor zeros(Shape shape) {
    return Creation.full(shape, 0, DType.FLOAT32, Device.cpu());
  }

  /** Zeros, float32, on {@code device}. */
  @Factory
  public static Tensor zeros(Shape shape, Device device) {
    return Creation.full(shape, 0, DType.FLOAT32, device);
  }

  /** Zeros of the given dtype on the CPU. */
  @Factory
  public static Tensor zeros(Shape shape, DType dtype) {
    return Creation.full(shape, 0, dtype, Device.cpu());
  }

  /** Zeros of the given dtype on {@code device}. */
  @Factory
  public static Tensor zeros(Shape shape, DType dtype, Device device) {
    return Creation.full(shape, 0, dtype, device);
  }

  /** A float32 vector of zeros on {@code device}. */
  @Factory
  public static Tensor zeros(long d0, Device device) {
    return zeros(Shape.of(d0), device);
  }

  /** A float32 matrix of zeros on {@code device}. */
  @Factory
  public static Tensor zeros(long d0, long d1, Device device) {
    return zeros(Shape.of(d0, d1), device);
  }

  /** A float32 3-d tensor of zeros on {@code device}. */
  @Factory
  public static Tensor zeros(long d0, long d1, long d2, Device device) {
    return zeros(Shape.of(d0, d1, d2), device);
  }

  /** Ones, float32, on the CPU. */
  @Factory
  public static Tensor ones(@ZeroDim long... shape) {
    return Creation.full(Shape.of(shape), 1, DType.FLOAT32, Device.cpu());
  }

  /** Ones, float32, on the CPU. */
  @Factory
  public static Tensor ones(Shape shape) {
    return Creation.full(shape, 1, DType.FLOAT32, Device.cpu());
  }

  /** Ones, float32, on {@code device}. */
  @Factory
  public static Tensor ones(Shape shape, Device device) {
    return Creation.full(shape, 1, DType.FLOAT32, device);
  }

  /** Ones of the given dtype on the CPU. */
  @Factory
  public static Tensor ones(Shape shape, DType dtype) {
    return Creation.full(shape, 1, dtype, Device.cpu());
  }

  /** Ones of the given dtype on {@code device}. */
  @Factory
  public static Tensor ones(Shape shape, DType dtype, Device device) {
    return Creation.full(shape, 1, dtype, device);
  }

  /** A float32 vector of ones on {@code device}. */
  @Factory
  public static Tensor ones(long d0, Device device) {
    return ones(Shape.of(d0), device);
  }

  /** A float32 matrix of ones on {@code device}. */
  @Factory
  public static Tensor ones(long d0, long d1, Device device) {
    return ones(Shape.of(d0, d1), device);
  }

  /** {@code value} everywhere, float32, on the CPU. */
  @Factory
  public static Tensor full(Shape shape, double value) {
    return Creation.full(shape, value, DType.FLOAT32, Device.cpu());
  }

  /** {@code value} everywhere, float32, on {@code device}. */
  @Factory
  public static Tensor full(Shape shape, double value, Device device) {
    return Creation.full(shape, value, DType.FLOAT32, device);
  }

  /** {@code value} everywhere, of the given dtype, on the CPU. */
  @Factory
  public static Tensor full(Shape shape, double value, DType dtype) {
    return Creation.full(shape, value, dtype, Device.cpu());
  }

  /** {@code value} everywhere, of the given dtype, on {@code device}. */
  @Factory
  public static Tensor full(Shape shape, double value, DType dtype, Device device) {
    return Creation.full(shape, value, dtype, device);
  }

  /** A 0-dim float32 tensor on the CPU: the scalar that may meet tensors on any device. */
  @Factory(zeroDim = true)
  public static Tensor scalar(double value) {
    return Creation.full(Shape.scalar(), value, DType.FLOAT32, Device.cpu());
  }

  /** A 0-dim int64 tensor on the CPU. */
  @Factory(zeroDim = true)
  public static Tensor scalar(long value) {
    return Creation.fromLongs(new long[] {value}, Shape.scalar(), Device.cpu());
  }

  /** A 0-dim float32 tensor on {@code device}. */
  @Factory(zeroDim = true)
  public static Tensor scalar(double value, Device device) {
    return Creation.full(Shape.scalar(), value, DType.FLOAT32, device);
  }

  /** The identity matrix, float32, on the CPU. */
  @Factory
  public static Tensor eye(long n) {
    return Creation.eye(n, Device.cpu());
  }

  /** The identity matrix, float32, on {@code device}. */
  @Factory
  public static Tensor eye(long n, Device device) {
    return Creation.eye(n, device);
  }

  /** {@code 0, 1, ..., end - 1} as int64 on the CPU. */
  @Factory
  public static Tensor arange(long end) {
    return Creation.arange(0, (double) end, 1, DType.INT64, Device.cpu());
  }

  /** {@code 0, 1, ..., end - 1} as int64 on {@code device}. */
  @Factory
  public static Tensor arange(long end, Device device) {
    return Creation.arange(0, (double) end, 1, DType.INT64, device);
  }

  /** {@code start, start + 1, ..., end - 1} as int64 on the CPU. */
  @Factory
  public static Tensor arange(long start, long end) {
    return Creation.arange((double) start, (double) end, 1, DType.INT64, Device.cpu());
  }

  /** {@code start, start + 1, ..., end - 1} as int64 on {@code device}. */
  @Factory
  public static Tensor arange(long start, long end, Device device) {
    return Creation.arange((double) start, (double) end, 1, DType.INT64, device);
  }

  /** {@code start, start + step, ...} below {@code end}, of the given dtype, on the CPU. */
  @Factory
  public static Tensor arange(double start, double end, double step, DType dtype) {
    return Creation.arange(start, end, step, dtype, Device.cpu());
  }

  /** {@code start, start + step, ...} below {@code end}, of the given dtype, on {@code device}. */
  @Factory
  public static Tensor arange(double start, double end, double step, DType dtype, Device device) {
    return Creation.arange(start, end, step, dtype, device);
  }

  /** Uniform on [0, 1), float32, on the CPU, from the default generator. */
  @Factory
  public static Tensor rand(@ZeroDim long... shape) {
    return Creation.rand(
        Shape.of(shape), DType.FLOAT32, Device.cpu(), Generator.defaultGenerator());
  }

  /** Uniform on [0, 1), float32, on the CPU. */
  @Factory
  public static Tensor rand(Shape shape) {
    return Creation.rand(shape, DType.FLOAT32, Device.cpu(), Generator.defaultGenerator());
  }

  /** Uniform on [0, 1), float32, on {@code device}. */
  @Factory
  public static Tensor rand(Shape shape, Device device) {
    return Creation.rand(shape, DType.FLOAT32, device, Generator.defaultGenerator());
  }

  /** Uniform on [0, 1), of the given floating dtype, on the CPU, from the default generator. */
  @Factory
  public static Tensor rand(Shape shape, DType dtype) {
    return Creation.rand(shape, dtype, Device.cpu(), Generator.defaultGenerator());
  }

  /** Uniform on [0, 1), on {@code device}, from {@code generator}. */
  @Factory
  public static Tensor rand(Shape shape, DType dtype, Device device, Generator generator) {
    return Creation.rand(shape, dtype, device, generator);
  }

  /** A float32 vector uniform on [0, 1), on {@code device}. */
  @Factory
  public static Tensor rand(long d0, Device device) {
    return rand(Shape.of(d0), device);
  }

  /** A float32 matrix uniform on [0, 1), on {@code device}. */
  @Factory
  public static Tensor rand(long d0, long d1, Device device) {
    return rand(Shape.of(d0, d1), device);
  }

  /** Standard normal, float32, on the CPU, from the default generator. */
  @Factory
  public static Tensor randn(@ZeroDim long... shape) {
    return Creation.randn(
        Shape.of(shape), DType.FLOAT32, Device.cpu(), Generator.defaultGenerator());
  }

  /** Standard normal, float32, on the CPU. */
  @Factory
  public static Tensor randn(Shape shape) {
    return Creation.randn(shape, DType.FLOAT32, Device.cpu(), Generator.defaultGenerator());
  }

  /** Standard normal, float32, on {@code device}. */
  @Factory
  public static Tensor randn(Shape shape, Device device) {
    return Creation.randn(shape, DType.FLOAT32, device, Generator.defaultGenerator());
  }

  /** Standard normal, of the given floating dtype, on the CPU, from the default generator. */
  @Factory
  public static Tensor randn(Shape shape, DType dtype) {
    return Creation.randn(shape, dtype, Device.cpu(), Generator.defaultGenerator());
  }

  /** Standard normal, on {@code device}, from {@code generator}. */
  @Factory
  public static Tensor randn(Shape shape, DType dtype, Device device, Generator generator) {
    return Creation.randn(shape, dtype, device, generator);
  }

  /** A float32 standard-normal vector on {@code device}. */
  @Factory
  public static Tensor randn(long d0, Device device) {
    return randn(Shape.of(d0), device);
  }

  /**
   * A float32 standard-normal matrix on {@code device}: {@code Tensor.randn(1000, 1000, device)}.
   */
  @Factory
  public static Tensor randn(long d0, long d1, Device device) {
    return randn(Shape.of(d0, d1), device);
  }

  /** A float32 standard-normal 3-d tensor on {@code device}. */
  @Factory
  public static Tensor randn(long d0, long d1, long d2, Device device) {
    return randn(Shape.of(d0, d1, d2), device);
  }

  /** A float32 standard-normal 4-d tensor on {@code device}. */
  @Factory
  public static Tensor randn(long d0, long d1, long d2, long d3, Device device) {
    return randn(Shape.of(d0, d1, d2, d3), device);
  }

  /** int64 uniform on [low, high), on the CPU. */
  @Factory
  public static Tensor randint(long low, long high, Shape shape) {
    return Creation.randint(low, high, shape, Device.cpu(), Generator.defaultGenerator());
  }

  /** int64 uniform on [low, high), on {@code device}. */
  @Factory
  public static Tensor randint(long low, long high, Shape shape, Device device) {
    return Creation.randint(low, high, shape, device, Generator.defaultGenerator());
  }

  /** int64 uniform on [low, high), on {@code device}, from {@code generator}. */
  @Factory
  public static Tensor randint(
      long low, long high, Shape shape, Device device, Generator generator) {
    return Creation.randint(low, high, shape, device, generator);
  }

  /** 1 with probability {@code p[i]}, else 0; dtype and device of {@code p}. */
  @Factory
  public static Tensor bernoulli(Tensor p) {
    return Creation.bernoulli(p, Generator.defaultGenerator());
  }

  /** 1 with probability {@code p[i]}, else 0, from {@code generator}. */
  @Factory
  public static Tensor bernoulli(Tensor p, Generator generator) {
    return Creation.bernoulli(p, generator);
  }

  /** 1 with probability {@code p}, else 0: float32 of the given shape on {@code device}. */
  @Factory
  public static Tensor bernoulli(double p, Shape shape, Device device) {
    return Creation.bernoulli(
        Creation.full(shape, p, DType.FLOAT32, device), Generator.defaultGenerator());
  }

  /** Writes the bytes of a new CPU tensor: see {@link #fromHostBytes}. */
  @FunctionalInterface
  public interface HostBytesWriter {
    /**
     * Fills {@code bytes} to its limit: the tensor's elements, row-major, in the platform's byte
     * order ({@link java.nio.ByteOrder#nativeOrder()}); bools as 0 or 1.
     */
    void write(ByteBuffer bytes) throws IOException;
  }

  /**
   * A contiguous CPU tensor of {@code shape} and {@code dtype} whose elements {@code writer} writes
   * straight into its memory: for readers of files, which can read into it without a copy ({@code
   * FileChannel.read(bytes, position)}).
   *
   * @throws IllegalStateException if {@code writer} does not fill every byte
   * @throws IOException what {@code writer} throws
   */
  @Factory(fromHostData = true)
  public static Tensor fromHostBytes(Shape shape, DType dtype, HostBytesWriter writer)
      throws IOException {
    return Creation.fromHostBytes(shape, dtype, writer);
  }

  /** A float32 vector on the CPU holding a copy of {@code data}. */
  @Factory(fromHostData = true)
  public static Tensor of(float... data) {
    return Creation.fromFloats(data, Shape.of(Creation.nonNullData(data).length), Device.cpu());
  }

  /** A float32 tensor of the given shape on the CPU holding a copy of {@code data} (row-major). */
  @Factory(fromHostData = true)
  public static Tensor of(float[] data, @ZeroDim long... shape) {
    return Creation.fromFloats(data, Shape.of(shape), Device.cpu());
  }

  /** A float32 tensor on {@code device} holding a copy of {@code data}: one host-to-device copy. */
  @Factory(fromHostData = true)
  public static Tensor of(float[] data, Shape shape, Device device) {
    return Creation.fromFloats(data, shape, device);
  }

  /** A float32 matrix on the CPU from rows of equal length. */
  @Factory(fromHostData = true)
  public static Tensor of(float[][] rows) {
    return Creation.fromFloatRows(rows);
  }

  /** A float64 vector on the CPU. */
  @Factory(fromHostData = true)
  public static Tensor of(double... data) {
    return Creation.fromDoubles(data, Shape.of(Creation.nonNullData(data).length), Device.cpu());
  }

  /** A float64 tensor of the given shape on the CPU. */
  @Factory(fromHostData = true)
  public static Tensor of(double[] data, @ZeroDim long... shape) {
    return Creation.fromDoubles(data, Shape.of(shape), Device.cpu());
  }

  /** A float64 tensor on {@code device}. */
  @Factory(fromHostData = true)
  public static Tensor of(double[] data, Shape shape, Device device) {
    return Creation.fromDoubles(data, shape, device);
  }

  /** A float64 matrix on the CPU from rows of equal length. */
  @Factory(fromHostData = true)
  public static Tensor of(double[][] rows) {
    return Creation.fromDoubleRows(rows);
  }

  /** An int64 vector on the CPU. */
  @Factory(fromHostData = true)
  public static Tensor of(long... data) {
    return Creation.fromLongs(data, Shape.of(Creation.nonNullData(data).length), Device.cpu());
  }

  /** An int64 tensor of the given shape on the CPU. */
  @Factory(fromHostData = true)
  public static Tensor of(long[] data, @ZeroDim long... shape) {
    return Creation.fromLongs(data, Shape.of(shape), Device.cpu());
  }

  /** An int64 tensor on {@code device}. */
  @Factory(fromHostData = true)
  public static Tensor of(long[] data, Shape shape, Device device) {
    return Creation.fromLongs(data, shape, device);
  }

  /** An int64 vector on the CPU from ints. */
  @Factory(fromHostData = true)
  public static Tensor of(int... data) {
    long[] l = new long[Creation.nonNullData(data).length];
    for (int i = 0; i < data.length; i++) {
      l[i] = data[i];
    }
    return of(l);
  }

  /** A bool vector on the CPU. */
  @Factory(fromHostData = true)
  public static Tensor of(boolean... data) {
    return Creation.fromBooleans(data, Shape.of(Creation.nonNullData(data).length), Device.cpu());
  }

  /** A bool tensor of the given shape on the CPU. */
  @Factory(fromHostData = true)
  public static Tensor of(boolean[] data, @ZeroDim long... shape) {
    return Creation.fromBooleans(data, Shape.of(shape), Device.cpu());
  }

  /** Uninitialised, with the shape, dtype and device of {@code t}. */
  @Factory
  public static Tensor emptyLike(Tensor t) {
    return Creation.empty(t.shape(), t.dtype(), t.device());
  }

  /** Zeros with the shape, dtype and device of {@code t}. */
  @Factory
  public static Tensor zerosLike(Tensor t) {
    return Creation.full(t.shape(), 0, t.dtype(), t.device());
  }

  /** Ones with the shape, dtype and device of {@code t}. */
  @Factory
  public static Tensor onesLike(Tensor t) {
    return Creation.full(t.shape(), 1, t.dtype(), t.device());
  }

  /** {@code value} with the shape, dtype and device of {@code t}. */
  @Factory
  public static Tensor fullLike(Tensor t, double value) {
    return Creation.full(t.shape(), value, t.dtype(), t.device());
  }

  /** Uniform on [0, 1) with the shape and device of {@code t} (float32 unless t is float64). */
  @Factory
  public static Tensor randLike(Tensor t) {
    return Creation.rand(
        t.shape(), Creation.floatLike(t), t.device(), Generator.defaultGenerator());
  }

  /** Standard normal with the shape and device of {@code t} (float32 unless t is float64). */
  @Factory
  public static Tensor randnLike(Tensor t) {
    return Creation.randn(
        t.shape(), Creation.floatLike(t), t.device(), Generator.defaultGenerator());
  }

  // ---------------------------------------------------------------- properties

  /** The shape. */
  public Shape shape() {
    return Shape.of(data.sizes());
  }

  /** The number of dimensions. */
  public int dim() {
    return data.rank();
  }

  /** The shape, as PyTorch's {@code size()}; the same as {@link #shape()}. */
  public Shape size() {
    return shape();
  }

  /** The size of dimension {@code d} (negative counts from the end). */
  public long size(int d) {
    if (dim() == 0) {
      throw new IndexOutOfBoundsException("size: a 0-dim tensor has no dimension " + d);
    }
    return data.size(Checks.dim("size", d, dim()));
  }

  /** The number of elements. */
  public long numel() {
    return data.numel();
  }

  /** The element type. */
  public DType dtype() {
    return BackendTypes.dtype(data.dtype());
  }

  /** The device: always indexed for CUDA ({@code cuda:0}). */
  @ReturnsDevice(ReturnsDevice.Source.OF_RECEIVER)
  public Device device() {
    return BackendTypes.device(data.device());
  }

  /** The strides, in elements. */
  public long[] strides() {
    long[] s = new long[data.rank()];
    for (int i = 0; i < s.length; i++) {
      s[i] = data.stride(i);
    }
    return s;
  }

  /** Whether the elements are laid out row-major without gaps. */
  public boolean isContiguous() {
    return data.isContiguous();
  }

  /** Whether this tensor is in pinned (page-locked) host memory. */
  public boolean isPinned() {
    return Movement.isPinned(this);
  }

  /**
   * Whether this CPU tensor can be read without waiting: false while a non-blocking copy from a
   * device into it is still in flight, and for a tensor on a device (reading one waits for the
   * device). Lets a progress display show a value only once it has arrived, without a sync.
   */
  @ReadinessCheck
  public boolean isReady() {
    return Movement.isReady(this);
  }

  // ---------------------------------------------------------------- moving

  /**
   * This tensor on {@code device}: a new tensor, or this same instance when it is already there.
   * Never changes this tensor: write {@code x = x.to(device)}.
   */
  @Move
  public Tensor to(Device device) {
    return Movement.to(this, device, false);
  }

  /**
   * As {@link #to(Device)}; with {@code nonBlocking}, a copy from pinned memory to a device, or
   * from a device to the host, returns before it completes. Reading the host copy waits for it.
   */
  @Move
  public Tensor to(Device device, @NonBlocking boolean nonBlocking) {
    return Movement.to(this, device, nonBlocking);
  }

  /** This tensor converted to {@code dtype}, or this same instance when it already has it. */
  public Tensor to(DType dtype) {
    return Movement.toType(this, dtype);
  }

  /** This tensor on the CPU: a blocking copy from a device (a host synchronisation). */
  @Move(to = "cpu")
  @HostSync
  public Tensor cpu() {
    return Movement.to(this, Device.cpu(), false);
  }

  /** This tensor on the current CUDA device. */
  @Move(to = "cuda")
  public Tensor cuda() {
    return Movement.to(this, Device.cuda(), false);
  }

  /** This tensor on {@code cuda:index}. */
  @Move(to = "cuda")
  public Tensor cuda(int index) {
    return Movement.to(this, Device.cuda(index), false);
  }

  /** A copy of this CPU tensor in pinned memory, the source of asynchronous copies to a device. */
  @Move(to = "cpu", pins = true)
  public Tensor pinMemory() {
    return Movement.pin(this);
  }

  // ---------------------------------------------------------------- views and shape

  /** A view with another shape; one size may be -1. Fails if the strides do not allow a view. */
  public Tensor view(@ZeroDim long... shape) {
    return Views.view(this, shape);
  }

  /**
   * The same elements with another shape: a view where possible, else a copy. One size may be -1.
   */
  public Tensor reshape(@ZeroDim long... shape) {
    return Views.reshape(this, shape);
  }

  /** As {@link #reshape(long...)}. */
  public Tensor reshape(Shape shape) {
    return Views.reshape(this, shape.toArray());
  }

  /** All dimensions flattened into one. */
  public Tensor flatten() {
    return Views.flatten(this, 0, -1);
  }

  /**
   * Dimensions {@code start} to the last flattened into one: {@code x.flatten(1)} keeps the batch
   * dimension.
   */
  public Tensor flatten(int start) {
    return Views.flatten(this, start, -1);
  }

  /** Dimensions {@code start..end} (inclusive) flattened into one. */
  public Tensor flatten(int start, int end) {
    return Views.flatten(this, start, end);
  }

  /** Dimensions {@code d0} and {@code d1} swapped (a view). */
  public Tensor transpose(int d0, int d1) {
    return Views.transpose(this, d0, d1);
  }

  /** The transpose of a matrix (a view); vectors are returned as they are. */
  public Tensor t() {
    return Views.t(this);
  }

  /** The dimensions reordered (a view): dimension i of the result is dimension {@code order[i]}. */
  public Tensor permute(int... order) {
    return Views.permute(this, order);
  }

  /**
   * Elements {@code start} to {@code end - 1} of dimension {@code dim} (a view); negative bounds
   * count from the end.
   */
  public Tensor slice(int dim, long start, long end) {
    return Views.slice(this, dim, start, end, 1);
  }

  /** Every {@code step}-th element of {@code start..end - 1} along {@code dim} (a view). */
  public Tensor slice(int dim, long start, long end, long step) {
    return Views.slice(this, dim, start, end, step);
  }

  /** {@code length} elements from {@code start} along {@code dim} (a view). */
  public Tensor narrow(int dim, long start, long length) {
    return Views.narrow(this, dim, start, length);
  }

  /** The slice at {@code index} of dimension {@code dim}, which is removed (a view). */
  public Tensor select(int dim, long index) {
    return Views.select(this, dim, index);
  }

  /** The element or sub-tensor at the given leading indices (a view). */
  public Tensor get(long... indices) {
    Tensor t = this;
    for (long i : indices) {
      t = t.select(0, i);
    }
    return t;
  }

  /** Without its size-1 dimensions (a view). */
  public Tensor squeeze() {
    return Views.squeeze(this, null);
  }

  /** Without dimension {@code dim} if its size is 1 (a view). */
  public Tensor squeeze(int dim) {
    return Views.squeeze(this, dim);
  }

  /** With a size-1 dimension inserted at {@code dim} (a view). */
  public Tensor unsqueeze(int dim) {
    return Views.unsqueeze(this, dim);
  }

  /** Size-1 dimensions repeated to {@code shape} without copying (a view); -1 keeps a size. */
  public Tensor expand(long... shape) {
    return Views.expand(this, shape);
  }

  /** Expanded to the shape of {@code other}. */
  public Tensor expandAs(Tensor other) {
    return Views.expand(this, other.shape().toArray());
  }

  /** This tensor if contiguous, else a contiguous copy. */
  public Tensor contiguous() {
    return isContiguous() ? this : Views.copy(this, "contiguous");
  }

  /** A copy with its own memory, contiguous, on the same device; differentiable. */
  @Override
  public Tensor clone() {
    return Views.copy(this, "clone");
  }

  /** Tensors joined along their first dimension; all on one device. */
  public static Tensor cat(List<Tensor> tensors) {
    return cat(tensors, 0);
  }

  /** Tensors joined along an existing dimension; all on one device. */
  public static Tensor cat(List<Tensor> tensors, int dim) {
    return Views.cat(tensors, dim);
  }

  /** Tensors of equal shape joined along a new first dimension. */
  public static Tensor stack(List<Tensor> tensors) {
    return stack(tensors, 0);
  }

  /** Tensors of equal shape joined along a new dimension. */
  public static Tensor stack(List<Tensor> tensors, int dim) {
    return Views.stack(tensors, dim);
  }

  // ---------------------------------------------------------------- arithmetic

  /** {@code this + other}, broadcasting. */
  public Tensor add(Tensor other) {
    return Pointwise.binary(BinaryOp.ADD, this, other);
  }

  /** {@code this + alpha * other}. */
  public Tensor add(Tensor other, double alpha) {
    return Pointwise.binary(BinaryOp.ADD, this, alpha == 1 ? other : other.mul(alpha));
  }

  /** {@code this + s}. */
  public Tensor add(double s) {
    return Pointwise.scalar(BinaryOp.ADD, this, s, false, false);
  }

  /** {@code this + s}; integer tensors stay integer. */
  public Tensor add(long s) {
    return Pointwise.scalar(BinaryOp.ADD, this, (double) s, false, true);
  }

  /** {@code this - other}. */
  public Tensor sub(Tensor other) {
    return Pointwise.binary(BinaryOp.SUB, this, other);
  }

  /** {@code this - s}. */
  public Tensor sub(double s) {
    return Pointwise.scalar(BinaryOp.SUB, this, s, false, false);
  }

  /** {@code this - s}. */
  public Tensor sub(long s) {
    return Pointwise.scalar(BinaryOp.SUB, this, (double) s, false, true);
  }

  /** {@code s - this}. */
  public Tensor rsub(double s) {
    return Pointwise.scalar(BinaryOp.SUB, this, s, true, false);
  }

  /** {@code this * other}. */
  public Tensor mul(Tensor other) {
    return Pointwise.binary(BinaryOp.MUL, this, other);
  }

  /** {@code this * s}. */
  public Tensor mul(double s) {
    return Pointwise.scalar(BinaryOp.MUL, this, s, false, false);
  }

  /** {@code this * s}. */
  public Tensor mul(long s) {
    return Pointwise.scalar(BinaryOp.MUL, this, (double) s, false, true);
  }

  /** {@code this / other}: true division (integers give float32). */
  public Tensor div(Tensor other) {
    return Pointwise.binary(BinaryOp.DIV, this, other);
  }

  /** {@code this / s}. */
  public Tensor div(double s) {
    return Pointwise.scalar(BinaryOp.DIV, this, s, false, false);
  }

  /** {@code s / this}. */
  public Tensor rdiv(double s) {
    return Pointwise.scalar(BinaryOp.DIV, this, s, true, false);
  }

  /** {@code this ^ other}. */
  public Tensor pow(Tensor other) {
    return Pointwise.binary(BinaryOp.POW, this, other);
  }

  /** {@code this ^ s}. */
  public Tensor pow(double s) {
    return Pointwise.scalar(BinaryOp.POW, this, s, false, false);
  }

  /** The larger of each pair of elements. */
  public Tensor maximum(Tensor other) {
    return Pointwise.binary(BinaryOp.MAXIMUM, this, other);
  }

  /** The smaller of each pair of elements. */
  public Tensor minimum(Tensor other) {
    return Pointwise.binary(BinaryOp.MINIMUM, this, other);
  }

  /** Elements limited to {@code [min, max]}. */
  public Tensor clamp(double min, double max) {
    return Pointwise.clamp(this, min, max);
  }

  /** Elements limited below by {@code min}. */
  public Tensor clampMin(double min) {
    return Pointwise.clamp(this, min, Double.NaN);
  }

  /** Elements limited above by {@code max}. */
  public Tensor clampMax(double max) {
    return Pointwise.clamp(this, Double.NaN, max);
  }

  /** {@code -this}. */
  public Tensor neg() {
    return Pointwise.unary(UnaryOp.NEG, this);
  }

  /** {@code |this|}. */
  public Tensor abs() {
    return Pointwise.unary(UnaryOp.ABS, this);
  }

  /** -1, 0 or 1. */
  public Tensor sign() {
    return Pointwise.unary(UnaryOp.SIGN, this);
  }

  /** {@code this * this}. */
  public Tensor square() {
    return Pointwise.unary(UnaryOp.SQUARE, this);
  }

  /** {@code e ^ this}. */
  public Tensor exp() {
    return Pointwise.unary(UnaryOp.EXP, this);
  }

  /** The natural logarithm. */
  public Tensor log() {
    return Pointwise.unary(UnaryOp.LOG, this);
  }

  /** {@code log(1 + this)}, accurate near 0. */
  public Tensor log1p() {
    return Pointwise.unary(UnaryOp.LOG1P, this);
  }

  /** {@code exp(this) - 1}, accurate near 0. */
  public Tensor expm1() {
    return Pointwise.unary(UnaryOp.EXPM1, this);
  }

  /** The square root. */
  public Tensor sqrt() {
    return Pointwise.unary(UnaryOp.SQRT, this);
  }

  /** {@code 1 / sqrt(this)}. */
  public Tensor rsqrt() {
    return Pointwise.unary(UnaryOp.RSQRT, this);
  }

  /** {@code 1 / this}. */
  public Tensor reciprocal() {
    return Pointwise.unary(UnaryOp.RECIPROCAL, this);
  }

  /** The sine. */
  public Tensor sin() {
    return Pointwise.unary(UnaryOp.SIN, this);
  }

  /** The cosine. */
  public Tensor cos() {
    return Pointwise.unary(UnaryOp.COS, this);
  }

  /** The hyperbolic tangent. */
  public Tensor tanh() {
    return Pointwise.unary(UnaryOp.TANH, this);
  }

  /** {@code 1 / (1 + exp(-this))}. */
  public Tensor sigmoid() {
    return Pointwise.unary(UnaryOp.SIGMOID, this);
  }

  /** The Gauss error function {@code 2/sqrt(pi) * integral from 0 to this of exp(-t^2) dt}. */
  public Tensor erf() {
    return Pointwise.unary(UnaryOp.ERF, this);
  }

  /** {@code max(this, 0)}. */
  public Tensor relu() {
    return Pointwise.unary(UnaryOp.RELU, this);
  }

  /** Rounded down. */
  public Tensor floor() {
    return Pointwise.unary(UnaryOp.FLOOR, this);
  }

  /** Rounded up. */
  public Tensor ceil() {
    return Pointwise.unary(UnaryOp.CEIL, this);
  }

  /** Rounded to the nearest integer, halves to even. */
  public Tensor round() {
    return Pointwise.unary(UnaryOp.ROUND, this);
  }

  // ---------------------------------------------------------------- comparisons and logic

  /** {@code this == other} (bool). */
  public Tensor eq(Tensor other) {
    return Pointwise.binary(BinaryOp.EQ, this, other);
  }

  /** {@code this == s} (bool). */
  public Tensor eq(double s) {
    return Pointwise.scalar(BinaryOp.EQ, this, s, false, false);
  }

  /** {@code this != other} (bool). */
  public Tensor ne(Tensor other) {
    return Pointwise.binary(BinaryOp.NE, this, other);
  }

  /** {@code this != s} (bool). */
  public Tensor ne(double s) {
    return Pointwise.scalar(BinaryOp.NE, this, s, false, false);
  }

  /**
   * Where the elements are NaN (bool; all false for integer and bool tensors): PyTorch's {@code
   * isnan}.
   */
  public Tensor isnan() {
    return Pointwise.binary(BinaryOp.NE, this, this);
  }

  /** {@code this < other} (bool). */
  public Tensor lt(Tensor other) {
    return Pointwise.binary(BinaryOp.LT, this, other);
  }

  /** {@code this < s} (bool). */
  public Tensor lt(double s) {
    return Pointwise.scalar(BinaryOp.LT, this, s, false, false);
  }

  /** {@code this <= other} (bool). */
  public Tensor le(Tensor other) {
    return Pointwise.binary(BinaryOp.LE, this, other);
  }

  /** {@code this <= s} (bool). */
  public Tensor le(double s) {
    return Pointwise.scalar(BinaryOp.LE, this, s, false, false);
  }

  /** {@code this > other} (bool). */
  public Tensor gt(Tensor other) {
    return Pointwise.binary(BinaryOp.GT, this, other);
  }

  /** {@code this > s} (bool). */
  public Tensor gt(double s) {
    return Pointwise.scalar(BinaryOp.GT, this, s, false, false);
  }

  /** {@code this >= other} (bool). */
  public Tensor ge(Tensor other) {
    return Pointwise.binary(BinaryOp.GE, this, other);
  }

  /** {@code this >= s} (bool). */
  public Tensor ge(double s) {
    return Pointwise.scalar(BinaryOp.GE, this, s, false, false);
  }

  /** Logical and of truth values (non-zero is true). */
  public Tensor logicalAnd(Tensor other) {
    return Pointwise.binary(BinaryOp.LOGICAL_AND, this, other);
  }

  /** Logical or of truth values. */
  public Tensor logicalOr(Tensor other) {
    return Pointwise.binary(BinaryOp.LOGICAL_OR, this, other);
  }

  /** Logical exclusive or of truth values. */
  public Tensor logicalXor(Tensor other) {
    return Pointwise.binary(BinaryOp.LOGICAL_XOR, this, other);
  }

  /** Logical not (bool). */
  public Tensor logicalNot() {
    return Pointwise.logicalNot(this);
  }

  /** {@code condition ? input : other}, element by element, broadcasting; condition is bool. */
  public static Tensor where(Tensor condition, Tensor input, Tensor other) {
    return Pointwise.where(condition, input, other);
  }

  /** {@code value} where {@code mask} is true, else this tensor's elements. */
  public Tensor maskedFill(Tensor mask, double value) {
    return Pointwise.maskedFill(this, mask, value);
  }

  // ---------------------------------------------------------------- reductions

  /** The sum of all elements (0-dim). */
  @ZeroDim
  public Tensor sum() {
    return Reductions.reduce(ReduceOp.SUM, this, null, false);
  }

  /** The sum over {@code dim}. */
  public Tensor sum(int dim) {
    return Reductions.reduce(ReduceOp.SUM, this, new int[] {dim}, false);
  }

  /** The sum over {@code dim}, keeping it with size 1 when {@code keepdim}. */
  public Tensor sum(int dim, boolean keepdim) {
    return Reductions.reduce(ReduceOp.SUM, this, new int[] {dim}, keepdim);
  }

  /** The sum over several dimensions. */
  public Tensor sum(int[] dims, boolean keepdim) {
    return Reductions.reduce(ReduceOp.SUM, this, dims, keepdim);
  }

  /** The mean of all elements (0-dim); floating-point tensors only. */
  @ZeroDim
  public Tensor mean() {
    return Reductions.reduce(ReduceOp.MEAN, this, null, false);
  }

  /** The mean over {@code dim}. */
  public Tensor mean(int dim) {
    return Reductions.reduce(ReduceOp.MEAN, this, new int[] {dim}, false);
  }

  /** The mean over {@code dim}, keeping it when {@code keepdim}. */
  public Tensor mean(int dim, boolean keepdim) {
    return Reductions.reduce(ReduceOp.MEAN, this, new int[] {dim}, keepdim);
  }

  /** The mean over several dimensions. */
  public Tensor mean(int[] dims, boolean keepdim) {
    return Reductions.reduce(ReduceOp.MEAN, this, dims, keepdim);
  }

  /** The product of all elements (0-dim). */
  @ZeroDim
  public Tensor prod() {
    return Reductions.reduce(ReduceOp.PROD, this, null, false);
  }

  /** The variance of all elements (0-dim), with Bessel's correction, as PyTorch's {@code var()}. */
  @ZeroDim
  public Tensor var() {
    return Reductions.var(flatten(), new int[] {0}, true, false);
  }

  /** The variance over {@code dim}, with Bessel's correction. */
  public Tensor var(int dim) {
    return Reductions.var(this, new int[] {dim}, true, false);
  }

  /** The variance over several dimensions, with Bessel's correction when {@code unbiased}. */
  public Tensor var(int[] dims, boolean unbiased, boolean keepdim) {
    return Reductions.var(this, dims, unbiased, keepdim);
  }

  /** The standard deviation of all elements (0-dim), with Bessel's correction. */
  @ZeroDim
  public Tensor std() {
    return var().sqrt();
  }

  /** The standard deviation over {@code dim}, with Bessel's correction. */
  public Tensor std(int dim) {
    return var(dim).sqrt();
  }

  /** The standard deviation over several dimensions. */
  public Tensor std(int[] dims, boolean unbiased, boolean keepdim) {
    return Reductions.var(this, dims, unbiased, keepdim).sqrt();
  }

  /** The largest element (0-dim); NaN if any element is NaN. */
  @ZeroDim
  public Tensor max() {
    return Reductions.reduce(ReduceOp.MAX, this, null, false);
  }

  /** The largest elements over {@code dim} and their positions, as PyTorch's {@code max(dim)}. */
  public ValuesAndIndices max(int dim) {
    return max(dim, false);
  }

  /** The largest elements over {@code dim} and their positions. */
  public ValuesAndIndices max(int dim, boolean keepdim) {
    return Reductions.extremes(true, this, dim, keepdim);
  }

  /** The smallest element (0-dim). */
  @ZeroDim
  public Tensor min() {
    return Reductions.reduce(ReduceOp.MIN, this, null, false);
  }

  /** The smallest elements over {@code dim} and their positions. */
  public ValuesAndIndices min(int dim) {
    return min(dim, false);
  }

  /** The smallest elements over {@code dim} and their positions. */
  public ValuesAndIndices min(int dim, boolean keepdim) {
    return Reductions.extremes(false, this, dim, keepdim);
  }

  /** The flat position of the largest element (0-dim int64). */
  @ZeroDim
  public Tensor argmax() {
    return Reductions.reduce(ReduceOp.ARGMAX, this, null, false);
  }

  /**
   * The positions of the largest elements over {@code dim} (int64), as PyTorch's {@code
   * argmax(dim)}.
   */
  public Tensor argmax(int dim) {
    return argmax(dim, false);
  }

  /**
   * The positions of the largest elements over {@code dim} (int64); 0 for a 0-dim tensor, as in
   * PyTorch.
   */
  public Tensor argmax(int dim, boolean keepdim) {
    if (dim() == 0) {
      Checks.dim("argmax", dim, 0);
      return Tensor.zeros(Shape.scalar(), DType.INT64, device());
    }
    return Reductions.reduce(ReduceOp.ARGMAX, this, new int[] {dim}, keepdim);
  }

  /** The flat position of the smallest element (0-dim int64). */
  @ZeroDim
  public Tensor argmin() {
    return Reductions.reduce(ReduceOp.ARGMIN, this, null, false);
  }

  /** The positions of the smallest elements over {@code dim} (int64). */
  public Tensor argmin(int dim) {
    return argmin(dim, false);
  }

  /**
   * The positions of the smallest elements over {@code dim} (int64); 0 for a 0-dim tensor, as in
   * PyTorch.
   */
  public Tensor argmin(int dim, boolean keepdim) {
    if (dim() == 0) {
      Checks.dim("argmin", dim, 0);
      return Tensor.zeros(Shape.scalar(), DType.INT64, device());
    }
    return Reductions.reduce(ReduceOp.ARGMIN, this, new int[] {dim}, keepdim);
  }

  // ---------------------------------------------------------------- linear algebra and friends

  /**
   * The matrix product, with PyTorch's rules: vectors are promoted and the result squeezed, and
   * leading (batch) dimensions broadcast.
   */
  public Tensor matmul(Tensor other) {
    return LinearAlgebra.matmul(this, other);
  }

  /**
   * {@code input W^T + bias}, PyTorch's {@code linear}: {@code input [..., in]}, {@code weight
   * [out, in]}, {@code bias [out]} or null; one matrix product, all three on one device.
   */
  public static Tensor linear(Tensor input, Tensor weight, Tensor bias) {
    return LinearAlgebra.linear(input, weight, bias, false);
  }

  /**
   * {@code linear(input, weight, bias).relu()} as one op, with the bias and the relu in the matrix
   * product's output pass and relu's gradient in its backward: the same values and gradients, one
   * pass over the output less each way, and one tensor less. {@code dev.ondevice.nn.Sequential}
   * uses it for a {@code Linear} followed by a {@code ReLU}.
   */
  public static Tensor linearRelu(Tensor input, Tensor weight, Tensor bias) {
    return LinearAlgebra.linear(input, weight, bias, true);
  }

  /** Softmax along {@code dim}. */
  public Tensor softmax(int dim) {
    return LinearAlgebra.softmax(this, dim, false);
  }

  /** The logarithm of the softmax along {@code dim}, computed stably. */
  public Tensor logSoftmax(int dim) {
    return LinearAlgebra.softmax(this, dim, true);
  }

  // ---------------------------------------------------------------- indexing

  /**
   * {@code out[..i..] = this[..index[..i..]..]} along {@code dim}; index is int64 on this device.
   */
  public Tensor gather(int dim, Tensor index) {
    return Indexing.gather(this, dim, index);
  }

  /** The slices at the positions {@code index} (a 1-d int64 tensor) along {@code dim}. */
  public Tensor indexSelect(int dim, Tensor index) {
    return Indexing.indexSelect(this, dim, index);
  }

  /**
   * One-hot rows for int64 class indices: shape of {@code indices} plus {@code numClasses}, int64.
   * A class index out of range throws on the CPU; on a device, as in PyTorch, it fails at the next
   * synchronisation (an {@code AsyncDeviceException} from the {@code indexSelect} that checks it).
   */
  public static Tensor oneHot(Tensor indices, int numClasses) {
    return Indexing.oneHot(indices, numClasses);
  }

  // ---------------------------------------------------------------- in place

  /** {@code this += other} in place; returns this. */
  @InPlace
  public Tensor addi(Tensor other) {
    return InPlaceOps.binary(BinaryOp.ADD, this, other);
  }

  /** {@code this += alpha * other} in place. */
  @InPlace
  public Tensor addi(Tensor other, double alpha) {
    return InPlaceOps.scaledAdd(this, other, alpha);
  }

  /** {@code this += s} in place. */
  @InPlace
  public Tensor addi(double s) {
    return InPlaceOps.scalar(BinaryOp.ADD, this, s);
  }

  /** {@code this -= other} in place. */
  @InPlace
  public Tensor subi(Tensor other) {
    return InPlaceOps.binary(BinaryOp.SUB, this, other);
  }

  /** {@code this -= s} in place. */
  @InPlace
  public Tensor subi(double s) {
    return InPlaceOps.scalar(BinaryOp.SUB, this, s);
  }

  /** {@code this *= other} in place. */
  @InPlace
  public Tensor muli(Tensor other) {
    return InPlaceOps.binary(BinaryOp.MUL, this, other);
  }

  /** {@code this *= s} in place. */
  @InPlace
  public Tensor muli(double s) {
    return InPlaceOps.scalar(BinaryOp.MUL, this, s);
  }

  /** {@code this /= other} in place. */
  @InPlace
  public Tensor divi(Tensor other) {
    return InPlaceOps.binary(BinaryOp.DIV, this, other);
  }

  /** {@code this /= s} in place. */
  @InPlace
  public Tensor divi(double s) {
    return InPlaceOps.scalar(BinaryOp.DIV, this, s);
  }

  /** Sets every element to {@code value} in place. */
  @InPlace
  public Tensor fill(double value) {
    return InPlaceOps.fill(this, value);
  }

  /**
   * Copies {@code src} into this tensor in place, broadcasting and converting the dtype; {@code
   * src} may be on another device (the copy is then a transfer).
   */
  @InPlace(crossDevice = true)
  public Tensor copyFrom(Tensor src) {
    return InPlaceOps.copyFrom(this, src, false);
  }

  /** As {@link #copyFrom(Tensor)}, asynchronously where {@link #to(Device, boolean)} would be. */
  @InPlace(crossDevice = true)
  public Tensor copyFrom(Tensor src, boolean nonBlocking) {
    return InPlaceOps.copyFrom(this, src, nonBlocking);
  }

  // ---------------------------------------------------------------- host reads

  /** The value of a one-element tensor. Waits for the device: a host synchronisation. */
  @HostSync
  public double item() {
    return Movement.item(this);
  }

  /** The value of a one-element tensor as a long. */
  @HostSync
  public long itemAsLong() {
    return Movement.itemAsLong(this);
  }

  /** The value of a one-element tensor as a boolean (non-zero is true). */
  @HostSync
  public boolean itemAsBoolean() {
    return Movement.item(this) != 0;
  }

  /** The elements, row-major, as floats. A host synchronisation. */
  @HostSync
  public float[] toFloatArray() {
    return Movement.toFloatArray(this);
  }

  /** The elements as doubles. A host synchronisation. */
  @HostSync
  public double[] toDoubleArray() {
    return Movement.toDoubleArray(this);
  }

  /** The elements as longs. A host synchronisation. */
  @HostSync
  public long[] toLongArray() {
    return Movement.toLongArray(this);
  }

  /** The elements as booleans (non-zero is true). A host synchronisation. */
  @HostSync
  public boolean[] toBooleanArray() {
    return Movement.toBooleanArray(this);
  }

  // ---------------------------------------------------------------- autograd

  /** Whether gradients are computed for this tensor. */
  public boolean requiresGrad() {
    return requiresGrad;
  }

  /**
   * Sets whether gradients are computed for this leaf tensor; returns this.
   *
   * @throws IllegalStateException on a tensor computed by a recorded op, or asking for gradients of
   *     a non-floating tensor
   */
  @InPlace
  public Tensor requiresGrad(boolean requires) {
    if (gradFn != null) {
      throw new IllegalStateException(
          "requiresGrad can only be changed on leaf tensors; this one was"
              + " computed by "
              + gradFn.name()
              + ". Use detach() to get a leaf");
    }
    if (requires && !dtype().isFloatingPoint()) {
      throw new IllegalArgumentException(
          "Only floating-point tensors can require gradients, this one is " + dtype());
    }
    requiresGrad = requires;
    return this;
  }

  /** The gradient accumulated by {@link #backward()}, or null. */
  public Tensor grad() {
    return grad;
  }

  /**
   * Replaces the gradient (null clears it).
   *
   * @throws IllegalArgumentException if its shape, dtype or device differ from this tensor's
   */
  public void setGrad(Tensor g) {
    if (g != null
        && (!g.shape().equals(shape()) || g.dtype() != dtype() || !g.device().equals(device()))) {
      throw new IllegalArgumentException(
          "setGrad: the gradient must have the shape, dtype and device of the"
              + " tensor ("
              + shape()
              + ", "
              + dtype()
              + ", "
              + device()
              + "), got ("
              + g.shape()
              + ", "
              + g.dtype()
              + ", "
              + g.device()
              + ")");
    }
    grad = g;
    gradMadeByBackward = false;
  }

  /**
   * Sets the gradient a backward pass computed; {@code madeByIt} when its memory is the pass's own.
   */
  void setGradFromBackward(Tensor g, boolean madeByIt) {
    grad = g;
    gradMadeByBackward = madeByIt;
  }

  /**
   * Whether the gradient's memory is a backward pass's own, which nothing but this tensor has seen.
   */
  boolean gradMadeByBackward() {
    return gradMadeByBackward;
  }

  /**
   * Whether this is a leaf of the graph: created by the user rather than computed by a recorded op.
   */
  public boolean isLeaf() {
    return gradFn == null;
  }

  /** The name of the op that computed this tensor, or null for a leaf. */
  public String gradFnName() {
    return gradFn == null ? null : gradFn.name();
  }

  /** The same data, cut from the graph: a leaf that does not require grad. */
  public Tensor detach() {
    return new Tensor(data);
  }

  /** Computes the gradients of this scalar with respect to the leaves that require grad. */
  public void backward() {
    backward(null, false);
  }

  /**
   * As {@link #backward()}, keeping the graph for another backward pass when {@code retainGraph}.
   */
  public void backward(boolean retainGraph) {
    backward(null, retainGraph);
  }

  /**
   * Backward from a non-scalar tensor, given the gradient of the final result with respect to it:
   * of this tensor's shape and device (a 0-dim CPU gradient may stand beside a 0-dim tensor on any
   * device, as a scalar).
   */
  public void backward(Tensor gradient) {
    backward(gradient, false);
  }

  private void backward(Tensor gradient, boolean retainGraph) {
    if (!requiresGrad) {
      throw new IllegalStateException(
          "backward: this tensor does not require grad and has no grad function;"
              + " call requiresGrad(true) on the leaves to differentiate, outside Autograd.noGrad()");
    }
    Tensor seed;
    if (gradient == null) {
      if (numel() != 1) {
        throw new IllegalStateException(
            "backward: the gradient can only be created implicitly for a"
                + " one-element output, this one has shape "
                + shape()
                + "; pass backward(gradient)");
      }
      seed = onesLike(this);
    } else {
      if (!gradient.shape().equals(shape())) {
        throw new IllegalArgumentException(
            "backward: the gradient has shape "
                + gradient.shape()
                + " but the tensor has shape "
                + shape());
      }
      Checks.sameDevice("backward", this, "gradient", gradient);
      seed = gradient.to(dtype()).to(device());
    }
    BackwardEngine.run(this, seed, retainGraph);
    if (gradient == null) {
      seed.data
          .storage()
          .free("by backward(), which made it as the gradient of its one-element root");
    }
  }

  // ---------------------------------------------------------------- internals

  void attach(Node node) {
    gradFn = node;
    requiresGrad = true;
  }

  Node gradFn() {
    return gradFn;
  }

  /** A contiguous copy with its own memory, outside autograd. */
  Tensor contiguousCopy() {
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      return Views.copy(this, "clone");
    }
  }

  /**
   * The elements, formatted as PyTorch prints them, with the device (and {@code requiresGrad}) in
   * the suffix. Reads the data: a host synchronisation.
   */
  @Override
  @HostSync
  public String toString() {
    return TensorFormatter.format(this);
  }
}
