// Batched matrix products C[b] = A[b] x B[b] of [M, K] by [K, N], for strided operands: tiles of
// BM x BN outputs per block, staged through shared memory in slices of BK along K (double
// buffered: the next slice is read from global memory into registers while the current one is
// multiplied), each thread accumulating a TM x TN block in registers. Operands whose K (for A) or
// N (for B) is contiguous and operands whose other dimension is contiguous are both read with
// coalesced loads. Small products split K over more blocks (kSplits > 1): the partial products go
// to a workspace and a second kernel sums them in order.
#include "ondevice.cuh"

// a: strides [batch, m, k]; b: [batch, k, n]; c: [batch, m, n]. work: [kSplits][batches][M][N].
struct GemmArgs {
  View a;
  View b;
  View c;
  char* work;
  int M;
  int N;
  int K;
  int batches;
  int kSplits;
  int kChunk;
};

// The row (or column) of a thread's i-th fragment element in the tile: for fragments of 8 or more,
// groups of 4 spread over the tile, so that the threads of a warp read distinct shared-memory banks.
template <int TILE, int FRAG>
OD_DEVICE int od_frag_index(int thread, int i) {
  if (FRAG % 4 == 0) {
    return (i / 4) * (TILE * 4 / FRAG) + thread * 4 + (i % 4);
  }
  return thread * FRAG + i;
}

template <typename T, int BM, int BN, int BK, int TM, int TN>
OD_DEVICE void gemm_impl(const GemmArgs& a) {
  const int NT = (BM / TM) * (BN / TN);
  const int LA = BM * BK / NT;
  const int LB = BK * BN / NT;
  const int PAD = 4;
  __shared__ T As[2][BK][BM + PAD];
  __shared__ T Bs[2][BK][BN + PAD];

  int tid = threadIdx.x;
  int tx = tid % (BN / TN);
  int ty = tid / (BN / TN);
  int n0 = blockIdx.x * BN;
  int m0 = blockIdx.y * BM;
  int batch = blockIdx.z % a.batches;
  int split = blockIdx.z / a.batches;
  int kBegin = split * a.kChunk;
  int kEnd = min(a.K, kBegin + a.kChunk);

  const T* A = od_at<T>(a.a, batch * a.a.strides[0]);
  const T* B = od_at<T>(a.b, batch * a.b.strides[0]);
  int sam = a.a.strides[1], sak = a.a.strides[2];
  int sbk = a.b.strides[1], sbn = a.b.strides[2];
  bool aKContiguous = sak == 1;
  bool bNContiguous = sbn == 1;

  T ra[LA];
  T rb[LB];
  T acc[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; i++)
#pragma unroll
    for (int j = 0; j < TN; j++) acc[i][j] = 0;

  // Reads the slice starting at k0 into registers, zero outside the matrices.
  auto load = [&](int k0) {
#pragma unroll
    for (int e = 0; e < LA; e++) {
      int idx = tid + e * NT;
      int mm = aKContiguous ? idx / BK : idx % BM;
      int kk = aKContiguous ? idx % BK : idx / BM;
      int m = m0 + mm, k = k0 + kk;
      ra[e] = (m < a.M && k < kEnd) ? A[(i64)m * sam + (i64)k * sak] : (T)0;
    }
#pragma unroll
    for (int e = 0; e < LB; e++) {
      int idx = tid + e * NT;
      int nn = bNContiguous ? idx % BN : idx / BK;
      int kk = bNContiguous ? idx / BN : idx % BK;
      int n = n0 + nn, k = k0 + kk;
      rb[e] = (n < a.N && k < kEnd) ? B[(i64)k * sbk + (i64)n * sbn] : (T)0;
    }
  };
  auto store = [&](int buf) {
#pragma unroll
    for (int e = 0; e < LA; e++) {
      int idx = tid + e * NT;
      int mm = aKContiguous ? idx / BK : idx % BM;
      int kk = aKContiguous ? idx % BK : idx / BM;
      As[buf][kk][mm] = ra[e];
    }
#pragma unroll
    for (int e = 0; e < LB; e++) {
      int idx = tid + e * NT;
      int nn = bNContiguous ? idx % BN : idx / BK;
      int kk = bNContiguous ? idx / BN : idx % BK;
      Bs[buf][kk][nn] = rb[e];
    }
  };

  int buf = 0;
  if (kBegin < kEnd) {
    load(kBegin);
    store(0);
  }
  __syncthreads();
  for (int k0 = kBegin; k0 < kEnd; k0 += BK) {
    bool more = k0 + BK < kEnd;
    if (more) load(k0 + BK);
#pragma unroll
    for (int kk = 0; kk < BK; kk++) {
      T fa[TM];
      T fb[TN];
#pragma unroll
      for (int i = 0; i < TM; i++) fa[i] = As[buf][kk][od_frag_index<BM, TM>(ty, i)];
#pragma unroll
      for (int j = 0; j < TN; j++) fb[j] = Bs[buf][kk][od_frag_index<BN, TN>(tx, j)];
#pragma unroll
      for (int i = 0; i < TM; i++)
#pragma unroll
        for (int j = 0; j < TN; j++) acc[i][j] += fa[i] * fb[j];
    }
    if (more) store(buf ^ 1);
    __syncthreads();
    buf ^= 1;
  }

  T* out = a.kSplits == 1 ? od_at<T>(a.c, batch * a.c.strides[0])
                          : reinterpret_cast<T*>(a.work) + ((i64)split * a.batches + batch) * a.M * a.N;
  int scm = a.kSplits == 1 ? a.c.strides[1] : a.N;
  int scn = a.kSplits == 1 ? a.c.strides[2] : 1;
#pragma unroll
  for (int i = 0; i < TM; i++) {
    int m = m0 + od_frag_index<BM, TM>(ty, i);
    if (m >= a.M) continue;
#pragma unroll
    for (int j = 0; j < TN; j++) {
      int n = n0 + od_frag_index<BN, TN>(tx, j);
      if (n < a.N) out[(i64)m * scm + (i64)n * scn] = acc[i][j];
    }
  }
}

// Sums the kSplits partial products of each output in order.
template <typename T>
OD_DEVICE void gemm_splitk_sum_impl(const GemmArgs& a) {
  i64 total = (i64)a.batches * a.M * a.N;
  const T* work = reinterpret_cast<const T*>(a.work);
  OD_GRID_STRIDE(t, total) {
    int n = (int)(t % a.N);
    int m = (int)((t / a.N) % a.M);
    int batch = (int)(t / ((i64)a.N * a.M));
    T sum = 0;
    for (int s = 0; s < a.kSplits; s++) sum += work[(i64)s * total + t];
    *od_at<T>(a.c, batch * a.c.strides[0] + m * a.c.strides[1] + n * a.c.strides[2]) = sum;
  }
}

// Tile shapes: 128x128 (8x8 per thread), 64x64 (4x4), 32x32 (2x2); 256 threads each.
OD_KERNEL(gemm_f32_128, GemmArgs, true) { gemm_impl<float, 128, 128, 8, 8, 8>(a); }
OD_KERNEL(gemm_f32_64, GemmArgs, true) { gemm_impl<float, 64, 64, 8, 4, 4>(a); }
OD_KERNEL(gemm_f32_32, GemmArgs, true) { gemm_impl<float, 32, 32, 8, 2, 2>(a); }
OD_KERNEL(gemm_f64_64, GemmArgs, true) { gemm_impl<double, 64, 64, 8, 4, 4>(a); }
OD_KERNEL(gemm_f64_32, GemmArgs, true) { gemm_impl<double, 32, 32, 8, 2, 2>(a); }
OD_KERNEL(gemm_i64_32, GemmArgs, true) { gemm_impl<i64, 32, 32, 8, 2, 2>(a); }
OD_KERNEL(gemm_splitk_sum_f32, GemmArgs, false) { gemm_splitk_sum_impl<float>(a); }
OD_KERNEL(gemm_splitk_sum_f64, GemmArgs, false) { gemm_splitk_sum_impl<double>(a); }
OD_KERNEL(gemm_splitk_sum_i64, GemmArgs, false) { gemm_splitk_sum_impl<i64>(a); }
