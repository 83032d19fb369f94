// Reductions over dimensions and softmax. Each output element reduces a strided region of the
// input. Small regions (or many outputs) get one thread each; large ones are reduced by whole
// blocks, split into parts when there are few outputs, with the partial states combined in order
// by a second kernel. Floats are accumulated in double, as on the CPU.
#include "ondevice.cuh"

#define OD_REDUCE_THREADS 256

// The running state of one reduction. d: the double sum, product or best value; l: the same for
// int64 inputs; pos: the position of the best value (-1 before the first element).
struct ReduceState {
  double d;
  i64 l;
  i64 pos;
};

// kept: the output index space; in/out/values strides over it. red: the reduced index space;
// inRed: the input's strides over it. parts: how many ranges each output's region is split into.
// work: the partial states [parts][numOut] when parts > 1.
struct ReduceArgs {
  Dims kept;
  View in;
  View out;
  View values;
  Dims red;
  View inRed;
  ReduceState* work;
  int op;
  int parts;
  int hasValues;
  int count;
};

template <typename T> struct Acc;
template <> struct Acc<i64> { static const bool integer = true; };
template <> struct Acc<float> { static const bool integer = false; };
template <> struct Acc<double> { static const bool integer = false; };
template <> struct Acc<u8> { static const bool integer = false; };

OD_DEVICE bool od_is_max(int op) { return op == OD_MAX || op == OD_ARGMAX; }

OD_DEVICE ReduceState od_initial(int op) {
  ReduceState s;
  s.d = op == OD_PROD ? 1.0 : 0.0;
  s.l = op == OD_PROD ? 1 : 0;
  s.pos = -1;
  return s;
}

// Whether a candidate (value v at position p) beats the current best, with the CPU's rules: a NaN
// wins over numbers, then the larger (or smaller) value, then the earlier position.
OD_DEVICE bool od_beats_d(bool max, double v, i64 p, double best, i64 bestPos) {
  if (bestPos < 0) return true;
  bool vn = v != v, bn = best != best;
  if (vn || bn) return vn && (!bn || p < bestPos);
  if (v == best) return p < bestPos;
  return max ? v > best : v < best;
}
OD_DEVICE bool od_beats_l(bool max, i64 v, i64 p, i64 best, i64 bestPos) {
  if (bestPos < 0) return true;
  if (v == best) return p < bestPos;
  return max ? v > best : v < best;
}

template <typename T>
OD_DEVICE void od_add(int op, ReduceState& s, T x, i64 p) {
  switch (op) {
    case OD_SUM:
    case OD_MEAN:
      if (Acc<T>::integer) s.l = (i64)((u64)s.l + (u64)Conv<T>::toL(x)); else s.d += Conv<T>::toD(x);
      break;
    case OD_PROD:
      if (Acc<T>::integer) s.l = (i64)((u64)s.l * (u64)Conv<T>::toL(x)); else s.d *= Conv<T>::toD(x);
      break;
    default:
      if (Acc<T>::integer) {
        if (od_beats_l(od_is_max(op), Conv<T>::toL(x), p, s.l, s.pos)) { s.l = Conv<T>::toL(x); s.pos = p; }
      } else {
        if (od_beats_d(od_is_max(op), Conv<T>::toD(x), p, s.d, s.pos)) { s.d = Conv<T>::toD(x); s.pos = p; }
      }
  }
}

template <typename T>
OD_DEVICE void od_merge(int op, ReduceState& s, const ReduceState& o) {
  switch (op) {
    case OD_SUM:
    case OD_MEAN:
      if (Acc<T>::integer) s.l = (i64)((u64)s.l + (u64)o.l); else s.d += o.d;
      break;
    case OD_PROD:
      if (Acc<T>::integer) s.l = (i64)((u64)s.l * (u64)o.l); else s.d *= o.d;
      break;
    default:
      if (o.pos < 0) return;
      if (Acc<T>::integer) {
        if (od_beats_l(od_is_max(op), o.l, o.pos, s.l, s.pos)) s = o;
      } else {
        if (od_beats_d(od_is_max(op), o.d, o.pos, s.d, s.pos)) s = o;
      }
  }
}

template <typename O>
OD_DEVICE void od_store_double(const View& v, int off, double x) { *od_at<O>(v, off) = od_convert<double, O>(x); }
template <typename O>
OD_DEVICE void od_store_long(const View& v, int off, i64 x) { *od_at<O>(v, off) = od_convert<i64, O>(x); }

// Writes the result of one output: the value, or the position (and the value into `values`).
template <typename T, typename O>
OD_DEVICE void od_write(const ReduceArgs& a, const ReduceState& s, int j) {
  int c[OD_MAX_DIMS];
  od_coords(a.kept, j, c);
  int o = od_offset(a.kept, a.out, c);
  switch (a.op) {
    case OD_SUM:
    case OD_PROD:
      if (Acc<T>::integer) od_store_long<O>(a.out, o, s.l); else od_store_double<O>(a.out, o, s.d);
      break;
    case OD_MEAN:
      od_store_double<O>(a.out, o, (Acc<T>::integer ? (double)s.l : s.d) / a.count);
      break;
    case OD_MAX:
    case OD_MIN:
      if (Acc<T>::integer) od_store_long<O>(a.out, o, s.l); else od_store_double<O>(a.out, o, s.d);
      break;
    default:
      *od_at<i64>(a.out, o) = s.pos;
      if (a.hasValues) {
        int v = od_offset(a.kept, a.values, c);
        if (Acc<T>::integer) *od_at<T>(a.values, v) = Conv<T>::fromL(s.l);
        else *od_at<T>(a.values, v) = Conv<T>::fromD(s.d);
      }
  }
}

// The state of output j over reduced positions [from, to), stepping by `step`.
template <typename T>
OD_DEVICE ReduceState od_scan(const ReduceArgs& a, const char* base, int from, int to, int step) {
  ReduceState s = od_initial(a.op);
  int c[OD_MAX_DIMS];
  for (int r = from; r < to; r += step) {
    od_coords(a.red, r, c);
    T x = *(reinterpret_cast<const T*>(base) + od_offset(a.red, a.inRed, c));
    od_add<T>(a.op, s, x, r);
  }
  return s;
}

OD_DEVICE const char* od_output_base(const ReduceArgs& a, int j, int elementSize) {
  int c[OD_MAX_DIMS];
  od_coords(a.kept, j, c);
  return a.in.data + (i64)od_offset(a.kept, a.in, c) * elementSize;
}

// One thread per output.
template <typename T, typename O>
OD_DEVICE void reduce_rows(const ReduceArgs& a) {
  OD_GRID_STRIDE(t, a.kept.numel) {
    int j = (int)t;
    ReduceState s = od_scan<T>(a, od_output_base(a, j, sizeof(T)), 0, a.red.numel, 1);
    od_write<T, O>(a, s, j);
  }
}

// One block per (output, part): blockIdx.x = part * numOut + output.
template <typename T, typename O>
OD_DEVICE void reduce_blocks(const ReduceArgs& a) {
  __shared__ ReduceState shared[OD_REDUCE_THREADS];
  int numOut = a.kept.numel;
  for (i64 b = blockIdx.x; b < (i64)numOut * a.parts; b += gridDim.x) {
    int j = (int)(b % numOut);
    int part = (int)(b / numOut);
    int lo = (int)((i64)a.red.numel * part / a.parts);
    int hi = (int)((i64)a.red.numel * (part + 1) / a.parts);
    shared[threadIdx.x] = od_scan<T>(a, od_output_base(a, j, sizeof(T)), lo + threadIdx.x, hi, blockDim.x);
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half /= 2) {
      if (threadIdx.x < half) {
        ReduceState other = shared[threadIdx.x + half];
        od_merge<T>(a.op, shared[threadIdx.x], other);
      }
      __syncthreads();
    }
    if (threadIdx.x == 0) {
      if (a.parts == 1) {
        od_write<T, O>(a, shared[0], j);
      } else {
        a.work[(i64)part * numOut + j] = shared[0];
      }
    }
    __syncthreads();
  }
}

// Combines the parts of each output in order.
template <typename T, typename O>
OD_DEVICE void reduce_finish(const ReduceArgs& a) {
  OD_GRID_STRIDE(t, a.kept.numel) {
    int j = (int)t;
    ReduceState s = a.work[j];
    for (int p = 1; p < a.parts; p++) {
      od_merge<T>(a.op, s, a.work[(i64)p * a.kept.numel + j]);
    }
    od_write<T, O>(a, s, j);
  }
}

#define OD_REDUCE(tn, T, on, O)                                                                  \
  OD_KERNEL(reduce_rows_##tn, ReduceArgs, false) { reduce_rows<T, O>(a); }                       \
  OD_KERNEL(reduce_blocks_##tn, ReduceArgs, true) { reduce_blocks<T, O>(a); }                    \
  OD_KERNEL(reduce_finish_##tn, ReduceArgs, false) { reduce_finish<T, O>(a); }
// The output has the input's type (index reductions write int64 positions whatever it is); the
// Java side converts through a temporary for any other pairing.
OD_REDUCE(i64, i64, i64, i64)
OD_REDUCE(f32, float, f32, float)
OD_REDUCE(f64, double, f64, double)

// ---------------------------------------------------------------- softmax

#define OD_SOFTMAX_THREADS 128

// lines = outer * inner lines of `size` elements; line (o, i) starts at in offset
// outerOff(o) + innerOff(i) and steps by `step`; the output is contiguous.
struct SoftmaxArgs {
  Dims outer;
  View inOuter;
  Dims inner;
  View inInner;
  View out;
  int size;
  int step;
  int log;
};

template <typename T>
OD_DEVICE void softmax_impl(const SoftmaxArgs& a) {
  __shared__ double shared[OD_SOFTMAX_THREADS];
  int lines = a.outer.numel * a.inner.numel;
  int c[OD_MAX_DIMS];
  for (int line = blockIdx.x; line < lines; line += gridDim.x) {
    int o = line / a.inner.numel;
    int i = line % a.inner.numel;
    od_coords(a.outer, o, c);
    int base = od_offset(a.outer, a.inOuter, c);
    od_coords(a.inner, i, c);
    base += od_offset(a.inner, a.inInner, c);
    const T* in = od_at<T>(a.inInner, base);
    double max = -INFINITY;
    for (int j = threadIdx.x; j < a.size; j += blockDim.x) {
      double v = in[(i64)j * a.step];
      if (v > max || v != v) max = v;
    }
    shared[threadIdx.x] = max;
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half /= 2) {
      if (threadIdx.x < half) {
        double other = shared[threadIdx.x + half];
        double mine = shared[threadIdx.x];
        if (other > mine || other != other) shared[threadIdx.x] = other;
      }
      __syncthreads();
    }
    max = shared[0];
    if (max == -INFINITY) max = 0;
    __syncthreads();
    double sum = 0;
    for (int j = threadIdx.x; j < a.size; j += blockDim.x) {
      sum += exp((double)in[(i64)j * a.step] - max);
    }
    shared[threadIdx.x] = sum;
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half /= 2) {
      if (threadIdx.x < half) shared[threadIdx.x] += shared[threadIdx.x + half];
      __syncthreads();
    }
    sum = shared[0];
    double logSum = log(sum);
    T* out = od_at<T>(a.out, 0) + (i64)o * a.size * a.inner.numel + i;
    for (int j = threadIdx.x; j < a.size; j += blockDim.x) {
      double x = (double)in[(i64)j * a.step] - max;
      out[(i64)j * a.inner.numel] = (T)(a.log ? x - logSum : exp(x) / sum);
    }
    __syncthreads();
  }
}
OD_KERNEL(softmax_f32, SoftmaxArgs, true) { softmax_impl<float>(a); }
OD_KERNEL(softmax_f64, SoftmaxArgs, true) { softmax_impl<double>(a); }
