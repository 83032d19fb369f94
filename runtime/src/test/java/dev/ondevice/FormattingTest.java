package dev.ondevice;

import static dev.ondevice.Close.f32;
import static dev.ondevice.Close.f64;
import static dev.ondevice.Close.i64;
import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** toString pinned to PyTorch's print format, with this runtime's suffixes. */
class FormattingTest {
  /** The device part of the suffix: nothing on the CPU. */
  private static String on(Device d) {
    return d.isCpu() ? "" : ", device='" + d.describe() + "'";
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void matrices(Device d) {
    Tensor m = Tensor.of(new float[][] {{1, 2}, {3, 4}}).to(d);
    assertEquals("tensor([[1., 2.],\n        [3., 4.]]" + on(d) + ")", m.toString());
    assertEquals("tensor([[1., 3.],\n        [2., 4.]]" + on(d) + ")", m.t().toString());
    Tensor three = Tensor.arange(1, 9, 1, DType.FLOAT32, d).reshape(2, 2, 2);
    assertEquals(
        "tensor([[[1., 2.],\n         [3., 4.]],\n\n        [[5., 6.],\n         [7., 8.]]]"
            + on(d)
            + ")",
        three.toString());
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void vectorsOfEachDtype(Device d) {
    assertEquals(
        "tensor([0.1000, 0.2500]" + on(d) + ")", f32(d, new float[] {0.1f, 0.25f}).toString());
    assertEquals("tensor([-1.,  2.]" + on(d) + ")", f32(d, new float[] {-1, 2}).toString());
    assertEquals(
        "tensor([1.5000, 2.2500]" + on(d) + ", dtype=float64)",
        f64(d, new double[] {1.5, 2.25}).toString());
    assertEquals("tensor([ 1, -2, 30]" + on(d) + ")", i64(d, new long[] {1, -2, 30}).toString());
    assertEquals("tensor([ True, False]" + on(d) + ")", Tensor.of(true, false).to(d).toString());
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void scalars(Device d) {
    assertEquals("tensor(3.5000" + on(d) + ")", Tensor.scalar(3.5, d).toString());
    assertEquals("tensor(3." + on(d) + ")", Tensor.scalar(3.0, d).toString());
    assertEquals("tensor(7" + on(d) + ")", Tensor.of(new long[] {7}, Shape.scalar(), d).toString());
    assertEquals("tensor(True" + on(d) + ")", Tensor.of(true).to(d).reshape().toString());
    assertEquals(
        "tensor(0.2500" + on(d) + ", dtype=float64)",
        Tensor.of(new double[] {0.25}, Shape.scalar(), d).toString());
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void scientificNotation(Device d) {
    assertEquals(
        "tensor([1.0000e-05, 1.0000e+00]" + on(d) + ")", f32(d, new float[] {1e-5f, 1}).toString());
    // Like PyTorch: integers spanning more than a factor 1000 print in scientific notation too ...
    assertEquals(
        "tensor([1.0000e+00, 2.0000e+03]" + on(d) + ")", f32(d, new float[] {1, 2000}).toString());
    assertEquals(
        "tensor([5.0000e-01, 6.0050e+02]" + on(d) + ")",
        f32(d, new float[] {0.5f, 600.5f}).toString());
    assertEquals("tensor([1.0000e+09]" + on(d) + ")", f32(d, new float[] {1e9f}).toString());
    // ... and up to 1e8 they do not.
    assertEquals("tensor([100000000.]" + on(d) + ")", f32(d, new float[] {1e8f}).toString());
    assertEquals("tensor([   1., 1000.]" + on(d) + ")", f32(d, new float[] {1, 1000}).toString());
    assertEquals("tensor([0., 5.]" + on(d) + ")", f32(d, new float[] {0, 5}).toString());
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void nonFiniteValues(Device d) {
    assertEquals(
        "tensor([1., nan, inf, -inf]" + on(d) + ")",
        f32(d, new float[] {1, Float.NaN, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY})
            .toString());
    assertEquals(
        "tensor([1.5000,    nan]" + on(d) + ")", f32(d, new float[] {1.5f, Float.NaN}).toString());
    assertEquals(
        "tensor([nan, nan]" + on(d) + ")", f32(d, new float[] {Float.NaN, Float.NaN}).toString());
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void emptyTensors(Device d) {
    assertEquals("tensor([]" + on(d) + ")", Tensor.zeros(Shape.of(0), d).toString());
    assertEquals(
        "tensor([]" + on(d) + ", dtype=int64)",
        Tensor.zeros(Shape.of(0), DType.INT64, d).toString());
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void summarisedBeyondAThousandElements(Device d) {
    assertEquals(
        "tensor([   0,    1,    2,  ..., 1997, 1998, 1999]" + on(d) + ")",
        Tensor.arange(0, 2000, d).toString());
    assertEquals(
        "tensor([[0., 0.],\n        [0., 0.],\n        [0., 0.],\n        ...,\n"
            + "        [0., 0.],\n        [0., 0.],\n        [0., 0.]]"
            + on(d)
            + ")",
        Tensor.zeros(Shape.of(1000, 2), d).toString());
    assertEquals(
        "tensor([[[0.]],\n\n        [[0.]],\n\n        [[0.]],\n\n        ...,\n\n"
            + "        [[0.]],\n\n        [[0.]],\n\n        [[0.]]]"
            + on(d)
            + ")",
        Tensor.zeros(Shape.of(1001, 1, 1), d).toString());
    String big = Tensor.arange(0, 1600, d).reshape(40, 40).toString();
    assertEquals(
        "tensor([[   0,    1,    2,  ...,   37,   38,   39],\n"
            + "        [  40,   41,   42,  ...,   77,   78,   79],\n"
            + "        [  80,   81,   82,  ...,  117,  118,  119],\n"
            + "        ...,\n"
            + "        [1480, 1481, 1482,  ..., 1517, 1518, 1519],\n"
            + "        [1520, 1521, 1522,  ..., 1557, 1558, 1559],\n"
            + "        [1560, 1561, 1562,  ..., 1597, 1598, 1599]]"
            + on(d)
            + ")",
        big);
    // At the threshold itself nothing is left out.
    String thousand = Tensor.zeros(Shape.of(1000), DType.INT64, d).toString();
    assertEquals(1000, thousand.split(",").length - (d.isCpu() ? 0 : 1));
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void gradientSuffixes(Device d) {
    Tensor w = f32(d, new float[] {1, 2}).requiresGrad(true);
    assertEquals("tensor([1., 2.]" + on(d) + ", requiresGrad=true)", w.toString());
    assertEquals("tensor([2., 4.]" + on(d) + ", gradFn=mul)", w.mul(2.0).toString());
    Tensor w64 = f64(d, new double[] {0.5}).requiresGrad(true);
    assertEquals("tensor([0.5000]" + on(d) + ", dtype=float64, requiresGrad=true)", w64.toString());
    assertEquals("tensor([1., 2.]" + on(d) + ")", w.detach().toString());
  }
}
