package dev.ondevice;

import static dev.ondevice.Close.assertBool;
import static dev.ondevice.Close.assertF32;
import static dev.ondevice.Close.assertF64;
import static dev.ondevice.Close.assertI64;
import static dev.ondevice.Close.f32;
import static dev.ondevice.Close.i64;
import static dev.ondevice.Close.meta;

import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** gather, indexSelect, oneHot, cat and stack. */
class IndexingTest {
  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void gather(Device d) {
    Tensor x = f32(d, new float[] {1, 2, 3, 4, 5, 6}, 2, 3);
    Tensor g1 = x.gather(1, i64(d, new long[] {2, 0, 1, 1}, 2, 2));
    meta(g1, DType.FLOAT32, d, 2, 2);
    assertF32(g1, 3, 1, 5, 5);
    assertF32(x.gather(-1, i64(d, new long[] {2, 0, 1, 1}, 2, 2)), 3, 1, 5, 5);
    Tensor g0 = x.gather(0, i64(d, new long[] {1, 0, 1}, 1, 3));
    meta(g0, DType.FLOAT32, d, 1, 3);
    assertF32(g0, 4, 2, 6);
    // The index may be larger than the input along the gathered dimension.
    assertF32(
        x.gather(0, i64(d, new long[] {1, 1, 0, 0, 1, 1, 0, 0, 0}, 3, 3)),
        4,
        5,
        3,
        1,
        5,
        6,
        1,
        2,
        3);
    // Class scores picked per row, as in a loss.
    Tensor labels = i64(d, new long[] {2, 0}).unsqueeze(1);
    assertF32(x.gather(1, labels).squeeze(1), 3, 4);
    // int64 input, transposed input, non-contiguous index.
    assertI64(
        Tensor.arange(0, 6, d).reshape(2, 3).gather(1, i64(d, new long[] {0, 0, 2, 1}, 2, 2)),
        0,
        0,
        5,
        4);
    assertF32(x.t().gather(0, i64(d, new long[] {1, 0}, 1, 2)), 2, 4);
    Tensor idx = i64(d, new long[] {0, 1, 2, 0, 1, 2}, 3, 2).t();
    assertF32(x.gather(1, idx), 1, 3, 2, 5, 4, 6);

    // 3-d against loops.
    float[] v = Close.uniform(41, 24, -1, 1);
    Tensor y = f32(d, v, 2, 3, 4);
    long[] index = {3, 0, 1, 1, 2, 2, 0, 3, 1, 0, 0, 2};
    Tensor gy = y.gather(2, i64(d, index, 2, 3, 2));
    double[] expected = new double[12];
    for (int i = 0; i < 2; i++) {
      for (int j = 0; j < 3; j++) {
        for (int k = 0; k < 2; k++) {
          expected[(i * 3 + j) * 2 + k] = v[(i * 3 + j) * 4 + (int) index[(i * 3 + j) * 2 + k]];
        }
      }
    }
    meta(gy, DType.FLOAT32, d, 2, 3, 2);
    assertF32(gy, expected);
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void indexSelect(Device d) {
    Tensor x = Tensor.arange(0, 12, 1, DType.FLOAT32, d).reshape(3, 4);
    Tensor rows = x.indexSelect(0, i64(d, new long[] {2, 0, 2}));
    meta(rows, DType.FLOAT32, d, 3, 4);
    assertF32(rows, 8, 9, 10, 11, 0, 1, 2, 3, 8, 9, 10, 11);
    Tensor cols = x.indexSelect(1, i64(d, new long[] {3, 1}));
    meta(cols, DType.FLOAT32, d, 3, 2);
    assertF32(cols, 3, 1, 7, 5, 11, 9);
    assertF32(x.indexSelect(-1, i64(d, new long[] {0})), 0, 4, 8);
    meta(x.indexSelect(0, Tensor.zeros(Shape.of(0), DType.INT64, d)), DType.FLOAT32, d, 0, 4);
    // Transposed input; other dtypes; a strided index.
    assertF32(x.t().indexSelect(0, i64(d, new long[] {1})), 1, 5, 9);
    assertI64(
        Tensor.arange(0, 6, d).reshape(2, 3).indexSelect(1, i64(d, new long[] {2, 2})), 2, 2, 5, 5);
    assertBool(
        Tensor.of(true, false, true).to(d).indexSelect(0, i64(d, new long[] {1, 0})), false, true);
    Tensor stepped = i64(d, new long[] {1, 9, 0, 9}).slice(0, 0, 4, 2);
    assertF32(x.indexSelect(0, stepped).select(1, 0), 4, 0);
    assertF64(x.to(DType.FLOAT64).indexSelect(1, i64(d, new long[] {1})), 1, 5, 9);
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void oneHot(Device d) {
    Tensor h = Tensor.oneHot(i64(d, new long[] {0, 2, 1}), 3);
    meta(h, DType.INT64, d, 3, 3);
    assertI64(h, 1, 0, 0, 0, 0, 1, 0, 1, 0);
    Tensor h2 = Tensor.oneHot(i64(d, new long[] {0, 1, 3, 2}, 2, 2), 4);
    meta(h2, DType.INT64, d, 2, 2, 4);
    assertI64(h2, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0);
    Tensor h0 = Tensor.oneHot(Tensor.of(new long[] {1}, Shape.scalar(), d), 2);
    meta(h0, DType.INT64, d, 2);
    assertI64(h0, 0, 1);
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void cat(Device d) {
    Tensor a = f32(d, new float[] {1, 2, 3, 4, 5, 6}, 2, 3);
    Tensor b = f32(d, new float[] {7, 8, 9}, 1, 3);
    Tensor c0 = Tensor.cat(List.of(a, b), 0);
    meta(c0, DType.FLOAT32, d, 3, 3);
    assertF32(c0, 1, 2, 3, 4, 5, 6, 7, 8, 9);
    Tensor col = f32(d, new float[] {10, 20}, 2, 1);
    Tensor c1 = Tensor.cat(List.of(col, a, col), 1);
    meta(c1, DType.FLOAT32, d, 2, 5);
    assertF32(c1, 10, 1, 2, 3, 10, 20, 4, 5, 6, 20);
    assertF32(Tensor.cat(List.of(a, col), -1), 1, 2, 3, 10, 4, 5, 6, 20);
    assertF32(Tensor.cat(List.of(f32(d, new float[] {1}), f32(d, new float[] {2, 3})), 0), 1, 2, 3);
    assertF32(Tensor.cat(List.of(a), 0), 1, 2, 3, 4, 5, 6);
    // Promotion: int64 with float32 gives float32; int64 with float64 gives float64.
    Tensor mixed = Tensor.cat(List.of(i64(d, new long[] {1, 2}), f32(d, new float[] {0.5f})), 0);
    meta(mixed, DType.FLOAT32, d, 3);
    assertF32(mixed, 1, 2, 0.5);
    Tensor mixed64 =
        Tensor.cat(
            List.of(f32(d, new float[] {1}), Tensor.of(new double[] {0.1}, Shape.of(1), d)), 0);
    meta(mixed64, DType.FLOAT64, d, 2);
    assertF64(mixed64, 1, 0.1);
    assertI64(Tensor.cat(List.of(i64(d, new long[] {1}), Tensor.of(true).to(d)), 0), 1, 1);
    // Non-contiguous inputs; an empty one.
    Tensor c2 = Tensor.cat(List.of(a.t(), b.t()), 1);
    meta(c2, DType.FLOAT32, d, 3, 3);
    assertF32(c2, 1, 4, 7, 2, 5, 8, 3, 6, 9);
    assertF32(Tensor.cat(List.of(Tensor.zeros(Shape.of(0, 3), d), b), 0), 7, 8, 9);
    // 3-d along the middle.
    Tensor x = Tensor.arange(0, 8, 1, DType.FLOAT32, d).reshape(2, 2, 2);
    Tensor y = Tensor.full(Shape.of(2, 1, 2), -1, d);
    Tensor c3 = Tensor.cat(List.of(x, y), 1);
    meta(c3, DType.FLOAT32, d, 2, 3, 2);
    assertF32(c3, 0, 1, 2, 3, -1, -1, 4, 5, 6, 7, -1, -1);
  }

  @ParameterizedTest
  @MethodSource("dev.ondevice.TestDevices#all")
  void stack(Device d) {
    Tensor a = f32(d, new float[] {1, 2, 3});
    Tensor b = f32(d, new float[] {4, 5, 6});
    Tensor s0 = Tensor.stack(List.of(a, b), 0);
    meta(s0, DType.FLOAT32, d, 2, 3);
    assertF32(s0, 1, 2, 3, 4, 5, 6);
    Tensor s1 = Tensor.stack(List.of(a, b), 1);
    meta(s1, DType.FLOAT32, d, 3, 2);
    assertF32(s1, 1, 4, 2, 5, 3, 6);
    assertF32(Tensor.stack(List.of(a, b), -1), 1, 4, 2, 5, 3, 6);
    assertF32(Tensor.stack(List.of(a, b, a), -2), 1, 2, 3, 4, 5, 6, 1, 2, 3);

    Tensor m = f32(d, new float[] {1, 2, 3, 4}, 2, 2);
    Tensor n = f32(d, new float[] {5, 6, 7, 8}, 2, 2);
    Tensor t1 = Tensor.stack(List.of(m, n), 1);
    meta(t1, DType.FLOAT32, d, 2, 2, 2);
    assertF32(t1, 1, 2, 5, 6, 3, 4, 7, 8);
    Tensor t2 = Tensor.stack(List.of(m, n), 2);
    meta(t2, DType.FLOAT32, d, 2, 2, 2);
    assertF32(t2, 1, 5, 2, 6, 3, 7, 4, 8);
    // 0-dim tensors stack into a vector; int64 stays int64.
    Tensor v = Tensor.stack(List.of(Tensor.scalar(1.0, d), Tensor.scalar(2.0, d)), 0);
    meta(v, DType.FLOAT32, d, 2);
    assertF32(v, 1, 2);
    assertI64(
        Tensor.stack(List.of(i64(d, new long[] {1, 2}), i64(d, new long[] {3, 4})), 1), 1, 3, 2, 4);
  }
}
