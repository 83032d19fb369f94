package dev.ondevice;

import dev.ondevice.internal.backend.Backend;
import dev.ondevice.internal.backend.Backends;
import dev.ondevice.internal.backend.HostStorage;
import dev.ondevice.internal.backend.RandomKind;
import dev.ondevice.internal.backend.Storage;
import dev.ondevice.internal.backend.Strided;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Objects;

/** The factories behind Tensor's static methods. */
final class Creation {
  private Creation() {}

  static Tensor empty(Shape shape, DType dtype, Device device) {
    return empty(Checks.sizes("empty", shape.toArray()), dtype, device);
  }

  static Tensor empty(int[] sizes, DType dtype, Device device) {
    Backend b = Backends.of(BackendTypes.id(device));
    long elements = 1;
    for (int s : sizes) {
      elements *= s;
    }
    Storage storage = b.allocate(elements * dtype.byteSize());
    AllocationLog.made(storage);
    return new Tensor(Strided.contiguous(storage, BackendTypes.scalar(dtype), sizes));
  }

  static Tensor full(Shape shape, double value, DType dtype, Device device) {
    Tensor t = empty(shape, dtype, device);
    t.data.storage().backend().fill(t.data, value);
    return t;
  }

  /** A 0-dim tensor holding {@code value} on {@code device}, made there: no transfer. */
  static Tensor scalarOn(double value, DType dtype, Device device) {
    return full(Shape.scalar(), value, dtype, device);
  }

  static Tensor eye(long n, Device device) {
    int size = Checks.toInt("eye", n);
    Tensor t = full(Shape.of(size, size), 0, DType.FLOAT32, device);
    Strided diagonal = t.data.withLayout(0, new int[] {size}, new int[] {size + 1});
    t.data.storage().backend().fill(diagonal, 1);
    return t;
  }

  static Tensor arange(double start, double end, double step, DType dtype, Device device) {
    if (step == 0 || Double.isNaN(step)) {
      throw new IllegalArgumentException("arange: step must be non-zero, got " + step);
    }
    if (!Double.isFinite(start) || !Double.isFinite(end)) {
      throw new IllegalArgumentException(
          "arange: unsupported range "
              + start
              + " -> "
              + end
              + "; start and end must be finite numbers");
    }
    if ((end - start) * step < 0) {
      throw new IllegalArgumentException(
          "arange: the range from "
              + start
              + " to "
              + end
              + " does not go in the direction of step "
              + step);
    }
    long count = (long) Math.ceil((end - start) / step);
    Tensor t = empty(new int[] {Checks.toInt("arange", count)}, dtype, device);
    t.data.storage().backend().arange(start, step, t.data);
    return t;
  }

  static DType floatLike(Tensor t) {
    return t.dtype() == DType.FLOAT64 ? DType.FLOAT64 : DType.FLOAT32;
  }

  static Tensor rand(Shape shape, DType dtype, Device device, Generator gen) {
    return random(RandomKind.UNIFORM, 0, 1, shape, floating("rand", dtype), device, gen);
  }

  static Tensor randn(Shape shape, DType dtype, Device device, Generator gen) {
    return random(RandomKind.NORMAL, 0, 1, shape, floating("randn", dtype), device, gen);
  }

  static Tensor randint(long low, long high, Shape shape, Device device, Generator gen) {
    if (low >= high) {
      throw new IllegalArgumentException(
          "randint: low (" + low + ") must be less than high (" + high + ")");
    }
    return random(
        RandomKind.INTEGERS, (double) low, (double) high, shape, DType.INT64, device, gen);
  }

  private static DType floating(String op, DType dtype) {
    if (!dtype.isFloatingPoint()) {
      throw new IllegalArgumentException(op + ": dtype must be float32 or float64, got " + dtype);
    }
    return dtype;
  }

  private static Tensor random(
      RandomKind kind, double a, double b, Shape shape, DType dtype, Device device, Generator gen) {
    Tensor t = empty(shape, dtype, device);
    long counter = gen.reserve(t.numel() * kind.countersPerElement());
    t.data.storage().backend().random(kind, a, b, gen.seed(), counter, t.data);
    return t;
  }

  static Tensor bernoulli(Tensor p, Generator gen) {
    Checks.floating("bernoulli", "p", p);
    Tensor t = empty(p.data.sizes().clone(), p.dtype(), p.device());
    long counter = gen.reserve(t.numel());
    t.data.storage().backend().bernoulli(p.data, gen.seed(), counter, t.data);
    return t;
  }

  private static Tensor hostTensor(int[] sizes, DType dtype) {
    return empty(sizes, dtype, Device.cpu());
  }

  private static int[] sizesFor(String what, int length, Shape shape) {
    int[] sizes = Checks.sizes("of", shape.toArray());
    if (shape.numel() != length) {
      throw new IllegalArgumentException(
          "of: "
              + length
              + " "
              + what
              + " do not fill shape "
              + shape
              + " ("
              + shape.numel()
              + " elements)");
    }
    return sizes;
  }

  static Tensor fromHostBytes(Shape shape, DType dtype, Tensor.HostBytesWriter writer)
      throws IOException {
    Objects.requireNonNull(shape, "Tensor.fromHostBytes: the shape is null");
    Objects.requireNonNull(dtype, "Tensor.fromHostBytes: the dtype is null");
    Objects.requireNonNull(writer, "Tensor.fromHostBytes: the writer is null");
    Tensor t = hostTensor(Checks.sizes("fromHostBytes", shape.toArray()), dtype);
    ByteBuffer bytes =
        ((HostStorage) t.data.storage()).bytes().duplicate().order(ByteOrder.nativeOrder());
    bytes.limit((int) (shape.numel() * dtype.byteSize()));
    writer.write(bytes);
    if (bytes.hasRemaining()) {
      throw new IllegalStateException(
          "Tensor.fromHostBytes: the writer left "
              + bytes.remaining()
              + " of "
              + bytes.limit()
              + " bytes unwritten");
    }
    return t;
  }

  /** {@code data}, unless it is null: then an exception naming {@code Tensor.of}. */
  static <T> T nonNullData(T data) {
    return Objects.requireNonNull(data, "Tensor.of: the data array is null");
  }

  /** Names the null argument of a {@code Tensor.of} call. */
  private static void hostData(Object data, Shape shape, Device device) {
    nonNullData(data);
    Objects.requireNonNull(shape, "Tensor.of: the shape is null");
    Objects.requireNonNull(device, "Tensor.of: the device is null");
  }

  static Tensor fromFloats(float[] data, Shape shape, Device device) {
    hostData(data, shape, device);
    Tensor t = hostTensor(sizesFor("floats", data.length, shape), DType.FLOAT32);
    ((HostStorage) t.data.storage()).floats().put(0, data);
    return t.to(device);
  }

  static Tensor fromDoubles(double[] data, Shape shape, Device device) {
    hostData(data, shape, device);
    Tensor t = hostTensor(sizesFor("doubles", data.length, shape), DType.FLOAT64);
    ((HostStorage) t.data.storage()).doubles().put(0, data);
    return t.to(device);
  }

  static Tensor fromLongs(long[] data, Shape shape, Device device) {
    hostData(data, shape, device);
    Tensor t = hostTensor(sizesFor("longs", data.length, shape), DType.INT64);
    ((HostStorage) t.data.storage()).longs().put(0, data);
    return t.to(device);
  }

  static Tensor fromBooleans(boolean[] data, Shape shape, Device device) {
    hostData(data, shape, device);
    Tensor t = hostTensor(sizesFor("booleans", data.length, shape), DType.BOOL);
    HostStorage s = (HostStorage) t.data.storage();
    for (int i = 0; i < data.length; i++) {
      s.bytes().put(i, (byte) (data[i] ? 1 : 0));
    }
    return t.to(device);
  }

  static Tensor fromFloatRows(float[][] rows) {
    Objects.requireNonNull(rows, "Tensor.of: the rows are null");
    for (int i = 0; i < rows.length; i++) {
      Objects.requireNonNull(rows[i], "Tensor.of: row " + i + " is null");
    }
    int cols = rows.length == 0 ? 0 : rows[0].length;
    float[] flat = new float[rows.length * cols];
    for (int i = 0; i < rows.length; i++) {
      checkRow(i, rows[i].length, cols);
      System.arraycopy(rows[i], 0, flat, i * cols, cols);
    }
    return fromFloats(flat, Shape.of(rows.length, cols), Device.cpu());
  }

  static Tensor fromDoubleRows(double[][] rows) {
    Objects.requireNonNull(rows, "Tensor.of: the rows are null");
    for (int i = 0; i < rows.length; i++) {
      Objects.requireNonNull(rows[i], "Tensor.of: row " + i + " is null");
    }
    int cols = rows.length == 0 ? 0 : rows[0].length;
    double[] flat = new double[rows.length * cols];
    for (int i = 0; i < rows.length; i++) {
      checkRow(i, rows[i].length, cols);
      System.arraycopy(rows[i], 0, flat, i * cols, cols);
    }
    return fromDoubles(flat, Shape.of(rows.length, cols), Device.cpu());
  }

  private static void checkRow(int i, int length, int cols) {
    if (length != cols) {
      throw new IllegalArgumentException(
          "of: row "
              + i
              + " has "
              + length
              + " elements but row 0 has "
              + cols
              + "; rows must have equal lengths");
    }
  }
}
