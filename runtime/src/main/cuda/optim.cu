// The optimizers' fused updates, the arithmetic of OptimizerKernels (the CPU reference) element by
// element, in the parameter's dtype, with state below the smallest normal number flushed to zero.
#include "ondevice.cuh"

struct SgdArgs {
  Dims d; View param; View grad; View buf;
  double lr; double weightDecay; double momentum; double keep;
  int hasBuffer; int nesterov; int first;
};

struct AdamArgs {
  Dims d; View param; View grad; View expAvg; View expAvgSq; View maxExpAvgSq;
  double decay; double weightDecay; double beta1; double keep1; double beta2; double keep2;
  double eps; double stepSize; double correction2;
  int amsgrad; int flushSecond;
};

template <typename T> struct MinNormal;
template <> struct MinNormal<float> { static OD_DEVICE float value() { return 1.17549435e-38f; } };
template <> struct MinNormal<double> { static OD_DEVICE double value() { return 2.2250738585072014e-308; } };

template <typename T>
OD_DEVICE T od_flush(T v) { return fabs(v) < MinNormal<T>::value() ? (T)0 : v; }

template <typename T>
OD_DEVICE void sgd_impl(const SgdArgs& a) {
  T lr = (T)a.lr, wd = (T)a.weightDecay, m = (T)a.momentum, keep = (T)a.keep;
  int c[OD_MAX_DIMS];
  OD_GRID_STRIDE(t, a.d.numel) {
    od_coords(a.d, (int)t, c);
    T* p = od_at<T>(a.param, od_offset(a.d, a.param, c));
    T param = *p;
    T g = *od_at<T>(a.grad, od_offset(a.d, a.grad, c));
    T d = wd == 0 ? g : param * wd + g;
    if (a.hasBuffer) {
      T* b = od_at<T>(a.buf, od_offset(a.d, a.buf, c));
      T v = od_flush(a.first ? d : d * keep + *b * m);
      *b = v;
      d = a.nesterov ? v * m + d : v;
    }
    *p = d * -lr + param;
  }
}
OD_KERNEL(sgd_f32, SgdArgs, false) { sgd_impl<float>(a); }
OD_KERNEL(sgd_f64, SgdArgs, false) { sgd_impl<double>(a); }

template <typename T>
OD_DEVICE void adam_impl(const AdamArgs& a) {
  T decay = (T)a.decay, wd = (T)a.weightDecay, b1 = (T)a.beta1, c1 = (T)a.keep1, b2 = (T)a.beta2, c2 = (T)a.keep2;
  T eps = (T)a.eps, stepSize = (T)a.stepSize, correction2 = (T)a.correction2;
  int c[OD_MAX_DIMS];
  OD_GRID_STRIDE(t, a.d.numel) {
    od_coords(a.d, (int)t, c);
    T* p = od_at<T>(a.param, od_offset(a.d, a.param, c));
    T* mp = od_at<T>(a.expAvg, od_offset(a.d, a.expAvg, c));
    T* vp = od_at<T>(a.expAvgSq, od_offset(a.d, a.expAvgSq, c));
    T param = *p * decay;
    T g = *od_at<T>(a.grad, od_offset(a.d, a.grad, c));
    T grad = wd == 0 ? g : param * wd + g;
    T mean = od_flush(grad * c1 + *mp * b1);
    T second = grad * c2 * grad + *vp * b2;
    if (a.flushSecond) second = od_flush(second);
    *mp = mean;
    *vp = second;
    if (a.amsgrad) {
      T* xp = od_at<T>(a.maxExpAvgSq, od_offset(a.d, a.maxExpAvgSq, c));
      second = od_max(*xp, second);
      *xp = second;
    }
    T denominator = sqrt(second) / correction2 + eps;
    *p = -stepSize * (mean / denominator) + param;
  }
}
OD_KERNEL(adam_f32, AdamArgs, false) { adam_impl<float>(a); }
OD_KERNEL(adam_f64, AdamArgs, false) { adam_impl<double>(a); }
