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
  int vec;  // the contiguous dimensions and their rows are 16-byte aligned (sgemm128)
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

// ---------------------------------------------------------------- float32, 128x128 tiles

// The float32 kernel of large products: 128x128 tiles, K in slices of 8, 256 threads of 8x8
// outputs each. AK: A's K is contiguous (else its M is); BN: B's N is contiguous (else its K is).
// Each thread reads one float4 of A and one of B per slice (when `vec`: the contiguous dimension
// is 16-byte aligned and the tile lies inside the matrices; otherwise guarded scalar loads), and
// its fragments as two float4 of A and two of B per step of k, 16 multiply-adds per shared load.
// A is stored transposed, k-major, with rows padded by 4 floats so that the scattered stores of a
// K-contiguous A fall in distinct banks.
#define SG_BM 128
#define SG_BN 128
#define SG_BK 8
#define SG_PAD 4

template <bool AK, bool BN>
OD_DEVICE void sgemm128_impl(const GemmArgs& a) {
  __shared__ __align__(16) float As[2][SG_BK][SG_BM + SG_PAD];
  __shared__ __align__(16) float Bs[2][SG_BK][SG_BN + SG_PAD];
  const int tid = threadIdx.x;
  const int tx = tid % 16;
  const int ty = tid / 16;
  const int n0 = blockIdx.x * SG_BN;
  const int m0 = blockIdx.y * SG_BM;
  const int batch = blockIdx.z % a.batches;
  const int split = blockIdx.z / a.batches;
  const int kBegin = split * a.kChunk;
  const int kEnd = min(a.K, kBegin + a.kChunk);
  const float* A = od_at<float>(a.a, batch * a.a.strides[0]);
  const float* B = od_at<float>(a.b, batch * a.b.strides[0]);
  const int lda = AK ? a.a.strides[1] : a.a.strides[2];
  const int ldb = BN ? a.b.strides[1] : a.b.strides[2];
  const bool rowsInside = m0 + SG_BM <= a.M && n0 + SG_BN <= a.N;

  // The one float4 of A and of B this thread loads per slice: for a K-contiguous A, row tid / 2
  // and k (tid % 2) * 4; for an M-contiguous one, k tid / 32 and rows (tid % 32) * 4. Likewise B.
  const int aRow = AK ? tid / 2 : (tid % 32) * 4;
  const int aK = AK ? (tid % 2) * 4 : tid / 32;
  const int bCol = BN ? (tid % 32) * 4 : tid / 2;
  const int bK = BN ? tid / 32 : (tid % 2) * 4;

  float4 ra, rb;
  auto load = [&](int k0) {
    bool inside = a.vec && rowsInside && k0 + SG_BK <= kEnd;
    if (AK) {
      const float* p = A + (i64)(m0 + aRow) * lda + k0 + aK;
      if (inside) {
        ra = *reinterpret_cast<const float4*>(p);
      } else {
        bool r = m0 + aRow < a.M;
        int k = k0 + aK;
        ra.x = r && k < kEnd ? p[0] : 0.f;
        ra.y = r && k + 1 < kEnd ? p[1] : 0.f;
        ra.z = r && k + 2 < kEnd ? p[2] : 0.f;
        ra.w = r && k + 3 < kEnd ? p[3] : 0.f;
      }
    } else {
      const float* p = A + (i64)(k0 + aK) * lda + m0 + aRow;
      if (inside) {
        ra = *reinterpret_cast<const float4*>(p);
      } else {
        bool k = k0 + aK < kEnd;
        int m = m0 + aRow;
        ra.x = k && m < a.M ? p[0] : 0.f;
        ra.y = k && m + 1 < a.M ? p[1] : 0.f;
        ra.z = k && m + 2 < a.M ? p[2] : 0.f;
        ra.w = k && m + 3 < a.M ? p[3] : 0.f;
      }
    }
    if (BN) {
      const float* p = B + (i64)(k0 + bK) * ldb + n0 + bCol;
      if (inside) {
        rb = *reinterpret_cast<const float4*>(p);
      } else {
        bool k = k0 + bK < kEnd;
        int n = n0 + bCol;
        rb.x = k && n < a.N ? p[0] : 0.f;
        rb.y = k && n + 1 < a.N ? p[1] : 0.f;
        rb.z = k && n + 2 < a.N ? p[2] : 0.f;
        rb.w = k && n + 3 < a.N ? p[3] : 0.f;
      }
    } else {
      const float* p = B + (i64)(n0 + bCol) * ldb + k0 + bK;
      if (inside) {
        rb = *reinterpret_cast<const float4*>(p);
      } else {
        bool c = n0 + bCol < a.N;
        int k = k0 + bK;
        rb.x = c && k < kEnd ? p[0] : 0.f;
        rb.y = c && k + 1 < kEnd ? p[1] : 0.f;
        rb.z = c && k + 2 < kEnd ? p[2] : 0.f;
        rb.w = c && k + 3 < kEnd ? p[3] : 0.f;
      }
    }
  };
  auto store = [&](int buf) {
    if (AK) {
      As[buf][aK + 0][aRow] = ra.x;
      As[buf][aK + 1][aRow] = ra.y;
      As[buf][aK + 2][aRow] = ra.z;
      As[buf][aK + 3][aRow] = ra.w;
    } else {
      *reinterpret_cast<float4*>(&As[buf][aK][aRow]) = ra;
    }
    if (BN) {
      *reinterpret_cast<float4*>(&Bs[buf][bK][bCol]) = rb;
    } else {
      Bs[buf][bK + 0][bCol] = rb.x;
      Bs[buf][bK + 1][bCol] = rb.y;
      Bs[buf][bK + 2][bCol] = rb.z;
      Bs[buf][bK + 3][bCol] = rb.w;
    }
  };

  float acc[8][8];
#pragma unroll
  for (int i = 0; i < 8; i++)
#pragma unroll
    for (int j = 0; j < 8; j++) acc[i][j] = 0.f;

  int buf = 0;
  if (kBegin < kEnd) {
    load(kBegin);
    store(0);
  }
  __syncthreads();
  for (int k0 = kBegin; k0 < kEnd; k0 += SG_BK) {
    bool more = k0 + SG_BK < kEnd;
    if (more) load(k0 + SG_BK);
#pragma unroll
    for (int kk = 0; kk < SG_BK; kk++) {
      float4 a0 = *reinterpret_cast<const float4*>(&As[buf][kk][ty * 4]);
      float4 a1 = *reinterpret_cast<const float4*>(&As[buf][kk][64 + ty * 4]);
      float4 b0 = *reinterpret_cast<const float4*>(&Bs[buf][kk][tx * 4]);
      float4 b1 = *reinterpret_cast<const float4*>(&Bs[buf][kk][64 + tx * 4]);
      float fa[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
      float fb[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
      for (int i = 0; i < 8; i++)
#pragma unroll
        for (int j = 0; j < 8; j++) acc[i][j] += fa[i] * fb[j];
    }
    if (more) store(buf ^ 1);
    __syncthreads();
    buf ^= 1;
  }

  float* out = a.kSplits == 1 ? od_at<float>(a.c, batch * a.c.strides[0])
                              : reinterpret_cast<float*>(a.work) + ((i64)split * a.batches + batch) * a.M * a.N;
  const int ldc = a.kSplits == 1 ? a.c.strides[1] : a.N;
  const bool vecOut = a.vec && (a.kSplits == 1 ? a.c.strides[2] == 1 : true) && ldc % 4 == 0 && rowsInside;
#pragma unroll
  for (int i = 0; i < 8; i++) {
    int m = m0 + (i / 4) * 64 + ty * 4 + (i % 4);
#pragma unroll
    for (int h = 0; h < 2; h++) {
      int n = n0 + h * 64 + tx * 4;
      float* row = out + (i64)m * ldc;
      if (vecOut) {
        *reinterpret_cast<float4*>(row + n) =
            make_float4(acc[i][h * 4], acc[i][h * 4 + 1], acc[i][h * 4 + 2], acc[i][h * 4 + 3]);
      } else if (m < a.M) {
        int scn = a.kSplits == 1 ? a.c.strides[2] : 1;
#pragma unroll
        for (int j = 0; j < 4; j++) {
          if (n + j < a.N) row[(i64)(n + j) * scn] = acc[i][h * 4 + j];
        }
      }
    }
  }
}

OD_KERNEL_BOUNDED(sgemm128_nn, GemmArgs, true, 256, 2) { sgemm128_impl<true, true>(a); }
OD_KERNEL_BOUNDED(sgemm128_nt, GemmArgs, true, 256, 2) { sgemm128_impl<true, false>(a); }
OD_KERNEL_BOUNDED(sgemm128_tn, GemmArgs, true, 256, 2) { sgemm128_impl<false, true>(a); }
OD_KERNEL_BOUNDED(sgemm128_tt, GemmArgs, true, 256, 2) { sgemm128_impl<false, false>(a); }

// The general tiles: 64x64 (4x4 per thread) and 32x32 (2x2), 256 threads each, for any layout.
OD_KERNEL(gemm_f32_64, GemmArgs, true) { gemm_impl<float, 64, 64, 8, 4, 4>(a); }
OD_KERNEL(gemm_f32_32, GemmArgs, true) { gemm_impl<float, 32, 32, 8, 2, 2>(a); }
OD_KERNEL(gemm_f64_64, GemmArgs, true) { gemm_impl<double, 64, 64, 8, 4, 4>(a); }
OD_KERNEL(gemm_f64_32, GemmArgs, true) { gemm_impl<double, 32, 32, 8, 2, 2>(a); }
OD_KERNEL(gemm_i64_32, GemmArgs, true) { gemm_impl<i64, 32, 32, 8, 2, 2>(a); }
OD_KERNEL(gemm_splitk_sum_f32, GemmArgs, false) { gemm_splitk_sum_impl<float>(a); }
OD_KERNEL(gemm_splitk_sum_f64, GemmArgs, false) { gemm_splitk_sum_impl<double>(a); }
OD_KERNEL(gemm_splitk_sum_i64, GemmArgs, false) { gemm_splitk_sum_impl<i64>(a); }
