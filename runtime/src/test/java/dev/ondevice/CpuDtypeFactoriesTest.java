package dev.ondevice;

import static dev.ondevice.Close.assertBool;
import static dev.ondevice.Close.assertF32;
import static dev.ondevice.Close.assertF64;
import static dev.ondevice.Close.assertI64;
import static dev.ondevice.Close.meta;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The factories PyTorch calls with a dtype and no device ({@code torch.zeros(2, 3,
 * dtype=torch.int64)}), and {@code torch.eye(n)}: each makes its tensor on the CPU, as the overload
 * with {@code Device.cpu()} does.
 */
class CpuDtypeFactoriesTest {
  private static final Device CPU = Device.cpu();

  @Test
  void zerosOnesAndFullOfADtype() {
    Tensor zeros = Tensor.zeros(Shape.of(2, 3), DType.INT64);
    meta(zeros, DType.INT64, CPU, 2, 3);
    assertI64(zeros, 0, 0, 0, 0, 0, 0);
    assertBool(Tensor.zeros(Shape.of(2), DType.BOOL), false, false);

    Tensor ones = Tensor.ones(Shape.of(3), DType.FLOAT64);
    meta(ones, DType.FLOAT64, CPU, 3);
    assertF64(ones, 1, 1, 1);
    assertBool(Tensor.ones(Shape.of(2), DType.BOOL), true, true);

    Tensor full = Tensor.full(Shape.of(2, 2), 7.5, DType.FLOAT64);
    meta(full, DType.FLOAT64, CPU, 2, 2);
    assertF64(full, 7.5, 7.5, 7.5, 7.5);
    assertI64(Tensor.full(Shape.of(2), -3, DType.INT64), -3, -3);

    meta(Tensor.zeros(Shape.scalar(), DType.INT64), DType.INT64, CPU);
    meta(Tensor.ones(Shape.of(0, 4), DType.FLOAT32), DType.FLOAT32, CPU, 0, 4);
  }

  @Test
  void emptyOfADtype() {
    Tensor t = Tensor.empty(Shape.of(4, 2), DType.INT64);
    meta(t, DType.INT64, CPU, 4, 2);
    assertEquals(8, t.toLongArray().length);
  }

  @Test
  void eyeAndArangeOfADtype() {
    Tensor eye = Tensor.eye(3);
    meta(eye, DType.FLOAT32, CPU, 3, 3);
    assertF32(eye, 1, 0, 0, 0, 1, 0, 0, 0, 1);

    Tensor steps = Tensor.arange(0, 1, 0.25, DType.FLOAT64);
    meta(steps, DType.FLOAT64, CPU, 4);
    assertF64(steps, 0, 0.25, 0.5, 0.75);
    assertI64(Tensor.arange(2, 11, 3, DType.INT64), 2, 5, 8);
  }

  @Test
  void randAndRandnOfADtypeDrawFromTheDefaultGeneratorAsTheDeviceOverloadsDo() {
    Generator.manualSeed(7);
    Tensor rand = Tensor.rand(Shape.of(5), DType.FLOAT64);
    Tensor randn = Tensor.randn(Shape.of(2, 3), DType.FLOAT64);
    Generator.manualSeed(7);
    Tensor randOnCpu = Tensor.rand(Shape.of(5), DType.FLOAT64, CPU, Generator.defaultGenerator());
    Tensor randnOnCpu =
        Tensor.randn(Shape.of(2, 3), DType.FLOAT64, CPU, Generator.defaultGenerator());

    meta(rand, DType.FLOAT64, CPU, 5);
    meta(randn, DType.FLOAT64, CPU, 2, 3);
    assertArrayEquals(randOnCpu.toDoubleArray(), rand.toDoubleArray());
    assertArrayEquals(randnOnCpu.toDoubleArray(), randn.toDoubleArray());
    for (double v : rand.toDoubleArray()) {
      assertTrue(v >= 0 && v < 1, "uniform on [0, 1): " + v);
    }
  }

  @Test
  void randOfAnIntegerDtypeIsRefusedByName() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> Tensor.rand(Shape.of(2), DType.INT64));
    assertEquals("rand: dtype must be float32 or float64, got int64", e.getMessage());
    IllegalArgumentException n =
        assertThrows(IllegalArgumentException.class, () -> Tensor.randn(Shape.of(2), DType.BOOL));
    assertEquals("randn: dtype must be float32 or float64, got bool", n.getMessage());
  }
}
