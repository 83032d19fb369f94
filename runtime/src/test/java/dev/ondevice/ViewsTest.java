package dev.ondevice;

import static dev.ondevice.Close.assertF32;
import static dev.ondevice.Close.assertF64;
import static dev.ondevice.Close.assertI64;
import static dev.ondevice.Close.contains;
import static dev.ondevice.Close.f32;
import static dev.ondevice.Close.message;
import static dev.ondevice.Close.meta;
import static dev.ondevice.Close.shape;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Views and copies: reshape, transpose, slicing, squeezing, expanding, and memory sharing. */
class ViewsTest {
  /** 0, 1, ..., n - 1 as float32 with the given shape. */
  private static Tensor range(Device d, long... shape) {
    long n = Shape.of(shape).numel();
    return Tensor.arange(0, (double) n, 1, DType.FLOAT32, d).reshape(shape);
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void reshapeAndView(Device d) {
    Tensor x = range(d, 2, 3, 4);
    Tensor v = x.view(4, 6);
    meta(v, DType.FLOAT32, d, 4, 6);
    assertArrayEquals(new long[] {6, 1}, v.strides());
    assertF32(v.select(0, 1), 6, 7, 8, 9, 10, 11);
    shape(x.view(-1), 24);
    shape(x.view(3, -1), 3, 8);
    shape(x.view(-1, 2, 2), 6, 2, 2);
    shape(x.reshape(-1, 12), 2, 12);
    shape(x.reshape(Shape.of(24)), 24);
    shape(x.reshape(1, 24, 1), 1, 24, 1);
    shape(Tensor.scalar(3.0, d).reshape(1), 1);
    shape(Tensor.scalar(3.0, d).view(1, 1), 1, 1);
    shape(Tensor.zeros(Shape.of(0, 4), d).reshape(-1, 2), 0, 2);
    shape(range(d, 1).reshape(), new long[0]);

    // A transposed tensor cannot be viewed flat ...
    Tensor t = range(d, 2, 3).t();
    String m = message(IllegalArgumentException.class, () -> t.view(6));
    contains(m, "view", "reshape", "[3, 2]");
    // ... but reshape copies it in its own row-major order.
    Tensor r = t.reshape(6);
    shape(r, 6);
    assertF32(r, 0, 3, 1, 4, 2, 5);
    // A view that keeps the strides' structure works on a transposed tensor.
    Tensor tv = t.view(3, 1, 2);
    assertF32(tv, 0, 3, 1, 4, 2, 5);
    assertF32(t.unsqueeze(0).view(3, 2), 0, 3, 1, 4, 2, 5);
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void transposePermuteAndT(Device d) {
    Tensor x = range(d, 2, 3);
    Tensor t = x.t();
    shape(t, 3, 2);
    assertArrayEquals(new long[] {1, 3}, t.strides());
    assertF32(t, 0, 3, 1, 4, 2, 5);
    assertF32(x.transpose(0, 1), 0, 3, 1, 4, 2, 5);
    assertF32(x.transpose(-1, -2), 0, 3, 1, 4, 2, 5);
    assertF32(x.transpose(1, 1), 0, 1, 2, 3, 4, 5);
    Tensor v = range(d, 3);
    assertSame(v, v.t(), "t() returns a vector as it is");

    Tensor y = range(d, 2, 3, 4);
    Tensor p = y.permute(2, 0, 1);
    shape(p, 4, 2, 3);
    assertArrayEquals(new long[] {1, 12, 4}, p.strides());
    double[] expected = new double[24];
    for (int k = 0; k < 4; k++) {
      for (int i = 0; i < 2; i++) {
        for (int j = 0; j < 3; j++) {
          expected[(k * 2 + i) * 3 + j] = i * 12 + j * 4 + k;
        }
      }
    }
    assertF32(p, expected);
    assertF32(y.permute(-1, 0, 1), expected);
    assertF32(y.permute(0, 1, 2), range(d, 24).toDoubleArray());
    assertF32(y.transpose(0, 2).transpose(0, 2), range(d, 24).toDoubleArray());
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void slice(Device d) {
    Tensor x = range(d, 10);
    assertF32(x.slice(0, 2, 5), 2, 3, 4);
    assertF32(x.slice(0, -4, -1), 6, 7, 8);
    assertF32(x.slice(0, -3, 10), 7, 8, 9);
    assertF32(x.slice(0, 1, 8, 3), 1, 4, 7);
    assertF32(x.slice(0, 0, 10, 4), 0, 4, 8);
    assertF32(x.slice(0, 7, 100), 7, 8, 9);
    assertF32(x.slice(0, -100, 2), 0, 1);
    shape(x.slice(0, 5, 2), 0);
    shape(x.slice(0, 10, 20), 0);
    assertArrayEquals(new long[] {3}, x.slice(0, 1, 8, 3).strides());

    Tensor m = range(d, 3, 4);
    Tensor s = m.slice(1, 1, 3);
    shape(s, 3, 2);
    assertF32(s, 1, 2, 5, 6, 9, 10);
    assertF32(m.slice(0, 1, 3).slice(1, -1, 4), 7, 11);
    assertF32(m.slice(-1, 0, 4, 2), 0, 2, 4, 6, 8, 10);
    assertF32(m.t().slice(0, 1, 2), 1, 5, 9);
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void narrowSelectAndGet(Device d) {
    Tensor m = range(d, 3, 4);
    assertF32(m.narrow(0, 1, 2), 4, 5, 6, 7, 8, 9, 10, 11);
    assertF32(m.narrow(1, 2, 2), 2, 3, 6, 7, 10, 11);
    assertF32(m.narrow(1, -2, 1), 2, 6, 10);
    shape(m.narrow(1, 4, 0), 3, 0);

    Tensor row = m.select(0, 1);
    shape(row, 4);
    assertF32(row, 4, 5, 6, 7);
    assertF32(m.select(1, 3), 3, 7, 11);
    assertF32(m.select(0, -1), 8, 9, 10, 11);
    assertF32(m.select(-1, -4), 0, 4, 8);

    Tensor e = m.get(2, 1);
    shape(e);
    assertEquals(9.0, e.item());
    assertF32(m.get(1), 4, 5, 6, 7);
    assertEquals(11.0, m.get(-1, -1).item());
    assertSame(m, m.get());
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void squeezeAndUnsqueeze(Device d) {
    Tensor x = range(d, 1, 3, 1, 2);
    shape(x.squeeze(), 3, 2);
    shape(x.squeeze(0), 3, 1, 2);
    shape(x.squeeze(2), 1, 3, 2);
    shape(x.squeeze(-2), 1, 3, 2);
    shape(x.squeeze(1), 1, 3, 1, 2);
    assertF32(x.squeeze(), 0, 1, 2, 3, 4, 5);
    shape(Tensor.scalar(1.0, d).squeeze());
    shape(range(d, 1, 1).squeeze());

    Tensor v = range(d, 3);
    shape(v.unsqueeze(0), 1, 3);
    shape(v.unsqueeze(1), 3, 1);
    shape(v.unsqueeze(-1), 3, 1);
    shape(v.unsqueeze(-2), 1, 3);
    shape(Tensor.scalar(1.0, d).unsqueeze(0), 1);
    assertF32(v.unsqueeze(1), 0, 1, 2);
    Tensor m = range(d, 2, 3).unsqueeze(1);
    shape(m, 2, 1, 3);
    assertF32(m.select(0, 1), 3, 4, 5);
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void expandAndExpandAs(Device d) {
    Tensor col = f32(d, new float[] {1, 2, 3}, 3, 1);
    Tensor e = col.expand(3, 4);
    shape(e, 3, 4);
    assertArrayEquals(new long[] {1, 0}, e.strides());
    assertF32(e, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3);
    shape(col.expand(2, 3, 2), 2, 3, 2);
    assertF32(col.expand(2, -1, 2), 1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3);
    Tensor row = f32(d, new float[] {5, 6});
    Tensor ea = row.expandAs(Tensor.zeros(Shape.of(3, 2), d));
    shape(ea, 3, 2);
    assertF32(ea, 5, 6, 5, 6, 5, 6);
    assertF32(Tensor.scalar(7.0, d).expand(2, 2), 7, 7, 7, 7);
    // Operating on an expanded tensor reads the repeated elements.
    assertEquals(24.0, e.sum().item());
    assertF32(e.add(1.0).sum(1), 8, 12, 16);
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void flatten(Device d) {
    Tensor x = range(d, 2, 3, 4);
    shape(x.flatten(), 24);
    shape(x.flatten(1, 2), 2, 12);
    shape(x.flatten(1), 2, 12);
    shape(x.flatten(-1), 2, 3, 4);
    shape(x.flatten(0, 1), 6, 4);
    shape(x.flatten(-2, -1), 2, 12);
    shape(x.flatten(1, 1), 2, 3, 4);
    shape(Tensor.scalar(1.0, d).flatten(), 1);
    assertF32(x.transpose(0, 2).flatten().slice(0, 0, 4), 0, 12, 4, 16);
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void contiguousCopiesOnlyWhenNeeded(Device d) {
    Tensor x = range(d, 2, 3);
    assertTrue(x.isContiguous());
    assertSame(x, x.contiguous());
    Tensor t = x.t();
    assertFalse(t.isContiguous());
    Tensor c = t.contiguous();
    assertNotSame(t, c);
    assertTrue(c.isContiguous());
    assertArrayEquals(new long[] {2, 1}, c.strides());
    assertF32(c, 0, 3, 1, 4, 2, 5);
    // The copy has its own memory.
    c.fill(0);
    assertF32(x, 0, 1, 2, 3, 4, 5);
    // Size-1 dimensions do not break contiguity.
    Tensor u = x.unsqueeze(1);
    assertSame(u, u.contiguous());
    Tensor stepped = range(d, 6).slice(0, 0, 6, 2);
    assertFalse(stepped.isContiguous());
    assertF32(stepped.contiguous(), 0, 2, 4);
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void cloneHasItsOwnMemory(Device d) {
    Tensor x = range(d, 2, 2);
    Tensor c = x.clone();
    assertNotSame(x, c);
    meta(c, DType.FLOAT32, d, 2, 2);
    c.addi(10.0);
    assertF32(x, 0, 1, 2, 3);
    assertF32(c, 10, 11, 12, 13);
    Tensor ct = x.t().clone();
    assertTrue(ct.isContiguous());
    assertF32(ct, 0, 2, 1, 3);
    Tensor i = Tensor.arange(0, 3, d).clone();
    assertI64(i, 0, 1, 2);
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void viewsShareMemoryWithTheirBase(Device d) {
    Tensor base = Tensor.zeros(Shape.of(3, 4), d);
    base.select(0, 1).fill(5);
    assertF32(base.select(0, 1), 5, 5, 5, 5);
    base.view(12).addi(1.0);
    assertF32(base.select(0, 0), 1, 1, 1, 1);
    base.t().select(0, 2).muli(2.0);
    assertF32(base.select(1, 2), 2, 12, 2);
    base.slice(1, 0, 4, 3).subi(1.0);
    assertF32(base, 0, 1, 2, 0, 5, 6, 12, 5, 0, 1, 2, 0);
    base.narrow(0, 2, 1).squeeze(0).unsqueeze(1).fill(-1);
    assertF32(base.select(0, 2), -1, -1, -1, -1);
    base.reshape(2, 6).select(0, 0).divi(2.0);
    assertF32(base.select(0, 0), 0, 0.5, 1, 0);
    base.get(1, 1).fill(9);
    assertEquals(9.0, base.get(1, 1).item());

    // The other way round: writing the base shows through an existing view.
    Tensor view = base.t();
    base.fill(3);
    assertEquals(36.0, view.sum().item());

    // A base that requires grad is changed through a view inside noGrad.
    Tensor w = Tensor.zeros(Shape.of(2, 3), d).requiresGrad(true);
    try (Autograd.Scope ignored = Autograd.noGrad()) {
      w.select(0, 1).fill(4);
      w.t().select(0, 0).addi(1.0);
    }
    assertF32(w.detach(), 1, 0, 0, 5, 4, 4);
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void copyFrom(Device d) {
    Tensor x = Tensor.zeros(Shape.of(2, 3), d);
    assertSame(x, x.copyFrom(f32(d, new float[] {1, 2, 3, 4, 5, 6}, 2, 3)));
    assertF32(x, 1, 2, 3, 4, 5, 6);
    // Broadcast.
    x.copyFrom(f32(d, new float[] {7, 8, 9}));
    assertF32(x, 7, 8, 9, 7, 8, 9);
    x.copyFrom(Tensor.scalar(0.5, d));
    assertF32(x, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5);
    // dtype conversion.
    x.copyFrom(Tensor.of(new double[] {0.1, 0.2, 0.3}, Shape.of(3), d));
    assertF32(x, 0.1f, 0.2f, 0.3f, 0.1f, 0.2f, 0.3f);
    x.copyFrom(Tensor.of(new long[] {1, 2, 3, 4, 5, 6}, Shape.of(2, 3), d));
    assertF32(x, 1, 2, 3, 4, 5, 6);
    Tensor i = Tensor.zeros(Shape.of(3), DType.INT64, d);
    i.copyFrom(f32(d, new float[] {-2.7f, 0.5f, 3.9f}));
    assertI64(i, -2, 0, 3);
    // Into a non-contiguous view: writes reach the base.
    Tensor y = Tensor.zeros(Shape.of(2, 3), d);
    y.t().copyFrom(f32(d, new float[] {1, 2, 3, 4, 5, 6}, 3, 2));
    assertF32(y, 1, 3, 5, 2, 4, 6);
    // From a non-contiguous source.
    Tensor z = Tensor.zeros(Shape.of(3, 2), d);
    z.copyFrom(f32(d, new float[] {1, 2, 3, 4, 5, 6}, 2, 3).t());
    assertF32(z, 1, 4, 2, 5, 3, 6);
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void copyFromAcrossDevices(Device d) {
    Device other = d.isCpu() ? Device.cuda(0) : Device.cpu();
    Tensor x = Tensor.zeros(Shape.of(2, 2), d);
    x.copyFrom(f32(other, new float[] {1, 2, 3, 4}, 2, 2));
    meta(x, DType.FLOAT32, d, 2, 2);
    assertF32(x, 1, 2, 3, 4);
    // Across devices with broadcasting and a dtype conversion at once.
    x.copyFrom(Tensor.of(new double[] {0.25, 0.5}, Shape.of(2), other));
    assertF32(x, 0.25, 0.5, 0.25, 0.5);
    Tensor l = Tensor.zeros(Shape.of(2), DType.FLOAT64, d);
    l.copyFrom(Tensor.of(new long[] {3, 4}, Shape.of(2), other));
    assertF64(l, 3, 4);
    // Between two emulated devices.
    Tensor c1 = Tensor.zeros(Shape.of(2), Device.cuda(1));
    c1.copyFrom(f32(d, new float[] {8, 9}));
    assertF32(c1, 8, 9);
    assertEquals(Device.cuda(1), c1.device());
  }
}
