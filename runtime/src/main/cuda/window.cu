// Sliding-window kernels: im2col and col2im (convolution by matrix product) and max pooling with
// its gradient. One thread per output element.
#include "ondevice.cuh"

struct WindowGeometry { int height; int width; int kernelH; int kernelW; int strideH; int strideW; int padH; int padW; int outH; int outW; };

// d: [N, C, kh, kw, OH, OW]; in: strides of [N, C, H, W] in its first four.
struct UnfoldArgs { Dims d; View in; View out; WindowGeometry g; };
// d: [N, C, H, W]; cols: strides of [N, C, kh, kw, OH, OW].
struct FoldArgs { Dims d; View cols; View out; WindowGeometry g; };
// d: [N, C, OH, OW]; in: strides of [N, C, H, W].
struct MaxPoolArgs { Dims d; View in; View values; View indices; WindowGeometry g; };
// d: [N, C, OH, OW] of the gradient; out: strides of [N, C, H, W], zeroed beforehand.
struct MaxPoolBackwardArgs { Dims d; View grad; View indices; View out; ErrorSink err; int height; int width; };

template <typename T>
OD_DEVICE void unfold_impl(const UnfoldArgs& a) {
  int c[OD_MAX_DIMS];
  OD_GRID_STRIDE(t, a.d.numel) {
    od_coords(a.d, (int)t, c);
    int h = c[4] * a.g.strideH - a.g.padH + c[2];
    int w = c[5] * a.g.strideW - a.g.padW + c[3];
    T v = 0;
    if (h >= 0 && h < a.g.height && w >= 0 && w < a.g.width) {
      v = *od_at<T>(a.in, c[0] * a.in.strides[0] + c[1] * a.in.strides[1] + h * a.in.strides[2] + w * a.in.strides[3]);
    }
    *od_at<T>(a.out, od_offset(a.d, a.out, c)) = v;
  }
}
OD_KERNEL(unfold2d_f32, UnfoldArgs, false) { unfold_impl<float>(a); }
OD_KERNEL(unfold2d_f64, UnfoldArgs, false) { unfold_impl<double>(a); }

// The sum, over the kernel offsets (i, j) in order, of the column entries whose window covers (h, w).
template <typename T>
OD_DEVICE void fold_impl(const FoldArgs& a) {
  int c[OD_MAX_DIMS];
  const int* s = a.cols.strides;
  OD_GRID_STRIDE(t, a.d.numel) {
    od_coords(a.d, (int)t, c);
    int h = c[2], w = c[3];
    T sum = 0;
    int base = c[0] * s[0] + c[1] * s[1];
    for (int i = 0; i < a.g.kernelH; i++) {
      int hp = h + a.g.padH - i;
      if (hp < 0 || hp % a.g.strideH != 0) continue;
      int oh = hp / a.g.strideH;
      if (oh >= a.g.outH) continue;
      for (int j = 0; j < a.g.kernelW; j++) {
        int wp = w + a.g.padW - j;
        if (wp < 0 || wp % a.g.strideW != 0) continue;
        int ow = wp / a.g.strideW;
        if (ow >= a.g.outW) continue;
        sum += *od_at<T>(a.cols, base + i * s[2] + j * s[3] + oh * s[4] + ow * s[5]);
      }
    }
    *od_at<T>(a.out, od_offset(a.d, a.out, c)) = sum;
  }
}
OD_KERNEL(fold2d_f32, FoldArgs, false) { fold_impl<float>(a); }
OD_KERNEL(fold2d_f64, FoldArgs, false) { fold_impl<double>(a); }

// The CPU's scan: row-major over the window clipped to the plane; a larger value or any NaN takes
// over (so the first maximum, or the last NaN, wins); all -inf keeps the first position.
template <typename T>
OD_DEVICE void max_pool_impl(const MaxPoolArgs& a) {
  int c[OD_MAX_DIMS];
  OD_GRID_STRIDE(t, a.d.numel) {
    od_coords(a.d, (int)t, c);
    int h0 = c[2] * a.g.strideH - a.g.padH;
    int w0 = c[3] * a.g.strideW - a.g.padW;
    int r0 = h0 < 0 ? 0 : h0, r1 = min(h0 + a.g.kernelH, a.g.height);
    int c0 = w0 < 0 ? 0 : w0, c1 = min(w0 + a.g.kernelW, a.g.width);
    const T* plane = od_at<T>(a.in, c[0] * a.in.strides[0] + c[1] * a.in.strides[1]);
    T best = -INFINITY;
    i64 at = (i64)r0 * a.g.width + c0;
    for (int r = r0; r < r1; r++) {
      for (int q = c0; q < c1; q++) {
        T v = plane[r * a.in.strides[2] + q * a.in.strides[3]];
        if (v > best || v != v) {
          best = v;
          at = (i64)r * a.g.width + q;
        }
      }
    }
    *od_at<T>(a.values, od_offset(a.d, a.values, c)) = best;
    *od_at<i64>(a.indices, od_offset(a.d, a.indices, c)) = at;
  }
}
OD_KERNEL(max_pool2d_f32, MaxPoolArgs, false) { max_pool_impl<float>(a); }
OD_KERNEL(max_pool2d_f64, MaxPoolArgs, false) { max_pool_impl<double>(a); }

template <typename T>
OD_DEVICE void max_pool_backward_impl(const MaxPoolBackwardArgs& a) {
  int c[OD_MAX_DIMS];
  i64 limit = (i64)a.height * a.width;
  OD_GRID_STRIDE(t, a.d.numel) {
    od_coords(a.d, (int)t, c);
    i64 k = *od_at<i64>(a.indices, od_offset(a.d, a.indices, c));
    if (k < 0 || k >= limit) {
      od_report(a.err, OD_ERR_POSITION, OD_OP_MAX_POOL2D_BACKWARD, k, a.height, a.width);
      continue;
    }
    int h = (int)(k / a.width), w = (int)(k % a.width);
    T g = *od_at<T>(a.grad, od_offset(a.d, a.grad, c));
    atomicAdd(od_at<T>(a.out, c[0] * a.out.strides[0] + c[1] * a.out.strides[1] + h * a.out.strides[2]
                                  + w * a.out.strides[3]), g);
  }
}
OD_KERNEL(max_pool2d_backward_f32, MaxPoolBackwardArgs, false) { max_pool_backward_impl<float>(a); }
OD_KERNEL(max_pool2d_backward_f64, MaxPoolBackwardArgs, false) { max_pool_backward_impl<double>(a); }
