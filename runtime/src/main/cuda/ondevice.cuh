// The shared definitions of the OnDevice CUDA kernels: the argument structs the Java side packs
// (dev.ondevice.internal.cuda.KernelArgs mirrors their layout), strided indexing, dtype conversions
// with Java's semantics (the CPU backend is the reference), and the device error record.
//
// Every kernel takes one struct by value. Kernels are declared with OD_KERNEL, which also lets the
// host-executed test driver (runtime/src/test/native/hostcuda) register a host build of the same
// source; under nvcc the registration expands to nothing.
#pragma once

#ifndef OD_REGISTER
#define OD_REGISTER(name, Args, blockSync)
#endif

#ifdef __CUDACC__
#define OD_DEVICE __device__ __forceinline__
#else
#define OD_DEVICE inline
#endif

// A kernel of one struct argument `a`. blockSync: whether it uses __syncthreads (the host driver
// runs such kernels with one thread per CUDA thread; the others run as plain loops).
#define OD_KERNEL(name, Args, blockSync)                  \
  extern "C" __global__ void name(const Args a);          \
  OD_REGISTER(name, Args, blockSync)                      \
  extern "C" __global__ void name(const Args a)

// OD_KERNEL with launch bounds: at most `threads` per block, and registers for `blocks` blocks
// resident per multiprocessor.
#define OD_KERNEL_BOUNDED(name, Args, blockSync, threads, blocks)                      \
  extern "C" __global__ void __launch_bounds__(threads, blocks) name(const Args a);    \
  OD_REGISTER(name, Args, blockSync)                                                   \
  extern "C" __global__ void __launch_bounds__(threads, blocks) name(const Args a)

typedef long long i64;
typedef unsigned long long u64;
typedef unsigned char u8;

// Dimensions a view may have after coalescing.
#define OD_MAX_DIMS 10

// The index space of a kernel: sizes, row-major; numel is their product.
struct Dims {
  int rank;
  int numel;
  int sizes[OD_MAX_DIMS];
};

// One operand: the address of its first element (offset applied) and strides in elements.
struct View {
  char* data;
  int strides[OD_MAX_DIMS];
};

// Where kernels report a data-dependent error (an index out of range, a probability outside
// [0, 1]): the first thread to claim the device-memory word `claim` (device-scope atomics) writes
// the record, which lives in mapped host memory that the host reads after each synchronisation,
// with plain stores (atomics on host memory are not portable). The host clears the record and
// re-arms the claim, in stream order, once it has reported the error.
struct ErrorRecord {
  int code;
  int op;
  i64 value;
  i64 limit;
  i64 extra;
};

struct ErrorSink {
  int* claim;
  ErrorRecord* record;
};

enum ErrorCode { OD_ERR_NONE = 0, OD_ERR_INDEX = 1, OD_ERR_PROBABILITY = 2, OD_ERR_POSITION = 3 };

OD_DEVICE void od_report(const ErrorSink& err, int code, int op, i64 value, i64 limit, i64 extra) {
  if (atomicCAS(err.claim, 0, 1) == 0) {
    ErrorRecord* r = err.record;
    r->op = op;
    r->value = value;
    r->limit = limit;
    r->extra = extra;
    __threadfence_system();
    *(volatile int*)&r->code = code;
  }
}

// The coordinates of linear index i over d (row-major), innermost last.
OD_DEVICE void od_coords(const Dims& d, int i, int* c) {
#pragma unroll
  for (int k = OD_MAX_DIMS - 1; k >= 1; k--) {
    if (k < d.rank) {
      c[k] = i % d.sizes[k];
      i /= d.sizes[k];
    } else {
      c[k] = 0;
    }
  }
  c[0] = i;
}

// The element offset of coordinates c in view v.
OD_DEVICE int od_offset(const Dims& d, const View& v, const int* c) {
  int off = 0;
#pragma unroll
  for (int k = 0; k < OD_MAX_DIMS; k++) {
    if (k < d.rank) {
      off += c[k] * v.strides[k];
    }
  }
  return off;
}

template <typename T>
OD_DEVICE T* od_at(const View& v, int off) {
  return reinterpret_cast<T*>(v.data) + off;
}

// Grid-stride loop over [0, n) with an i64 counter t (no overflow near 2^31).
#define OD_GRID_STRIDE(t, n) \
  for (i64 t = (i64)blockIdx.x * blockDim.x + threadIdx.x; t < (i64)(n); t += (i64)blockDim.x * gridDim.x)

// ---------------------------------------------------------------- conversions (Java's casts)

// (long) of a double in Java: NaN is 0, out-of-range values saturate. PTX's cvt.rzi saturates
// and maps NaN to 0 too; the host build spells it out.
OD_DEVICE i64 od_d2l(double x) {
#ifdef __CUDACC__
  return (i64)x;
#else
  if (x != x) return 0;
  if (x >= 9.2233720368547758e18) return 0x7fffffffffffffffLL;
  if (x <= -9.2233720368547758e18) return (i64)0x8000000000000000ULL;
  return (i64)x;
#endif
}

template <typename T> struct Conv;
template <> struct Conv<u8> {
  static OD_DEVICE double toD(u8 v) { return v != 0 ? 1.0 : 0.0; }
  static OD_DEVICE i64 toL(u8 v) { return v != 0 ? 1 : 0; }
  static OD_DEVICE u8 fromD(double v) { return v != 0 ? 1 : 0; }
  static OD_DEVICE u8 fromL(i64 v) { return v != 0 ? 1 : 0; }
};
template <> struct Conv<i64> {
  static OD_DEVICE double toD(i64 v) { return (double)v; }
  static OD_DEVICE i64 toL(i64 v) { return v; }
  static OD_DEVICE i64 fromD(double v) { return od_d2l(v); }
  static OD_DEVICE i64 fromL(i64 v) { return v; }
};
template <> struct Conv<float> {
  static OD_DEVICE double toD(float v) { return v; }
  static OD_DEVICE i64 toL(float v) { return od_d2l(v); }
  static OD_DEVICE float fromD(double v) { return (float)v; }
  static OD_DEVICE float fromL(i64 v) { return (float)v; }
};
template <> struct Conv<double> {
  static OD_DEVICE double toD(double v) { return v; }
  static OD_DEVICE i64 toL(double v) { return od_d2l(v); }
  static OD_DEVICE double fromD(double v) { return v; }
  static OD_DEVICE double fromL(i64 v) { return (double)v; }
};

template <typename T> struct IsInt { static const bool value = false; };
template <> struct IsInt<i64> { static const bool value = true; };
template <> struct IsInt<u8> { static const bool value = true; };

// Converts between element types as the CPU's copy does: through long when either side is an
// integer, else through double.
template <typename S, typename D>
OD_DEVICE D od_convert(S v) {
  if (IsInt<S>::value || IsInt<D>::value) {
    return Conv<D>::fromL(Conv<S>::toL(v));
  }
  return Conv<D>::fromD(Conv<S>::toD(v));
}
template <> OD_DEVICE u8 od_convert<float, u8>(float v) { return v != 0 ? 1 : 0; }
template <> OD_DEVICE u8 od_convert<double, u8>(double v) { return v != 0 ? 1 : 0; }

// Java's Math.max / Math.min: NaN if either is NaN, and +0 above -0.
OD_DEVICE i64 od_max(i64 x, i64 y) { return x > y ? x : y; }
OD_DEVICE i64 od_min(i64 x, i64 y) { return x < y ? x : y; }
template <typename T>
OD_DEVICE T od_max(T x, T y) {
  if (x != x) return x;
  if (y != y) return y;
  if (x == y) return signbit(x) ? y : x;
  return x > y ? x : y;
}
template <typename T>
OD_DEVICE T od_min(T x, T y) {
  if (x != x) return x;
  if (y != y) return y;
  if (x == y) return signbit(x) ? x : y;
  return x < y ? x : y;
}

// ---------------------------------------------------------------- op codes (the Java enums' order)

enum UnaryCode {
  OD_NEG, OD_ABS, OD_SIGN, OD_SQUARE, OD_RELU,
  OD_EXP, OD_LOG, OD_LOG1P, OD_EXPM1, OD_SQRT, OD_RSQRT, OD_RECIPROCAL,
  OD_SIN, OD_COS, OD_TANH, OD_SIGMOID, OD_ERF,
  OD_FLOOR, OD_CEIL, OD_ROUND,
  OD_LOGICAL_NOT
};

enum BinaryCode {
  OD_ADD, OD_SUB, OD_MUL, OD_DIV, OD_POW, OD_MAXIMUM, OD_MINIMUM,
  OD_EQ, OD_NE, OD_LT, OD_LE, OD_GT, OD_GE,
  OD_LOGICAL_AND, OD_LOGICAL_OR, OD_LOGICAL_XOR
};

enum ReduceCode { OD_SUM, OD_MEAN, OD_PROD, OD_MAX, OD_MIN, OD_ARGMAX, OD_ARGMIN };

enum RandomCode { OD_UNIFORM, OD_NORMAL, OD_INTEGERS };

// The ops a kernel reports errors for (ErrorRecord.op).
enum ErrorOp { OD_OP_GATHER, OD_OP_SCATTER_ADD, OD_OP_INDEX_SELECT, OD_OP_INDEX_ADD, OD_OP_BERNOULLI,
               OD_OP_MAX_POOL2D_BACKWARD };
