// Indexing kernels: gather and scatter-add along a dimension, index-select and index-add of
// slices. Every index is checked; one out of range is reported through the error record (the
// first one wins) and surfaces as an exception at the next synchronisation.
#include "ondevice.cuh"

// gather/scatter-add: the index space is the index tensor's; `in` (or `target`) has the stride of
// `dim` zeroed, and index value k adds k * dimStride to its offset.
struct GatherArgs { Dims d; View in; View index; View out; ErrorSink err; int dim; int dimStride; int limit; };
struct ScatterAddArgs { Dims d; View target; View index; View src; ErrorSink err; int dim; int dimStride; int limit; };
// index-select/index-add: the index space is the output's (the source's for index-add), not
// coalesced; coordinate `dim` selects index[coordinate] on the other side.
struct IndexSelectArgs { Dims d; View in; View out; View index; ErrorSink err; int dim; int dimStride; int limit; };
struct IndexAddArgs { Dims d; View target; View src; View index; ErrorSink err; int dim; int dimStride; int limit; };

OD_DEVICE bool od_index_ok(const ErrorSink& err, int op, i64 k, int limit, int dim) {
  if (k < 0 || k >= limit) {
    od_report(err, OD_ERR_INDEX, op, k, limit, dim);
    return false;
  }
  return true;
}

OD_DEVICE void od_atomic_add(float* p, float v) { atomicAdd(p, v); }
OD_DEVICE void od_atomic_add(double* p, double v) { atomicAdd(p, v); }
OD_DEVICE void od_atomic_add(i64* p, i64 v) { atomicAdd(reinterpret_cast<u64*>(p), (u64)v); }

template <typename T>
OD_DEVICE void gather_impl(const GatherArgs& a) {
  int c[OD_MAX_DIMS];
  OD_GRID_STRIDE(t, a.d.numel) {
    od_coords(a.d, (int)t, c);
    i64 k = *od_at<i64>(a.index, od_offset(a.d, a.index, c));
    if (!od_index_ok(a.err, OD_OP_GATHER, k, a.limit, a.dim)) continue;
    *od_at<T>(a.out, od_offset(a.d, a.out, c)) = *od_at<T>(a.in, od_offset(a.d, a.in, c) + (int)k * a.dimStride);
  }
}
OD_KERNEL(gather_bool, GatherArgs, false) { gather_impl<u8>(a); }
OD_KERNEL(gather_i64, GatherArgs, false) { gather_impl<i64>(a); }
OD_KERNEL(gather_f32, GatherArgs, false) { gather_impl<float>(a); }
OD_KERNEL(gather_f64, GatherArgs, false) { gather_impl<double>(a); }

template <typename T>
OD_DEVICE void scatter_add_impl(const ScatterAddArgs& a) {
  int c[OD_MAX_DIMS];
  OD_GRID_STRIDE(t, a.d.numel) {
    od_coords(a.d, (int)t, c);
    i64 k = *od_at<i64>(a.index, od_offset(a.d, a.index, c));
    if (!od_index_ok(a.err, OD_OP_SCATTER_ADD, k, a.limit, a.dim)) continue;
    od_atomic_add(od_at<T>(a.target, od_offset(a.d, a.target, c) + (int)k * a.dimStride),
                  *od_at<T>(a.src, od_offset(a.d, a.src, c)));
  }
}
OD_KERNEL(scatter_add_i64, ScatterAddArgs, false) { scatter_add_impl<i64>(a); }
OD_KERNEL(scatter_add_f32, ScatterAddArgs, false) { scatter_add_impl<float>(a); }
OD_KERNEL(scatter_add_f64, ScatterAddArgs, false) { scatter_add_impl<double>(a); }

template <typename T>
OD_DEVICE void index_select_impl(const IndexSelectArgs& a) {
  int c[OD_MAX_DIMS];
  OD_GRID_STRIDE(t, a.d.numel) {
    od_coords(a.d, (int)t, c);
    i64 k = *od_at<i64>(a.index, c[a.dim] * a.index.strides[0]);
    if (!od_index_ok(a.err, OD_OP_INDEX_SELECT, k, a.limit, a.dim)) continue;
    *od_at<T>(a.out, od_offset(a.d, a.out, c)) = *od_at<T>(a.in, od_offset(a.d, a.in, c) + (int)k * a.dimStride);
  }
}
OD_KERNEL(index_select_bool, IndexSelectArgs, false) { index_select_impl<u8>(a); }
OD_KERNEL(index_select_i64, IndexSelectArgs, false) { index_select_impl<i64>(a); }
OD_KERNEL(index_select_f32, IndexSelectArgs, false) { index_select_impl<float>(a); }
OD_KERNEL(index_select_f64, IndexSelectArgs, false) { index_select_impl<double>(a); }

template <typename T>
OD_DEVICE void index_add_impl(const IndexAddArgs& a) {
  int c[OD_MAX_DIMS];
  OD_GRID_STRIDE(t, a.d.numel) {
    od_coords(a.d, (int)t, c);
    i64 k = *od_at<i64>(a.index, c[a.dim] * a.index.strides[0]);
    if (!od_index_ok(a.err, OD_OP_INDEX_ADD, k, a.limit, a.dim)) continue;
    od_atomic_add(od_at<T>(a.target, od_offset(a.d, a.target, c) + (int)k * a.dimStride),
                  *od_at<T>(a.src, od_offset(a.d, a.src, c)));
  }
}
OD_KERNEL(index_add_i64, IndexAddArgs, false) { index_add_impl<i64>(a); }
OD_KERNEL(index_add_f32, IndexAddArgs, false) { index_add_impl<float>(a); }
OD_KERNEL(index_add_f64, IndexAddArgs, false) { index_add_impl<double>(a); }
