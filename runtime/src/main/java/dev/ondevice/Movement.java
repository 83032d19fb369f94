package dev.ondevice;

import dev.ondevice.internal.backend.Backends;
import dev.ondevice.internal.backend.HostStorage;
import dev.ondevice.internal.backend.Strided;
import dev.ondevice.internal.backend.Transfers;

/** Moves between devices and dtypes, and reads to the host. */
final class Movement {
  private Movement() {}

  static Tensor to(Tensor t, Device device, boolean nonBlocking) {
    Device target = device.resolved();
    Device source = t.device();
    if (target.equals(source)) {
      return t;
    }
    Backends.of(BackendTypes.id(target));
    Tensor out = new Tensor(Transfers.copy(t.data, BackendTypes.id(target), nonBlocking));
    return Node.record("to", out, new Tensor[] {t}, (g, needs) -> new Tensor[] {g.to(source)});
  }

  static Tensor toType(Tensor t, DType dtype) {
    if (t.dtype() == dtype) {
      return t;
    }
    Tensor out = Creation.empty(t.data.sizes().clone(), dtype, t.device());
    t.data.storage().backend().copy(t.data, out.data);
    if (!dtype.isFloatingPoint() || !t.dtype().isFloatingPoint()) {
      return out;
    }
    DType original = t.dtype();
    return Node.record("to", out, new Tensor[] {t}, (g, needs) -> new Tensor[] {g.to(original)});
  }

  static Tensor pin(Tensor t) {
    if (!t.device().isCpu()) {
      throw new IllegalStateException(
          "pinMemory: only CPU tensors can be pinned, this one is on " + t.device());
    }
    if (isPinned(t)) {
      return t;
    }
    Tensor out = new Tensor(Transfers.pin(t.data));
    return Node.record("pinMemory", out, new Tensor[] {t}, (g, needs) -> new Tensor[] {g});
  }

  static boolean isReady(Tensor t) {
    return t.device().isCpu() && t.data.host().isReady();
  }

  static boolean isPinned(Tensor t) {
    return t.data.storage() instanceof HostStorage
        && t.device().isCpu()
        && t.data.host().isPinned();
  }

  /** The host-readable, contiguous form of {@code t} in {@code dtype}: a counted host read. */
  private static Strided hostData(Tensor t, DType dtype) {
    Strided h = Transfers.readable(t.data);
    if (h.dtype() == BackendTypes.scalar(dtype) && h.isContiguous()) {
      return h;
    }
    Strided converted =
        Strided.contiguous(
            Backends.cpu().allocate((long) h.numel() * dtype.byteSize()),
            BackendTypes.scalar(dtype),
            h.sizes().clone());
    Backends.cpu().copyNow(h, converted);
    return converted;
  }

  private static void requireOneElement(String op, Tensor t) {
    if (t.numel() != 1) {
      throw new IllegalStateException(
          op
              + ": a tensor with "
              + t.numel()
              + " elements (shape "
              + t.shape()
              + ") cannot be converted to a scalar");
    }
  }

  static double item(Tensor t) {
    requireOneElement("item", t);
    Strided h = hostData(t, DType.FLOAT64);
    return h.host().doubles().get(h.offset());
  }

  static long itemAsLong(Tensor t) {
    requireOneElement("itemAsLong", t);
    Strided h = hostData(t, DType.INT64);
    return h.host().longs().get(h.offset());
  }

  /** The value of a 0-dim CPU tensor used as a scalar operand; not a counted read. */
  static double scalarValue(Tensor t) {
    HostStorage s = t.data.host();
    s.awaitReady();
    Strided converted =
        Strided.contiguous(
            Backends.cpu().allocate(8), BackendTypes.scalar(DType.FLOAT64), new int[0]);
    Backends.cpu().copyNow(t.data, converted);
    double value = converted.host().doubles().get(0);
    converted.storage().free("after reading a scalar operand, its only use");
    return value;
  }

  static float[] toFloatArray(Tensor t) {
    Strided h = hostData(t, DType.FLOAT32);
    float[] out = new float[h.numel()];
    h.host().floats().get(h.offset(), out);
    return out;
  }

  static double[] toDoubleArray(Tensor t) {
    Strided h = hostData(t, DType.FLOAT64);
    double[] out = new double[h.numel()];
    h.host().doubles().get(h.offset(), out);
    return out;
  }

  static long[] toLongArray(Tensor t) {
    Strided h = hostData(t, DType.INT64);
    long[] out = new long[h.numel()];
    h.host().longs().get(h.offset(), out);
    return out;
  }

  static boolean[] toBooleanArray(Tensor t) {
    Strided h = hostData(t, DType.BOOL);
    boolean[] out = new boolean[h.numel()];
    for (int i = 0; i < out.length; i++) {
      out[i] = h.host().bytes().get(h.offset() + i) != 0;
    }
    return out;
  }
}
