package dev.ondevice;

import static dev.ondevice.Close.assertF32;
import static dev.ondevice.Close.f32;
import static dev.ondevice.Close.i64;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ondevice.internal.backend.AsyncDeviceException;
import java.nio.BufferOverflowException;
import java.nio.BufferUnderflowException;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Bad input: every error is an exception of the documented kind whose message names the op, the
 * argument and the shapes or values involved, never an index error from inside a kernel.
 */
class BadInputTest {
  /**
   * Asserts that {@code e} throws {@code type} (not a raw array or buffer index error) with a
   * message containing every part; returns the message.
   */
  private static String fails(
      Class<? extends RuntimeException> type, Executable e, String... parts) {
    RuntimeException thrown = assertThrows(RuntimeException.class, e);
    assertFalse(
        thrown instanceof ArrayIndexOutOfBoundsException
            || thrown instanceof StringIndexOutOfBoundsException
            || thrown instanceof BufferOverflowException
            || thrown instanceof BufferUnderflowException
            || thrown instanceof NullPointerException
            || thrown instanceof ClassCastException,
        () -> "a raw " + thrown.getClass().getSimpleName() + " escaped: " + thrown);
    assertInstanceOf(type, thrown, () -> "expected " + type.getSimpleName() + " but got " + thrown);
    String m = thrown.getMessage();
    assertTrue(m != null, "the exception has no message");
    for (String p : parts) {
      assertTrue(m.contains(p), "message should contain '" + p + "': " + m);
    }
    return m;
  }

  private static Tensor m23(Device d) {
    return f32(d, new float[] {1, 2, 3, 4, 5, 6}, 2, 3);
  }

  // ---------------------------------------------------------------- shapes

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void broadcastMismatch(Device d) {
    Tensor a = m23(d);
    Tensor b = f32(d, new float[] {1, 2, 3, 4});
    fails(IllegalArgumentException.class, () -> a.add(b), "add", "[2, 3]", "[4]", "broadcast");
    fails(IllegalArgumentException.class, () -> a.sub(b), "sub", "[2, 3]", "[4]");
    fails(
        IllegalArgumentException.class,
        () -> a.mul(Tensor.zeros(Shape.of(3, 3), d)),
        "mul",
        "[2, 3]",
        "[3, 3]");
    fails(IllegalArgumentException.class, () -> a.maximum(b), "maximum", "[2, 3]", "[4]");
    fails(IllegalArgumentException.class, () -> a.lt(b), "lt", "[2, 3]", "[4]");
    fails(
        IllegalArgumentException.class,
        () -> Tensor.where(Tensor.of(true, false).to(d), a, a),
        "where",
        "[2]",
        "[2, 3]");
    fails(
        IllegalArgumentException.class,
        () -> a.maskedFill(Tensor.of(true, false).to(d), 0),
        "maskedFill",
        "[2]",
        "[2, 3]");
    // A mask that would grow self.
    fails(
        IllegalArgumentException.class,
        () -> f32(d, new float[] {1, 2, 3}).maskedFill(Tensor.of(new boolean[6], 2, 3).to(d), 0),
        "maskedFill",
        "[2, 3]",
        "[3]");
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void matmulShapes(Device d) {
    Tensor a = m23(d);
    fails(
        IllegalArgumentException.class,
        () -> a.matmul(Tensor.zeros(Shape.of(4, 5), d)),
        "matmul",
        "[2, 3]",
        "[4, 5]",
        "3 != 4");
    fails(
        IllegalArgumentException.class,
        () -> f32(d, new float[] {1, 2, 3}).matmul(f32(d, new float[] {1, 2})),
        "matmul",
        "[3]",
        "[2]");
    fails(
        IllegalArgumentException.class,
        () -> a.matmul(f32(d, new float[] {1, 2})),
        "matmul",
        "[2, 3]",
        "[2]");
    fails(
        IllegalArgumentException.class,
        () -> Tensor.zeros(Shape.of(2, 3, 4), d).matmul(Tensor.zeros(Shape.of(3, 4, 5), d)),
        "matmul",
        "[2]",
        "[3]");
    fails(
        IllegalArgumentException.class,
        () -> a.matmul(Tensor.scalar(2.0, d)),
        "matmul",
        "[2, 3]",
        "[]");
    fails(
        IllegalArgumentException.class,
        () -> Tensor.of(true, false).to(d).matmul(Tensor.of(true, false).to(d)),
        "matmul",
        "bool");
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void reshapeAndView(Device d) {
    Tensor a = m23(d);
    fails(
        IllegalArgumentException.class,
        () -> a.reshape(4, 2),
        "reshape",
        "[4, 2]",
        "6 elements",
        "[2, 3]");
    fails(IllegalArgumentException.class, () -> a.view(7), "view", "[7]", "6 elements");
    fails(
        IllegalArgumentException.class, () -> a.reshape(-1, 4), "reshape", "[-1, 4]", "6 elements");
    fails(
        IllegalArgumentException.class,
        () -> a.reshape(-1, -1),
        "reshape",
        "only one dimension can be -1");
    fails(IllegalArgumentException.class, () -> a.reshape(-2, -3), "reshape", "-2");
    fails(IllegalArgumentException.class, () -> a.t().view(6), "view", "reshape", "[3, 2]");
    fails(
        IllegalArgumentException.class,
        () -> Tensor.zeros(Shape.of(0, 3), d).reshape(0, -1),
        "reshape",
        "[0, -1]");
    fails(IllegalArgumentException.class, () -> a.flatten(1, 0), "flatten", "1", "0");
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void dimensionOutOfRange(Device d) {
    Tensor a = m23(d);
    fails(
        IndexOutOfBoundsException.class, () -> a.sum(5), "sum", "dimension 5", "rank 2", "[-2, 1]");
    fails(IndexOutOfBoundsException.class, () -> a.sum(-3), "sum", "dimension -3", "rank 2");
    fails(IndexOutOfBoundsException.class, () -> a.mean(2, true), "mean", "dimension 2");
    fails(
        IndexOutOfBoundsException.class,
        () -> a.sum(new int[] {0, 2}, false),
        "sum",
        "dimension 2");
    fails(IndexOutOfBoundsException.class, () -> a.max(2, false), "max", "dimension 2");
    fails(IndexOutOfBoundsException.class, () -> a.min(-3, false), "min", "dimension -3");
    fails(IndexOutOfBoundsException.class, () -> a.argmax(2, false), "argmax", "dimension 2");
    fails(
        IndexOutOfBoundsException.class,
        () -> a.var(new int[] {2}, true, false),
        "var",
        "dimension 2");
    fails(IndexOutOfBoundsException.class, () -> a.softmax(2), "softmax", "dimension 2");
    fails(IndexOutOfBoundsException.class, () -> a.logSoftmax(-3), "logSoftmax", "dimension -3");
    fails(IndexOutOfBoundsException.class, () -> a.transpose(0, 2), "transpose", "dimension 2");
    fails(IndexOutOfBoundsException.class, () -> a.permute(0, 2), "permute", "dimension 2");
    fails(IndexOutOfBoundsException.class, () -> a.select(2, 0), "select", "dimension 2");
    fails(IndexOutOfBoundsException.class, () -> a.slice(2, 0, 1), "slice", "dimension 2");
    fails(IndexOutOfBoundsException.class, () -> a.narrow(-3, 0, 1), "narrow", "dimension -3");
    fails(IndexOutOfBoundsException.class, () -> a.squeeze(2), "squeeze", "dimension 2");
    fails(IndexOutOfBoundsException.class, () -> a.unsqueeze(3), "unsqueeze", "dimension 3");
    fails(IndexOutOfBoundsException.class, () -> a.flatten(0, 2), "flatten", "dimension 2");
    fails(IndexOutOfBoundsException.class, () -> a.size(2), "size", "dimension 2");
    fails(
        IndexOutOfBoundsException.class,
        () -> a.gather(2, i64(d, new long[] {0, 0}, 2, 1)),
        "gather",
        "dimension 2");
    fails(
        IndexOutOfBoundsException.class,
        () -> a.indexSelect(2, i64(d, new long[] {0})),
        "indexSelect",
        "dimension 2");
    fails(
        IndexOutOfBoundsException.class, () -> Tensor.cat(List.of(a, a), 2), "cat", "dimension 2");
    fails(
        IndexOutOfBoundsException.class,
        () -> Tensor.stack(List.of(a, a), 3),
        "stack",
        "dimension 3");
    fails(
        IllegalArgumentException.class,
        () -> a.sum(new int[] {1, -1}, false),
        "sum",
        "more than once");
    fails(IllegalArgumentException.class, () -> a.permute(1, 1), "permute", "repeats");
    fails(IllegalArgumentException.class, () -> a.permute(0), "permute", "1 dimensions", "rank 2");
    fails(
        IllegalArgumentException.class,
        () -> Tensor.zeros(Shape.of(2, 2, 2), d).t(),
        "t",
        "3",
        "transpose");
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void zeroDimTensorsHaveNoDimensionToIndex(Device d) {
    Tensor s = Tensor.scalar(2.0, d);
    fails(IndexOutOfBoundsException.class, () -> s.size(0), "size", "0-dim");
    fails(IndexOutOfBoundsException.class, () -> s.select(0, 0), "select", "0-dim");
    fails(IndexOutOfBoundsException.class, () -> s.get(0), "select", "0-dim");
    fails(IndexOutOfBoundsException.class, () -> s.slice(0, 0, 1), "slice", "0-dim");
    fails(IndexOutOfBoundsException.class, () -> s.narrow(0, 0, 1), "narrow", "0-dim");
    fails(IndexOutOfBoundsException.class, () -> s.sum(1), "sum", "dimension 1");
    fails(IllegalArgumentException.class, () -> Tensor.cat(List.of(s, s), 0), "cat", "0-dim");
    fails(
        IllegalArgumentException.class,
        () -> s.indexSelect(0, i64(d, new long[] {0})),
        "indexSelect");
    // Reducing "dimension 0" of a 0-dim tensor is allowed, as in PyTorch; the variance of one value
    // is 0/0.
    assertTrue(Double.isNaN(s.var(new int[] {0}, true, false).item()));
    assertEquals(0.0, s.var(new int[] {0}, false, false).item());
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void indexOutOfRangeInViews(Device d) {
    Tensor a = Tensor.zeros(Shape.of(3, 4), d);
    fails(
        IndexOutOfBoundsException.class,
        () -> a.select(1, 4),
        "select",
        "index 4",
        "size 4",
        "[3, 4]");
    fails(IndexOutOfBoundsException.class, () -> a.select(0, -4), "select", "index -4", "size 3");
    fails(IndexOutOfBoundsException.class, () -> a.get(3), "select", "index 3", "size 3");
    fails(IndexOutOfBoundsException.class, () -> a.get(0, 9), "select", "index 9", "size 4");
    fails(
        IndexOutOfBoundsException.class,
        () -> a.narrow(1, 2, 3),
        "narrow",
        "start 2",
        "length 3",
        "size 4",
        "[3, 4]");
    fails(IndexOutOfBoundsException.class, () -> a.narrow(0, -4, 1), "narrow", "start -4");
    fails(IndexOutOfBoundsException.class, () -> a.narrow(0, 0, -1), "narrow", "length -1");
    fails(IllegalArgumentException.class, () -> a.slice(0, 0, 2, 0), "slice", "step", "0");
    fails(IllegalArgumentException.class, () -> a.slice(0, 0, 2, -1), "slice", "step", "-1");
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void expand(Device d) {
    Tensor v = f32(d, new float[] {1, 2, 3});
    fails(IllegalArgumentException.class, () -> v.expand(4), "expand", "size 3", "4", "[3]");
    fails(IllegalArgumentException.class, () -> v.expand(2, 4), "expand", "size 3", "4");
    fails(
        IllegalArgumentException.class,
        () -> m23(d).expand(3),
        "expand",
        "[3]",
        "fewer dimensions",
        "[2, 3]");
    fails(IllegalArgumentException.class, () -> v.expand(-1, 3), "expand", "-1");
    fails(
        IllegalArgumentException.class,
        () -> v.expandAs(Tensor.zeros(Shape.of(2, 2), d)),
        "expand",
        "size 3");
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void catAndStack(Device d) {
    Tensor a = m23(d);
    Tensor b = Tensor.zeros(Shape.of(2, 4), d);
    fails(
        IllegalArgumentException.class,
        () -> Tensor.cat(List.of(a, b), 0),
        "cat",
        "tensor 1",
        "[2, 4]",
        "[2, 3]",
        "dimension 0");
    fails(
        IllegalArgumentException.class,
        () -> Tensor.cat(List.of(a, f32(d, new float[] {1, 2, 3})), 0),
        "cat",
        "[3]",
        "[2, 3]",
        "number of dimensions");
    fails(IllegalArgumentException.class, () -> Tensor.cat(List.of(), 0), "cat", "non-empty");
    fails(
        IllegalArgumentException.class,
        () -> Tensor.stack(List.of(a, b), 0),
        "stack",
        "tensor 1",
        "[2, 4]",
        "[2, 3]");
    fails(
        IllegalArgumentException.class,
        () -> Tensor.stack(List.of(a, a.t()), 1),
        "stack",
        "[3, 2]",
        "[2, 3]");
    fails(IllegalArgumentException.class, () -> Tensor.stack(List.of(), 0), "stack", "non-empty");
  }

  // ---------------------------------------------------------------- indexing

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void indexDtypesAndShapes(Device d) {
    Tensor a = m23(d);
    fails(
        IllegalArgumentException.class,
        () -> a.gather(1, f32(d, new float[] {0, 1}, 2, 1)),
        "gather",
        "'index'",
        "int64",
        "float32");
    fails(
        IllegalArgumentException.class,
        () -> a.indexSelect(0, f32(d, new float[] {0})),
        "indexSelect",
        "'index'",
        "int64",
        "float32");
    fails(
        IllegalArgumentException.class,
        () -> Tensor.oneHot(f32(d, new float[] {0, 1}), 2),
        "oneHot",
        "'indices'",
        "int64");
    fails(
        IllegalArgumentException.class,
        () -> a.gather(1, i64(d, new long[] {0, 1})),
        "gather",
        "[2]",
        "[2, 3]");
    fails(
        IllegalArgumentException.class,
        () -> a.gather(1, i64(d, new long[] {0, 0, 0}, 3, 1)),
        "gather",
        "[3, 1]",
        "[2, 3]",
        "dimension 0");
    fails(
        IllegalArgumentException.class,
        () -> a.indexSelect(0, i64(d, new long[] {0, 1}, 1, 2)),
        "indexSelect",
        "1-d",
        "[1, 2]");
    fails(
        IllegalArgumentException.class,
        () -> Tensor.oneHot(i64(d, new long[] {0}), 0),
        "oneHot",
        "numClasses",
        "0");
  }

  /**
   * Runs an op whose index is out of range and reads its result: on the CPU the op itself throws;
   * on a CUDA device (emulated, or the CUDA backend's kernels reporting it) the error surfaces at
   * the next synchronisation, wrapping the original.
   */
  private static void outOfRange(Device d, Supplier<Tensor> op, String... parts) {
    if (d.isCpu()) {
      fails(IndexOutOfBoundsException.class, op::get, parts);
      return;
    }
    Tensor result = op.get();
    String m = fails(AsyncDeviceException.class, result::toFloatArray, parts);
    assertTrue(m.contains("on " + d.describe() + " failed"), m);
    // The error is reported once; the device works normally afterwards.
    assertEquals(3.0, Tensor.ones(Shape.of(3), d).sum().item());
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void gatherIndexOutOfRange(Device d) {
    Tensor a = m23(d);
    outOfRange(
        d,
        () -> a.gather(1, i64(d, new long[] {0, 5}, 2, 1)),
        "gather",
        "index 5",
        "dimension 1",
        "size 3",
        "'index'");
    outOfRange(
        d,
        () -> a.gather(0, i64(d, new long[] {-1, 0, 0}, 1, 3)),
        "gather",
        "index -1",
        "dimension 0",
        "size 2");
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void indexSelectIndexOutOfRange(Device d) {
    Tensor a = m23(d);
    outOfRange(
        d,
        () -> a.indexSelect(0, i64(d, new long[] {0, 2})),
        "indexSelect",
        "index 2",
        "dimension 0",
        "size 2");
    outOfRange(
        d,
        () -> a.indexSelect(1, i64(d, new long[] {-1})),
        "indexSelect",
        "index -1",
        "dimension 1",
        "size 3");
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void asyncErrorCarriesTheOriginalException(Device d) {
    if (d.isCpu()) {
      return;
    }
    Tensor bad = m23(d).gather(1, i64(d, new long[] {7, 0}, 2, 1));
    AsyncDeviceException e = assertThrows(AsyncDeviceException.class, () -> Cuda.synchronize(d));
    assertInstanceOf(IndexOutOfBoundsException.class, e.getCause());
    assertTrue(e.getMessage().contains(e.getCause().getMessage()), e.getMessage());
    assertTrue(e.getCause().getMessage().contains("gather: index 7"), e.getCause().getMessage());
    assertEquals(2, bad.numel());
    Cuda.synchronize(d);
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void oneHotOutOfRange(Device d) {
    if (d.isCpu()) {
      fails(
          IndexOutOfBoundsException.class,
          () -> Tensor.oneHot(i64(d, new long[] {0, 3}), 3),
          "oneHot",
          "class index 3",
          "3 classes");
      fails(
          IndexOutOfBoundsException.class,
          () -> Tensor.oneHot(i64(d, new long[] {-1}), 3),
          "oneHot",
          "class index -1");
      return;
    }
    // On a device the range is checked there, without a synchronisation, and fails at the next one.
    outOfRange(d, () -> Tensor.oneHot(i64(d, new long[] {0, 3}), 3), "indexSelect: index 3");
    outOfRange(
        d, () -> Tensor.oneHot(i64(d, new long[] {-1, 1}, 2, 1), 3), "indexSelect: index -1");
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void bernoulliProbabilitiesOutsideZeroToOne(Device d) {
    Tensor p = f32(d, new float[] {0.5f, 1.5f});
    if (d.isCpu()) {
      fails(IllegalArgumentException.class, () -> Tensor.bernoulli(p), "bernoulli", "1.5", "'p'");
    } else {
      Tensor draws = Tensor.bernoulli(p);
      fails(AsyncDeviceException.class, draws::toFloatArray, "bernoulli", "1.5", "'p'");
    }
    fails(
        IllegalArgumentException.class,
        () -> Tensor.bernoulli(i64(d, new long[] {0, 1})),
        "bernoulli",
        "'p'",
        "int64");
  }

  // ---------------------------------------------------------------- dtypes

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void dtypeErrors(Device d) {
    Tensor ints = i64(d, new long[] {1, 2, 3});
    fails(IllegalArgumentException.class, ints::mean, "mean", "floating-point", "int64");
    fails(IllegalArgumentException.class, () -> ints.mean(0), "mean", "int64");
    fails(
        IllegalArgumentException.class,
        () -> ints.var(new int[] {0}, true, false),
        "var",
        "'self'",
        "int64");
    fails(IllegalArgumentException.class, () -> ints.softmax(0), "softmax", "'self'", "int64");
    fails(
        IllegalArgumentException.class, () -> ints.logSoftmax(0), "logSoftmax", "'self'", "int64");
    fails(
        IllegalArgumentException.class,
        () -> Tensor.rand(Shape.of(2), DType.INT64, d, new Generator(1)),
        "rand",
        "int64");
    fails(
        IllegalArgumentException.class,
        () -> Tensor.randn(Shape.of(2), DType.BOOL, d, new Generator(1)),
        "randn",
        "bool");
    fails(
        IllegalArgumentException.class,
        () -> Tensor.where(ints, ints, ints),
        "where",
        "'condition'",
        "bool",
        "int64");
    fails(
        IllegalArgumentException.class,
        () -> ints.maskedFill(ints, 0),
        "maskedFill",
        "'mask'",
        "bool");
    fails(IllegalArgumentException.class, () -> Tensor.of(true).to(d).max(0, false), "max", "bool");
    fails(IllegalArgumentException.class, () -> ints.requiresGrad(true), "floating-point", "int64");
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void boolArithmetic(Device d) {
    Tensor b = Tensor.of(true, false).to(d);
    fails(IllegalArgumentException.class, () -> b.add(b), "add", "bool");
    fails(IllegalArgumentException.class, () -> b.sub(b), "sub", "bool");
    fails(IllegalArgumentException.class, () -> b.mul(b), "mul", "bool");
    fails(IllegalArgumentException.class, () -> b.maximum(b), "maximum", "bool");
    fails(IllegalArgumentException.class, b::neg, "neg", "bool");
    fails(IllegalArgumentException.class, b::exp, "exp", "bool");
    fails(IllegalArgumentException.class, () -> b.addi(b), "addi", "bool");
    fails(IllegalArgumentException.class, () -> b.muli(Tensor.of(true).to(d)), "muli", "bool");
    fails(IllegalArgumentException.class, () -> b.addi(1.0), "addi", "bool");
    fails(IllegalArgumentException.class, () -> b.muli(2.0), "muli", "bool");
    fails(
        IllegalArgumentException.class,
        () -> b.addi(i64(d, new long[] {1, 1})),
        "addi",
        "int64",
        "bool");
    // The device still works: nothing failed asynchronously.
    assertEquals(1L, b.sum().itemAsLong());
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void inPlaceResultTypeThatCannotBeStored(Device d) {
    Tensor ints = i64(d, new long[] {4, 6});
    fails(
        IllegalArgumentException.class,
        () -> ints.divi(i64(d, new long[] {2, 2})),
        "divi",
        "float32",
        "int64",
        "div");
    fails(IllegalArgumentException.class, () -> ints.divi(2.0), "divi", "int64");
    fails(IllegalArgumentException.class, () -> ints.addi(1.5), "addi", "int64");
    fails(
        IllegalArgumentException.class,
        () -> ints.addi(f32(d, new float[] {1, 1})),
        "addi",
        "float32",
        "int64");
    fails(
        IllegalArgumentException.class,
        () -> ints.muli(Tensor.scalar(0.5)),
        "muli",
        "float32",
        "int64");
    fails(
        IllegalArgumentException.class,
        () -> ints.addi(Tensor.of(new double[] {1}, Shape.scalar(), d)),
        "addi",
        "float64",
        "int64");
    // Nothing was written.
    Close.assertI64(ints, 4, 6);
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void inPlaceShapesAndAliasing(Device d) {
    Tensor v = f32(d, new float[] {1, 2, 3});
    fails(IllegalArgumentException.class, () -> v.addi(m23(d)), "addi", "[2, 3]", "[3]");
    fails(
        IllegalArgumentException.class,
        () -> v.addi(f32(d, new float[] {1, 2})),
        "addi",
        "[3]",
        "[2]");
    fails(IllegalArgumentException.class, () -> v.copyFrom(m23(d)), "copyFrom", "[2, 3]", "[3]");
    fails(
        IllegalArgumentException.class,
        () -> v.copyFrom(f32(d, new float[] {1, 2})),
        "copyFrom",
        "[2]",
        "[3]");
    Tensor expanded = v.expand(2, 3);
    fails(IllegalStateException.class, () -> expanded.addi(1.0), "addi", "expanded");
    fails(IllegalStateException.class, () -> expanded.fill(0), "fill", "expanded");
    assertF32(v, 1, 2, 3);
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void inPlaceOnALeafThatRequiresGrad(Device d) {
    Tensor w = f32(d, new float[] {1, 2, 3}).requiresGrad(true);
    fails(
        IllegalStateException.class,
        () -> w.addi(1.0),
        "addi",
        "leaf",
        "requires grad",
        "Autograd.noGrad()");
    fails(IllegalStateException.class, () -> w.subi(f32(d, new float[] {1, 1, 1})), "subi", "leaf");
    fails(IllegalStateException.class, () -> w.muli(2.0), "muli", "leaf");
    fails(IllegalStateException.class, () -> w.divi(2.0), "divi", "leaf");
    fails(IllegalStateException.class, () -> w.fill(0), "fill", "leaf");
    fails(
        IllegalStateException.class,
        () -> w.copyFrom(f32(d, new float[] {0, 0, 0})),
        "copyFrom",
        "leaf");
    // A view of it is not a leaf, and still may not be changed while gradients are recorded.
    fails(IllegalStateException.class, () -> w.select(0, 0).fill(0), "fill", "noGrad");
    // An operand that requires grad is refused too.
    fails(
        IllegalStateException.class, () -> f32(d, new float[] {0, 0, 0}).addi(w), "addi", "noGrad");
    assertF32(w.detach(), 1, 2, 3);
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      w.addi(1.0);
    }
    assertF32(w.detach(), 2, 3, 4);
  }

  // ---------------------------------------------------------------- values

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void clampWithMinAboveMax(Device d) {
    fails(
        IllegalArgumentException.class,
        () -> m23(d).clamp(2, 1),
        "clamp",
        "min (2.0)",
        "max (1.0)");
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void itemOfSeveralElements(Device d) {
    Tensor a = Tensor.zeros(Shape.of(2, 2), d);
    fails(IllegalStateException.class, a::item, "item", "4 elements", "[2, 2]");
    fails(IllegalStateException.class, a::itemAsLong, "itemAsLong", "4 elements", "[2, 2]");
    fails(IllegalStateException.class, a::itemAsBoolean, "item", "4 elements");
    fails(
        IllegalStateException.class,
        () -> Tensor.zeros(Shape.of(0), d).item(),
        "item",
        "0 elements",
        "[0]");
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void ofWithTheWrongCount(Device d) {
    fails(
        IllegalArgumentException.class,
        () -> Tensor.of(new float[] {1, 2, 3}, 2, 2),
        "of",
        "3 floats",
        "[2, 2]",
        "4 elements");
    fails(
        IllegalArgumentException.class,
        () -> Tensor.of(new float[] {1, 2, 3}, Shape.of(4), d),
        "of",
        "3 floats",
        "[4]");
    fails(
        IllegalArgumentException.class,
        () -> Tensor.of(new double[] {1}, Shape.of(2), d),
        "of",
        "1 doubles",
        "[2]");
    fails(
        IllegalArgumentException.class,
        () -> Tensor.of(new long[] {1, 2}, Shape.scalar(), d),
        "of",
        "2 longs",
        "[]");
    fails(
        IllegalArgumentException.class,
        () -> Tensor.of(new boolean[] {true}, 3),
        "of",
        "1 booleans",
        "[3]");
    fails(
        IllegalArgumentException.class,
        () -> Tensor.of(new float[][] {{1, 2}, {3}}),
        "of",
        "row 1",
        "1 elements",
        "2");
    fails(
        IllegalArgumentException.class,
        () -> Tensor.of(new double[][] {{1}, {2, 3}}),
        "of",
        "row 1");
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void negativeAndHugeSizes(Device d) {
    fails(IllegalArgumentException.class, () -> Tensor.zeros(2, -3), "negative", "-3", "[2, -3]");
    fails(IllegalArgumentException.class, () -> Tensor.ones(Shape.of(-1), d), "negative", "-1");
    fails(IllegalArgumentException.class, () -> Tensor.randn(-2, d), "negative", "-2");
    fails(IllegalArgumentException.class, () -> Tensor.eye(-1, d), "eye", "-1");
    fails(
        IllegalArgumentException.class,
        () -> Tensor.zeros(Shape.of(1L << 20, 1L << 20), d),
        "[1048576, 1048576]",
        "2^31 - 1");
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void arangeAndRandint(Device d) {
    fails(
        IllegalArgumentException.class,
        () -> Tensor.arange(0, 5, 0, DType.FLOAT32, d),
        "arange",
        "step",
        "0");
    fails(
        IllegalArgumentException.class,
        () -> Tensor.arange(0, 5, Double.NaN, DType.FLOAT32, d),
        "arange",
        "step",
        "NaN");
    fails(
        IllegalArgumentException.class,
        () -> Tensor.arange(5, 0, 1, DType.INT64, d),
        "arange",
        "5.0",
        "0.0",
        "step 1.0");
    fails(IllegalArgumentException.class, () -> Tensor.arange(-5), "arange", "-5");
    fails(
        IllegalArgumentException.class,
        () -> Tensor.randint(5, 5, Shape.of(2), d),
        "randint",
        "low (5)",
        "high (5)");
    fails(
        IllegalArgumentException.class,
        () -> Tensor.randint(7, 3, Shape.of(2), d),
        "randint",
        "low (7)",
        "high (3)");
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void reductionsWithoutIdentityOnEmptyInput(Device d) {
    Tensor e = Tensor.zeros(Shape.of(0, 3), d);
    fails(IllegalArgumentException.class, e::max, "max", "empty", "[0, 3]");
    fails(IllegalArgumentException.class, e::min, "min", "empty");
    fails(IllegalArgumentException.class, e::argmax, "argmax", "empty");
    fails(IllegalArgumentException.class, () -> e.argmin(0, false), "argmin", "empty");
    fails(IllegalArgumentException.class, () -> e.max(0, true), "max", "empty", "[0, 3]");
    // Over the non-empty dimension the result is simply empty.
    Close.shape(e.max(1, false).values(), 0);
    Close.shape(e.argmax(1, false), 0);
    Close.shape(e.sum(1), 0);
    assertEquals(0.0, e.sum().item());
  }
}
