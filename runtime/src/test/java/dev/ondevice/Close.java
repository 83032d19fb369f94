package dev.ondevice;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.function.Executable;

/**
 * Shared assertions and data for the op tests: values with tolerances, dtypes, shapes, messages.
 */
final class Close {
  /** Relative tolerance for float32 results. */
  static final double F32_RTOL = 1e-5;

  /** Absolute tolerance for float32 results near zero. */
  static final double F32_ATOL = 1e-6;

  /** Relative tolerance for float64 results. */
  static final double F64_RTOL = 1e-12;

  /** Absolute tolerance for float64 results near zero. */
  static final double F64_ATOL = 1e-12;

  private Close() {}

  /**
   * A float32 tensor on {@code device} with the given row-major values and shape (1-d without one).
   */
  static Tensor f32(Device device, float[] data, long... shape) {
    return Tensor.of(data, Shape.of(shape.length == 0 ? new long[] {data.length} : shape), device);
  }

  /** A float64 tensor on {@code device}. */
  static Tensor f64(Device device, double[] data, long... shape) {
    return Tensor.of(data, Shape.of(shape.length == 0 ? new long[] {data.length} : shape), device);
  }

  /** An int64 tensor on {@code device}. */
  static Tensor i64(Device device, long[] data, long... shape) {
    return Tensor.of(data, Shape.of(shape.length == 0 ? new long[] {data.length} : shape), device);
  }

  /** Floats uniform on [lo, hi) from a seeded java.util.Random. */
  static float[] uniform(long seed, int n, double lo, double hi) {
    Random r = new Random(seed);
    float[] v = new float[n];
    for (int i = 0; i < n; i++) {
      v[i] = (float) (lo + (hi - lo) * r.nextDouble());
    }
    return v;
  }

  /** Doubles uniform on [lo, hi) from a seeded java.util.Random. */
  static double[] uniformDoubles(long seed, int n, double lo, double hi) {
    Random r = new Random(seed);
    double[] v = new double[n];
    for (int i = 0; i < n; i++) {
      v[i] = lo + (hi - lo) * r.nextDouble();
    }
    return v;
  }

  /** The floats widened to doubles. */
  static double[] widen(float[] v) {
    double[] d = new double[v.length];
    for (int i = 0; i < v.length; i++) {
      d[i] = v[i];
    }
    return d;
  }

  /** Asserts the dtype, device and shape of {@code t}. */
  static void meta(Tensor t, DType dtype, Device device, long... shape) {
    assertEquals(dtype, t.dtype(), "dtype");
    assertEquals(device, t.device(), "device");
    assertEquals(Shape.of(shape), t.shape(), "shape");
  }

  /** Asserts the shape of {@code t}. */
  static void shape(Tensor t, long... shape) {
    assertEquals(Shape.of(shape), t.shape(), "shape");
  }

  /** Float32 values within {@link #F32_RTOL}; the tensor must be float32. */
  static void assertF32(Tensor t, double... expected) {
    assertEquals(DType.FLOAT32, t.dtype(), "dtype");
    assertClose(t, expected, F32_RTOL, F32_ATOL);
  }

  /** Float64 values within {@link #F64_RTOL}; the tensor must be float64. */
  static void assertF64(Tensor t, double... expected) {
    assertEquals(DType.FLOAT64, t.dtype(), "dtype");
    assertClose(t, expected, F64_RTOL, F64_ATOL);
  }

  /** Int64 values, exactly; the tensor must be int64. */
  static void assertI64(Tensor t, long... expected) {
    assertEquals(DType.INT64, t.dtype(), "dtype");
    assertArrayEquals(expected, t.toLongArray(), "values");
  }

  /** Bool values, exactly; the tensor must be bool. */
  static void assertBool(Tensor t, boolean... expected) {
    assertEquals(DType.BOOL, t.dtype(), "dtype");
    assertArrayEquals(expected, t.toBooleanArray(), "values");
  }

  /**
   * Values (any dtype) within {@code |a - e| <= atol + rtol * |e|}; NaN matches NaN, infinities
   * match exactly.
   */
  static void assertClose(Tensor t, double[] expected, double rtol, double atol) {
    assertEquals(expected.length, t.numel(), "number of elements");
    assertClose(t.toDoubleArray(), expected, rtol, atol);
  }

  /** Arrays within {@code |a - e| <= atol + rtol * |e|}. */
  static void assertClose(double[] actual, double[] expected, double rtol, double atol) {
    assertEquals(expected.length, actual.length, "number of elements");
    for (int i = 0; i < expected.length; i++) {
      double e = expected[i];
      double a = actual[i];
      if (Double.isNaN(e) || Double.isInfinite(e)) {
        if (Double.compare(e, a) != 0) {
          fail("element " + i + ": expected " + e + " but was " + a + describe(actual, expected));
        }
        continue;
      }
      if (!(Math.abs(a - e) <= atol + rtol * Math.abs(e))) {
        fail(
            "element "
                + i
                + ": expected "
                + e
                + " but was "
                + a
                + " (difference "
                + Math.abs(a - e)
                + ")"
                + describe(actual, expected));
      }
    }
  }

  private static String describe(double[] actual, double[] expected) {
    if (expected.length > 24) {
      return "";
    }
    return "\n expected " + Arrays.toString(expected) + "\n actual   " + Arrays.toString(actual);
  }

  /** Runs {@code e}, asserts it throws {@code type}, and returns the message. */
  static String message(Class<? extends Throwable> type, Executable e) {
    String m = assertThrows(type, e).getMessage();
    assertTrue(m != null, "the exception has no message");
    return m;
  }

  /** Asserts that {@code message} contains every part. */
  static void contains(String message, String... parts) {
    for (String p : parts) {
      assertTrue(message.contains(p), "message should contain '" + p + "': " + message);
    }
  }
}
