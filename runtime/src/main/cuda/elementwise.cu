// Elementwise kernels: fill, copy with dtype conversion, unary and binary functions, where, the
// fused add and relu gradient, arange and the counter-based random draws. One thread per element
// over a grid-stride loop; operands are strided views over a coalesced index space.
#include "ondevice.cuh"

// ---------------------------------------------------------------- math, as the CPU computes it

OD_DEVICE float od_exp(float x) { return expf(x); }
OD_DEVICE double od_exp(double x) { return exp(x); }

template <typename T>
OD_DEVICE T unary_floating(int op, T x) {
  switch (op) {
    case OD_NEG: return -x;
    case OD_ABS: return fabs(x);
    case OD_SIGN: return x > 0 ? (T)1 : x < 0 ? (T)-1 : x;
    case OD_SQUARE: return x * x;
    case OD_RELU: return x > 0 || x != x ? x : (T)0;
    case OD_EXP: return od_exp(x);
    case OD_LOG: return log(x);
    case OD_LOG1P: return log1p(x);
    case OD_EXPM1: return expm1(x);
    case OD_SQRT: return sqrt(x);
    case OD_RSQRT: return (T)1 / sqrt(x);
    case OD_RECIPROCAL: return (T)1 / x;
    case OD_SIN: return sin(x);
    case OD_COS: return cos(x);
    case OD_TANH: return tanh(x);
    case OD_SIGMOID: return x >= 0 ? (T)1 / ((T)1 + od_exp(-x)) : od_exp(x) / ((T)1 + od_exp(x));
    case OD_ERF: return erf(x);
    case OD_FLOOR: return floor(x);
    case OD_CEIL: return ceil(x);
    case OD_ROUND: return rint(x);
    default: return x;
  }
}

OD_DEVICE i64 od_wrap_neg(i64 x) { return (i64)(0ULL - (u64)x); }
OD_DEVICE i64 od_wrap_mul(i64 x, i64 y) { return (i64)((u64)x * (u64)y); }

OD_DEVICE i64 unary_integer(int op, i64 x) {
  switch (op) {
    case OD_NEG: return od_wrap_neg(x);
    case OD_ABS: return x < 0 ? od_wrap_neg(x) : x;
    case OD_SIGN: return x > 0 ? 1 : x < 0 ? -1 : 0;
    case OD_SQUARE: return od_wrap_mul(x, x);
    case OD_RELU: return x > 0 ? x : 0;
    default: return x;
  }
}

OD_DEVICE float unary_of(int op, float x) { return unary_floating<float>(op, x); }
OD_DEVICE double unary_of(int op, double x) { return unary_floating<double>(op, x); }
OD_DEVICE i64 unary_of(int op, i64 x) { return unary_integer(op, x); }

// Java's Math.pow, which differs from C's pow where the exponent is NaN, and for (+-1)^(+-inf).
template <typename T>
OD_DEVICE T od_pow(T x, T y) {
  if (y != y) return y;
  if ((x == (T)1 || x == (T)-1) && isinf(y)) return y - y;
  return pow(x, y);
}

// x^y for integers by repeated squaring, wrapping; a negative exponent truncates towards zero.
OD_DEVICE i64 od_ipow(i64 x, i64 y) {
  if (y < 0) return x == 1 ? 1 : x == -1 ? ((y & 1) != 0 ? -1 : 1) : 0;
  i64 result = 1;
  for (i64 base = x, e = y; e > 0; e >>= 1, base = od_wrap_mul(base, base)) {
    if ((e & 1) != 0) result = od_wrap_mul(result, base);
  }
  return result;
}

template <typename T>
OD_DEVICE T binary_floating(int op, T x, T y) {
  switch (op) {
    case OD_ADD: return x + y;
    case OD_SUB: return x - y;
    case OD_MUL: return x * y;
    case OD_DIV: return x / y;
    case OD_POW: return od_pow(x, y);
    case OD_MAXIMUM: return od_max(x, y);
    default: return od_min(x, y);
  }
}

OD_DEVICE i64 binary_integer(int op, i64 x, i64 y) {
  switch (op) {
    case OD_ADD: return (i64)((u64)x + (u64)y);
    case OD_SUB: return (i64)((u64)x - (u64)y);
    case OD_MUL: return od_wrap_mul(x, y);
    case OD_POW: return od_ipow(x, y);
    case OD_MAXIMUM: return x > y ? x : y;
    default: return x < y ? x : y;
  }
}

OD_DEVICE float binary_of(int op, float x, float y) { return binary_floating<float>(op, x, y); }
OD_DEVICE double binary_of(int op, double x, double y) { return binary_floating<double>(op, x, y); }
OD_DEVICE i64 binary_of(int op, i64 x, i64 y) { return binary_integer(op, x, y); }
OD_DEVICE u8 binary_of(int op, u8 x, u8 y) { return x; }

// Comparisons: floats compared as doubles, integers and booleans as longs.
template <typename T>
OD_DEVICE bool compare(int op, T xv, T yv) {
  if (op >= OD_LOGICAL_AND) {
    bool x = xv != 0;
    bool y = yv != 0;
    return op == OD_LOGICAL_AND ? (x && y) : op == OD_LOGICAL_OR ? (x || y) : (x != y);
  }
  switch (op) {
    case OD_EQ: return xv == yv;
    case OD_NE: return xv != yv;
    case OD_LT: return xv < yv;
    case OD_LE: return xv <= yv;
    case OD_GT: return xv > yv;
    default: return xv >= yv;
  }
}

// ---------------------------------------------------------------- argument structs

struct FillArgs { Dims d; View out; double value; };
struct CopyArgs { Dims d; View in; View out; };
struct UnaryArgs { Dims d; View in; View out; int op; };
struct BinaryArgs { Dims d; View x; View y; View out; int op; };
struct BinaryScalarArgs { Dims d; View x; View out; double scalar; int op; int scalarFirst; };
struct WhereArgs { Dims d; View cond; View x; View y; View out; };
struct ScaledAddArgs { Dims d; View target; View other; double alpha; };
struct ReluBackwardArgs { Dims d; View grad; View output; View out; };
struct ArangeArgs { Dims d; View out; double start; double step; };
struct RandomArgs { Dims d; View out; double a; double b; i64 seed; i64 counter; int kind; };
struct BernoulliArgs { Dims d; View p; View out; i64 seed; i64 counter; ErrorSink err; };

// ---------------------------------------------------------------- kernels

template <typename T>
OD_DEVICE void fill_impl(const FillArgs& a) {
  T v = od_convert<double, T>(a.value);
  int c[OD_MAX_DIMS];
  OD_GRID_STRIDE(t, a.d.numel) {
    od_coords(a.d, (int)t, c);
    *od_at<T>(a.out, od_offset(a.d, a.out, c)) = v;
  }
}
template <> OD_DEVICE void fill_impl<i64>(const FillArgs& a) {
  i64 v = od_d2l(a.value);
  int c[OD_MAX_DIMS];
  OD_GRID_STRIDE(t, a.d.numel) {
    od_coords(a.d, (int)t, c);
    *od_at<i64>(a.out, od_offset(a.d, a.out, c)) = v;
  }
}
OD_KERNEL(fill_bool, FillArgs, false) { fill_impl<u8>(a); }
OD_KERNEL(fill_i64, FillArgs, false) { fill_impl<i64>(a); }
OD_KERNEL(fill_f32, FillArgs, false) { fill_impl<float>(a); }
OD_KERNEL(fill_f64, FillArgs, false) { fill_impl<double>(a); }

template <typename S, typename D>
OD_DEVICE void copy_impl(const CopyArgs& a) {
  int c[OD_MAX_DIMS];
  OD_GRID_STRIDE(t, a.d.numel) {
    od_coords(a.d, (int)t, c);
    *od_at<D>(a.out, od_offset(a.d, a.out, c)) = od_convert<S, D>(*od_at<S>(a.in, od_offset(a.d, a.in, c)));
  }
}
#define OD_COPY(sn, S, dn, D) OD_KERNEL(copy_##sn##_##dn, CopyArgs, false) { copy_impl<S, D>(a); }
#define OD_COPY_FROM(sn, S) \
  OD_COPY(sn, S, bool, u8) OD_COPY(sn, S, i64, i64) OD_COPY(sn, S, f32, float) OD_COPY(sn, S, f64, double)
OD_COPY_FROM(bool, u8)
OD_COPY_FROM(i64, i64)
OD_COPY_FROM(f32, float)
OD_COPY_FROM(f64, double)

template <typename T>
OD_DEVICE void unary_impl(const UnaryArgs& a) {
  int c[OD_MAX_DIMS];
  OD_GRID_STRIDE(t, a.d.numel) {
    od_coords(a.d, (int)t, c);
    T x = *od_at<T>(a.in, od_offset(a.d, a.in, c));
    *od_at<T>(a.out, od_offset(a.d, a.out, c)) = unary_of(a.op, x);
  }
}
OD_KERNEL(unary_i64, UnaryArgs, false) { unary_impl<i64>(a); }
OD_KERNEL(unary_f32, UnaryArgs, false) { unary_impl<float>(a); }
OD_KERNEL(unary_f64, UnaryArgs, false) { unary_impl<double>(a); }

OD_KERNEL(logical_not, UnaryArgs, false) {
  int c[OD_MAX_DIMS];
  OD_GRID_STRIDE(t, a.d.numel) {
    od_coords(a.d, (int)t, c);
    u8 x = *od_at<u8>(a.in, od_offset(a.d, a.in, c));
    *od_at<u8>(a.out, od_offset(a.d, a.out, c)) = x == 0 ? 1 : 0;
  }
}

template <typename T>
OD_DEVICE void binary_impl(const BinaryArgs& a) {
  int c[OD_MAX_DIMS];
  bool comparison = a.op >= OD_EQ;
  OD_GRID_STRIDE(t, a.d.numel) {
    od_coords(a.d, (int)t, c);
    T x = *od_at<T>(a.x, od_offset(a.d, a.x, c));
    T y = *od_at<T>(a.y, od_offset(a.d, a.y, c));
    int o = od_offset(a.d, a.out, c);
    if (comparison) {
      *od_at<u8>(a.out, o) = compare(a.op, x, y) ? 1 : 0;
    } else {
      *od_at<T>(a.out, o) = binary_of(a.op, x, y);
    }
  }
}
OD_KERNEL(binary_bool, BinaryArgs, false) { binary_impl<u8>(a); }
OD_KERNEL(binary_i64, BinaryArgs, false) { binary_impl<i64>(a); }
OD_KERNEL(binary_f32, BinaryArgs, false) { binary_impl<float>(a); }
OD_KERNEL(binary_f64, BinaryArgs, false) { binary_impl<double>(a); }

// The scalar is converted to the operand's dtype first, as the CPU fills a 0-dim cell with it.
template <typename T>
OD_DEVICE void binary_scalar_impl(const BinaryScalarArgs& a) {
  int c[OD_MAX_DIMS];
  bool comparison = a.op >= OD_EQ;
  T s = od_convert<double, T>(a.scalar);
  OD_GRID_STRIDE(t, a.d.numel) {
    od_coords(a.d, (int)t, c);
    T v = *od_at<T>(a.x, od_offset(a.d, a.x, c));
    T x = a.scalarFirst ? s : v;
    T y = a.scalarFirst ? v : s;
    int o = od_offset(a.d, a.out, c);
    if (comparison) {
      *od_at<u8>(a.out, o) = compare(a.op, x, y) ? 1 : 0;
    } else {
      *od_at<T>(a.out, o) = binary_of(a.op, x, y);
    }
  }
}
OD_KERNEL(binary_scalar_bool, BinaryScalarArgs, false) { binary_scalar_impl<u8>(a); }
OD_KERNEL(binary_scalar_i64, BinaryScalarArgs, false) { binary_scalar_impl<i64>(a); }
OD_KERNEL(binary_scalar_f32, BinaryScalarArgs, false) { binary_scalar_impl<float>(a); }
OD_KERNEL(binary_scalar_f64, BinaryScalarArgs, false) { binary_scalar_impl<double>(a); }

template <typename T>
OD_DEVICE void where_impl(const WhereArgs& a) {
  int c[OD_MAX_DIMS];
  OD_GRID_STRIDE(t, a.d.numel) {
    od_coords(a.d, (int)t, c);
    bool pick = *od_at<u8>(a.cond, od_offset(a.d, a.cond, c)) != 0;
    T v = pick ? *od_at<T>(a.x, od_offset(a.d, a.x, c)) : *od_at<T>(a.y, od_offset(a.d, a.y, c));
    *od_at<T>(a.out, od_offset(a.d, a.out, c)) = v;
  }
}
OD_KERNEL(where_bool, WhereArgs, false) { where_impl<u8>(a); }
OD_KERNEL(where_i64, WhereArgs, false) { where_impl<i64>(a); }
OD_KERNEL(where_f32, WhereArgs, false) { where_impl<float>(a); }
OD_KERNEL(where_f64, WhereArgs, false) { where_impl<double>(a); }

// target += alpha * other: in the target's floating type, through double for integers.
template <typename T>
OD_DEVICE void scaled_add_impl(const ScaledAddArgs& a) {
  T alpha = (T)a.alpha;
  int c[OD_MAX_DIMS];
  OD_GRID_STRIDE(t, a.d.numel) {
    od_coords(a.d, (int)t, c);
    T* x = od_at<T>(a.target, od_offset(a.d, a.target, c));
    *x = *x + alpha * *od_at<T>(a.other, od_offset(a.d, a.other, c));
  }
}
OD_KERNEL(scaled_add_f32, ScaledAddArgs, false) { scaled_add_impl<float>(a); }
OD_KERNEL(scaled_add_f64, ScaledAddArgs, false) { scaled_add_impl<double>(a); }
OD_KERNEL(scaled_add_i64, ScaledAddArgs, false) {
  int c[OD_MAX_DIMS];
  OD_GRID_STRIDE(t, a.d.numel) {
    od_coords(a.d, (int)t, c);
    i64* x = od_at<i64>(a.target, od_offset(a.d, a.target, c));
    *x = od_d2l((double)*x + a.alpha * (double)*od_at<i64>(a.other, od_offset(a.d, a.other, c)));
  }
}

template <typename T>
OD_DEVICE void relu_backward_impl(const ReluBackwardArgs& a) {
  int c[OD_MAX_DIMS];
  OD_GRID_STRIDE(t, a.d.numel) {
    od_coords(a.d, (int)t, c);
    T y = *od_at<T>(a.output, od_offset(a.d, a.output, c));
    T g = *od_at<T>(a.grad, od_offset(a.d, a.grad, c));
    *od_at<T>(a.out, od_offset(a.d, a.out, c)) = y > 0 ? g : (T)0;
  }
}
OD_KERNEL(relu_backward_f32, ReluBackwardArgs, false) { relu_backward_impl<float>(a); }
OD_KERNEL(relu_backward_f64, ReluBackwardArgs, false) { relu_backward_impl<double>(a); }

template <typename T>
OD_DEVICE void arange_impl(const ArangeArgs& a) {
  int c[OD_MAX_DIMS];
  OD_GRID_STRIDE(t, a.d.numel) {
    od_coords(a.d, (int)t, c);
    *od_at<T>(a.out, od_offset(a.d, a.out, c)) = od_convert<double, T>(a.start + (double)(int)t * a.step);
  }
}
OD_KERNEL(arange_i64, ArangeArgs, false) { arange_impl<i64>(a); }
OD_KERNEL(arange_f32, ArangeArgs, false) { arange_impl<float>(a); }
OD_KERNEL(arange_f64, ArangeArgs, false) { arange_impl<double>(a); }

// ---------------------------------------------------------------- random (RandomKernels' generator)

// 64 random bits for (seed, counter): two rounds of the SplitMix64 finaliser.
OD_DEVICE u64 od_bits(u64 seed, u64 counter) {
  u64 z = seed * 0x9E3779B97F4A7C15ULL + counter * 0xD1B54A32D192ED03ULL + 0x632BE59BD9B4E019ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  z ^= z >> 31;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

OD_DEVICE double od_uniform(u64 seed, u64 counter) {
  return (double)(od_bits(seed, counter) >> 11) * (1.0 / 9007199254740992.0);
}

template <typename T>
OD_DEVICE void random_impl(const RandomArgs& a) {
  int per = a.kind == OD_NORMAL ? 2 : 1;
  int c[OD_MAX_DIMS];
  OD_GRID_STRIDE(t, a.d.numel) {
    od_coords(a.d, (int)t, c);
    T* out = od_at<T>(a.out, od_offset(a.d, a.out, c));
    u64 ctr = (u64)a.counter + (u64)t * (u64)per;
    if (a.kind == OD_INTEGERS) {
      i64 range = od_d2l(a.b) - od_d2l(a.a);
      u64 r = od_bits((u64)a.seed, ctr) >> 1;
      i64 m = (i64)(r % (u64)range);  // floorMod of a non-negative value by a positive range
      *out = od_convert<i64, T>(od_d2l(a.a) + m);
      continue;
    }
    double v;
    if (a.kind == OD_UNIFORM) {
      v = a.a + (a.b - a.a) * od_uniform((u64)a.seed, ctr);
    } else {
      double u1 = 1.0 - od_uniform((u64)a.seed, ctr);
      double u2 = od_uniform((u64)a.seed, ctr + 1);
      v = a.a + a.b * sqrt(-2 * log(u1)) * cos(6.283185307179586 * u2);
    }
    T x = od_convert<double, T>(v);
    if (a.kind == OD_UNIFORM && sizeof(T) == 4 && !IsInt<T>::value && (double)x >= a.b) {
      x = (T)nextafterf((float)a.b, -INFINITY);
    }
    *out = x;
  }
}
OD_KERNEL(random_i64, RandomArgs, false) { random_impl<i64>(a); }
OD_KERNEL(random_f32, RandomArgs, false) { random_impl<float>(a); }
OD_KERNEL(random_f64, RandomArgs, false) { random_impl<double>(a); }

template <typename P, typename O>
OD_DEVICE void bernoulli_impl(const BernoulliArgs& a) {
  int c[OD_MAX_DIMS];
  OD_GRID_STRIDE(t, a.d.numel) {
    od_coords(a.d, (int)t, c);
    double prob = (double)*od_at<P>(a.p, od_offset(a.d, a.p, c));
    if (!(prob >= 0 && prob <= 1)) {
      i64 bits;
      memcpy(&bits, &prob, 8);
      od_report(a.err, OD_ERR_PROBABILITY, OD_OP_BERNOULLI, bits, 0, 0);
      continue;
    }
    double u = od_uniform((u64)a.seed, (u64)a.counter + (u64)t);
    *od_at<O>(a.out, od_offset(a.d, a.out, c)) = od_convert<double, O>(u < prob ? 1.0 : 0.0);
  }
}
#define OD_BERNOULLI(pn, P, on, O) \
  OD_KERNEL(bernoulli_##pn, BernoulliArgs, false) { bernoulli_impl<P, O>(a); }
// The draws have the probabilities' type, as Tensor.bernoulli makes them.
OD_BERNOULLI(f32, float, f32, float)
OD_BERNOULLI(f64, double, f64, double)
