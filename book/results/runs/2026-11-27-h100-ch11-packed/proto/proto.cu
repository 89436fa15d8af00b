// Prototype: fused RMSNorm -> linear for decode with W* packed into mma.m16n8k16 B fragments,
// streamed from global into registers; K split over a block's warps, full K per block.
// Compared, in one process, to cuBLAS's GEMM alone and to a pure read of the packed weights.
#include <cublas_v2.h>
#include <cuda_fp16.h>
#include <cuda_pipeline.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>
#include "ch11.cuh"

#define CK(x)                                                                       \
  do {                                                                              \
    cudaError_t e = (x);                                                            \
    if (e != cudaSuccess) {                                                         \
      printf("CUDA %s at %s:%d\n", cudaGetErrorString(e), __FILE__, __LINE__);      \
      exit(1);                                                                      \
    }                                                                               \
  } while (0)

constexpr int kWarps = 8;

__device__ inline void mma16816(float (&c)[4], unsigned a0, unsigned a1, unsigned a2, unsigned a3,
                                unsigned b0, unsigned b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
      "{%8,%9}, {%0,%1,%2,%3};\n"
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
      : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
}

// packed[((j * units + u) * 32 + lane)] = uint4 of the lane's B fragments for n8 tile j, k
// steps 32u and 32u + 16.
template <int kMTiles, int kNB, int kMaxU>
__global__ void __launch_bounds__(kWarps * 32) fused_packed(const __half* __restrict__ x,
                                                             const uint4* __restrict__ wp,
                                                             __half* __restrict__ y, int M, int K,
                                                             int N, float eps) {
  extern __shared__ __align__(16) unsigned char smem[];
  const int ld = K + 8;
  __half* xs = reinterpret_cast<__half*>(smem);
  float* red = reinterpret_cast<float*>(smem + (size_t)kMTiles * 16 * ld * 2);
  constexpr int kRedCols = kNB * 8 + 4;
  constexpr int kRows = kMTiles * 16;
  __shared__ float rstd_s[kRows];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
  const int units = K / 32;
  const int j0 = blockIdx.x * kNB;
  // W first: every unit of the warp requested before anything waits.
  uint4 wv[kMaxU][kNB];
#pragma unroll
  for (int i = 0; i < kMaxU; ++i) {
    const int u = warp + i * kWarps;
#pragma unroll
    for (int b = 0; b < kNB; ++b)
      if (u < units) wv[i][b] = __ldg(wp + ((size_t)(j0 + b) * units + u) * 32 + lane);
  }
  const int kchunks = K / 8;
  for (int i = threadIdx.x; i < M * kchunks; i += blockDim.x) {
    const int m = i / kchunks, c = i % kchunks;
    __pipeline_memcpy_async(&xs[m * ld + c * 8], x + (size_t)m * K + c * 8, 16);
  }
  __pipeline_commit();
  __pipeline_wait_prior(0);
  __syncthreads();
  // sums of squares, a warp a row
  for (int m = warp; m < M; m += kWarps) {
    float s = 0.0f;
    for (int c = lane; c < kchunks; c += 32) {
      uint4 v = *reinterpret_cast<const uint4*>(&xs[m * ld + c * 8]);
      const __half2* h = reinterpret_cast<const __half2*>(&v);
#pragma unroll
      for (int q = 0; q < 4; ++q) {
        float2 f = __half22float2(h[q]);
        s += f.x * f.x + f.y * f.y;
      }
    }
#pragma unroll
    for (int o = 16; o > 0; o /= 2) s += __shfl_xor_sync(0xffffffffu, s, o);
    if (lane == 0) rstd_s[m] = rsqrtf(s / K + eps);
  }
  float acc[kMTiles][kNB][4] = {};
#pragma unroll
  for (int i = 0; i < kMaxU; ++i) {
    const int u = warp + i * kWarps;
    if (u < units) {
#pragma unroll
      for (int s = 0; s < 2; ++s) {
        const int kk = u * 32 + s * 16;
#pragma unroll
        for (int mt = 0; mt < kMTiles; ++mt) {
          const int r0 = mt * 16 + g, r1 = r0 + 8;
          const unsigned a0 = r0 < M ? *reinterpret_cast<const unsigned*>(&xs[r0 * ld + kk + 2 * t]) : 0u;
          const unsigned a1 = r1 < M ? *reinterpret_cast<const unsigned*>(&xs[r1 * ld + kk + 2 * t]) : 0u;
          const unsigned a2 = r0 < M ? *reinterpret_cast<const unsigned*>(&xs[r0 * ld + kk + 8 + 2 * t]) : 0u;
          const unsigned a3 = r1 < M ? *reinterpret_cast<const unsigned*>(&xs[r1 * ld + kk + 8 + 2 * t]) : 0u;
#pragma unroll
          for (int b = 0; b < kNB; ++b) {
            const unsigned b0 = s == 0 ? wv[i][b].x : wv[i][b].z;
            const unsigned b1 = s == 0 ? wv[i][b].y : wv[i][b].w;
            mma16816(acc[mt][b], a0, a1, a2, a3, b0, b1);
          }
        }
      }
    }
  }
#pragma unroll
  for (int mt = 0; mt < kMTiles; ++mt)
#pragma unroll
    for (int b = 0; b < kNB; ++b) {
      float* r = red + ((size_t)warp * kRows + mt * 16 + g) * kRedCols + b * 8 + 2 * t;
      r[0] = acc[mt][b][0];
      r[1] = acc[mt][b][1];
      r[8 * kRedCols] = acc[mt][b][2];
      r[8 * kRedCols + 1] = acc[mt][b][3];
    }
  __syncthreads();
  for (int o = threadIdx.x; o < M * kNB * 8; o += blockDim.x) {
    const int m = o / (kNB * 8), c = o % (kNB * 8);
    float sum = 0.0f;
#pragma unroll
    for (int w = 0; w < kWarps; ++w) sum += red[((size_t)w * kRows + m) * kRedCols + c];
    const int n = j0 * 8 + c;
    if (n < N) y[(size_t)m * N + n] = __float2half_rn(sum * rstd_s[m]);
  }
}

// The same reads of the packed weights, nothing else.
template <int kNB, int kMaxU>
__global__ void __launch_bounds__(kWarps * 32) read_packed(const uint4* __restrict__ wp,
                                                            unsigned* out, int K) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int units = K / 32;
  const int j0 = blockIdx.x * kNB;
  uint4 wv[kMaxU][kNB];
#pragma unroll
  for (int i = 0; i < kMaxU; ++i) {
    const int u = warp + i * kWarps;
#pragma unroll
    for (int b = 0; b < kNB; ++b)
      if (u < units) wv[i][b] = __ldg(wp + ((size_t)(j0 + b) * units + u) * 32 + lane);
      else wv[i][b] = make_uint4(0, 0, 0, 0);
  }
  unsigned v = 0;
#pragma unroll
  for (int i = 0; i < kMaxU; ++i)
#pragma unroll
    for (int b = 0; b < kNB; ++b) v ^= wv[i][b].x ^ wv[i][b].y ^ wv[i][b].z ^ wv[i][b].w;
  if (v == 0x12345678u) out[0] = v;
}


// v2: k permuted within each 32-wide unit so that a lane's A fragments of a row are 8
// consecutive halves of x (one 16-byte load) and its B fragments 8 consecutive k of one column
// (packed offline). x is read straight from global (L1-cached) into fragments; no staging.
__device__ inline void add_squares(float& s, const uint4& v) {
  const __half2* h = reinterpret_cast<const __half2*>(&v);
#pragma unroll
  for (int q = 0; q < 4; ++q) {
    float2 f = __half22float2(h[q]);
    s += f.x * f.x + f.y * f.y;
  }
}
template <int kMTiles, int kNB, int kW, int kU>
__global__ void __launch_bounds__(kW * 32) fused_v2(const __half* __restrict__ x,
                                                     const uint4* __restrict__ wp,
                                                     __half* __restrict__ y, int M, int K, int N,
                                                     float eps) {
  constexpr int kRows = kMTiles * 16, kRedCols = kNB * 8 + 4;
  extern __shared__ __align__(16) float red[];
  __shared__ float sq_s[kW][kRows];
  __shared__ float rstd_s[kRows];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
  const int units = K / 32;
  const int j0 = blockIdx.x * kNB;
  uint4 wv[kU][kNB];
  uint4 xv[kU][kMTiles][2];
#pragma unroll
  for (int i = 0; i < kU; ++i) {
    const int u = warp + i * kW;
    if (u < units) {
#pragma unroll
      for (int b = 0; b < kNB; ++b) wv[i][b] = __ldg(wp + ((size_t)(j0 + b) * units + u) * 32 + lane);
#pragma unroll
      for (int mt = 0; mt < kMTiles; ++mt)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const int r = mt * 16 + g + 8 * h;
          xv[i][mt][h] = r < M ? __ldg(reinterpret_cast<const uint4*>(x + (size_t)r * K + u * 32 + 8 * t))
                               : make_uint4(0, 0, 0, 0);
        }
    }
  }
  float acc[kMTiles][kNB][4] = {};
  float sq[kMTiles][2] = {};
#pragma unroll
  for (int i = 0; i < kU; ++i) {
    const int u = warp + i * kW;
    if (u < units) {
#pragma unroll
      for (int mt = 0; mt < kMTiles; ++mt) {
        const uint4 a = xv[i][mt][0], c = xv[i][mt][1];
        add_squares(sq[mt][0], a);
        add_squares(sq[mt][1], c);
#pragma unroll
        for (int b = 0; b < kNB; ++b) {
          mma16816(acc[mt][b], a.x, c.x, a.y, c.y, wv[i][b].x, wv[i][b].y);
          mma16816(acc[mt][b], a.z, c.z, a.w, c.w, wv[i][b].z, wv[i][b].w);
        }
      }
    }
  }
#pragma unroll
  for (int mt = 0; mt < kMTiles; ++mt)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      float s = sq[mt][h];
      s += __shfl_xor_sync(0xffffffffu, s, 1);
      s += __shfl_xor_sync(0xffffffffu, s, 2);
      if (t == 0) sq_s[warp][mt * 16 + g + 8 * h] = s;
    }
#pragma unroll
  for (int mt = 0; mt < kMTiles; ++mt)
#pragma unroll
    for (int b = 0; b < kNB; ++b) {
      float* r = red + ((size_t)warp * kRows + mt * 16 + g) * kRedCols + b * 8 + 2 * t;
      r[0] = acc[mt][b][0];
      r[1] = acc[mt][b][1];
      r[8 * kRedCols] = acc[mt][b][2];
      r[8 * kRedCols + 1] = acc[mt][b][3];
    }
  __syncthreads();
  if (threadIdx.x < M) {
    float s = 0.0f;
#pragma unroll
    for (int w = 0; w < kW; ++w) s += sq_s[w][threadIdx.x];
    rstd_s[threadIdx.x] = rsqrtf(s / K + eps);
  }
  __syncthreads();
  for (int o = threadIdx.x; o < M * kNB * 8; o += blockDim.x) {
    const int m = o / (kNB * 8), c = o % (kNB * 8);
    float sum = 0.0f;
#pragma unroll
    for (int w = 0; w < kW; ++w) sum += red[((size_t)w * kRows + m) * kRedCols + c];
    const int n = j0 * 8 + c;
    if (n < N) y[(size_t)m * N + n] = __float2half_rn(sum * rstd_s[m]);
  }
}

std::vector<__half> pack2(const std::vector<__half>& w, int K, int N) {
  const int units = K / 32, tiles = N / 8;
  std::vector<__half> p((size_t)K * N);
  for (int j = 0; j < tiles; ++j)
    for (int u = 0; u < units; ++u)
      for (int l = 0; l < 32; ++l)
        for (int e = 0; e < 8; ++e)
          p[(((size_t)j * units + u) * 32 + l) * 8 + e] =
              w[(size_t)(u * 32 + 8 * (l % 4) + e) * N + j * 8 + l / 4];
  return p;
}

#include <cooperative_groups.h>
namespace cg = cooperative_groups;
// v3: v2 with K split over a cluster of kSplit blocks along y; sums added through DSMEM.
template <int kMTiles, int kNB, int kW, int kU, int kSplit>
__global__ void __launch_bounds__(kW * 32) fused_v3(const __half* __restrict__ x,
                                                     const uint4* __restrict__ wp,
                                                     __half* __restrict__ y, int M, int K, int N,
                                                     float eps) {
  constexpr int kRows = kMTiles * 16, kCols = kNB * 8, kRedCols = kCols + 4;
  extern __shared__ __align__(16) float red[];
  __shared__ float sq_s[kW][kRows];
  __shared__ float tot[kRows][kCols];
  __shared__ float sq_tot[kRows];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
  const int units = K / 32;
  const int per = (units + kSplit - 1) / kSplit;
  const int u_begin = blockIdx.y * per, u_end = min(units, u_begin + per);
  const int j0 = blockIdx.x * kNB;
  uint4 wv[kU][kNB];
  uint4 xv[kU][kMTiles][2];
#pragma unroll
  for (int i = 0; i < kU; ++i) {
    const int u = u_begin + warp + i * kW;
    if (u < u_end) {
#pragma unroll
      for (int b = 0; b < kNB; ++b) wv[i][b] = __ldg(wp + ((size_t)(j0 + b) * units + u) * 32 + lane);
#pragma unroll
      for (int mt = 0; mt < kMTiles; ++mt)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const int r = mt * 16 + g + 8 * h;
          xv[i][mt][h] = r < M ? __ldg(reinterpret_cast<const uint4*>(x + (size_t)r * K + u * 32 + 8 * t))
                               : make_uint4(0, 0, 0, 0);
        }
    }
  }
  float acc[kMTiles][kNB][4] = {};
  float sq[kMTiles][2] = {};
#pragma unroll
  for (int i = 0; i < kU; ++i) {
    const int u = u_begin + warp + i * kW;
    if (u < u_end) {
#pragma unroll
      for (int mt = 0; mt < kMTiles; ++mt) {
        const uint4 a = xv[i][mt][0], c = xv[i][mt][1];
        add_squares(sq[mt][0], a);
        add_squares(sq[mt][1], c);
#pragma unroll
        for (int b = 0; b < kNB; ++b) {
          mma16816(acc[mt][b], a.x, c.x, a.y, c.y, wv[i][b].x, wv[i][b].y);
          mma16816(acc[mt][b], a.z, c.z, a.w, c.w, wv[i][b].z, wv[i][b].w);
        }
      }
    }
  }
#pragma unroll
  for (int mt = 0; mt < kMTiles; ++mt)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      float s = sq[mt][h];
      s += __shfl_xor_sync(0xffffffffu, s, 1);
      s += __shfl_xor_sync(0xffffffffu, s, 2);
      if (t == 0) sq_s[warp][mt * 16 + g + 8 * h] = s;
    }
#pragma unroll
  for (int mt = 0; mt < kMTiles; ++mt)
#pragma unroll
    for (int b = 0; b < kNB; ++b) {
      float* r = red + ((size_t)warp * kRows + mt * 16 + g) * kRedCols + b * 8 + 2 * t;
      r[0] = acc[mt][b][0];
      r[1] = acc[mt][b][1];
      r[8 * kRedCols] = acc[mt][b][2];
      r[8 * kRedCols + 1] = acc[mt][b][3];
    }
  __syncthreads();
  for (int o = threadIdx.x; o < M * kCols; o += blockDim.x) {
    const int m = o / kCols, c = o % kCols;
    float sum = 0.0f;
#pragma unroll
    for (int w = 0; w < kW; ++w) sum += red[((size_t)w * kRows + m) * kRedCols + c];
    tot[m][c] = sum;
  }
  if (threadIdx.x < M) {
    float s = 0.0f;
#pragma unroll
    for (int w = 0; w < kW; ++w) s += sq_s[w][threadIdx.x];
    sq_tot[threadIdx.x] = s;
  }
  cg::cluster_group cluster = cg::this_cluster();
  cluster.sync();
  const int rank = cluster.block_rank();
  for (int o = rank * blockDim.x + threadIdx.x; o < M * kCols; o += kSplit * blockDim.x) {
    const int m = o / kCols, c = o % kCols;
    float sum = 0.0f, s2 = 0.0f;
#pragma unroll
    for (int b = 0; b < kSplit; ++b) {
      sum += *cluster.map_shared_rank(&tot[m][c], b);
      s2 += *cluster.map_shared_rank(&sq_tot[m], b);
    }
    const int n = j0 * 8 + c;
    if (n < N) y[(size_t)m * N + n] = __float2half_rn(sum * rsqrtf(s2 / K + eps));
  }
  cluster.sync();
}

// v4: v2 for up to 16 tokens with x brought into shared memory once per cluster of 2 blocks by
// bulk copies multicast to both (each block copies half the rows), W* still straight into
// registers.
__device__ inline unsigned smem_addr(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
template <int kNB, int kW, int kU>
__global__ void __launch_bounds__(kW * 32) fused_v4(const __half* __restrict__ x,
                                                     const uint4* __restrict__ wp,
                                                     __half* __restrict__ y, int M, int K, int N,
                                                     float eps) {
  constexpr int kRows = 16, kRedCols = kNB * 8 + 4;
  extern __shared__ __align__(128) unsigned char smem[];
  const int ld = K + 8;  // halves a staged row of x
  __half* xs = reinterpret_cast<__half*>(smem);
  float* red = reinterpret_cast<float*>(smem + (size_t)kRows * ld * 2);
  __shared__ __align__(8) unsigned long long bar;
  __shared__ float sq_s[kW][kRows];
  __shared__ float rstd_s[kRows];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
  const int units = K / 32;
  const int j0 = blockIdx.x * kNB;
  const int tiles = N / 8;
  unsigned rank;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_addr(&bar)));
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  // W first: every unit of the warp requested before anything waits.
  uint4 wv[kU][kNB];
#pragma unroll
  for (int i = 0; i < kU; ++i) {
    const int u = warp + i * kW;
#pragma unroll
    for (int b = 0; b < kNB; ++b)
      wv[i][b] = u < units && j0 + b < tiles ? __ldg(wp + ((size_t)(j0 + b) * units + u) * 32 + lane)
                                             : make_uint4(0, 0, 0, 0);
  }
  asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;" ::: "memory");
  if (threadIdx.x == 0) {
    const unsigned bytes = (unsigned)(M * K * 2);
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_addr(&bar)), "r"(bytes) : "memory");
    for (int m = (int)rank; m < M; m += 2) {
      asm volatile(
          "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster "
          "[%0], [%1], %2, [%3], %4;" ::"r"(smem_addr(xs + m * ld)),
          "l"(x + (size_t)m * K), "r"((unsigned)(K * 2)), "r"(smem_addr(&bar)), "h"((unsigned short)3)
          : "memory");
    }
  }
  {
    unsigned done = 0;
    while (!done) {
      asm volatile(
          "{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0; selp.u32 %0, 1, 0, p; }"
          : "=r"(done) : "r"(smem_addr(&bar)) : "memory");
    }
  }
  asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
  float acc[kNB][4] = {};
  float sq[2] = {};
#pragma unroll
  for (int i = 0; i < kU; ++i) {
    const int u = warp + i * kW;
    if (u < units) {
      uint4 a = make_uint4(0, 0, 0, 0), c = make_uint4(0, 0, 0, 0);
      if (g < M) a = *reinterpret_cast<const uint4*>(xs + g * ld + u * 32 + 8 * t);
      if (g + 8 < M) c = *reinterpret_cast<const uint4*>(xs + (g + 8) * ld + u * 32 + 8 * t);
      add_squares(sq[0], a);
      add_squares(sq[1], c);
#pragma unroll
      for (int b = 0; b < kNB; ++b) {
        mma16816(acc[b], a.x, c.x, a.y, c.y, wv[i][b].x, wv[i][b].y);
        mma16816(acc[b], a.z, c.z, a.w, c.w, wv[i][b].z, wv[i][b].w);
      }
    }
  }
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    float s = sq[h];
    s += __shfl_xor_sync(0xffffffffu, s, 1);
    s += __shfl_xor_sync(0xffffffffu, s, 2);
    if (t == 0) sq_s[warp][g + 8 * h] = s;
  }
#pragma unroll
  for (int b = 0; b < kNB; ++b) {
    float* r = red + ((size_t)warp * kRows + g) * kRedCols + b * 8 + 2 * t;
    r[0] = acc[b][0];
    r[1] = acc[b][1];
    r[8 * kRedCols] = acc[b][2];
    r[8 * kRedCols + 1] = acc[b][3];
  }
  __syncthreads();
  if (threadIdx.x < M) {
    float s = 0.0f;
#pragma unroll
    for (int w = 0; w < kW; ++w) s += sq_s[w][threadIdx.x];
    rstd_s[threadIdx.x] = rsqrtf(s / K + eps);
  }
  __syncthreads();
  for (int o = threadIdx.x; o < M * kNB * 8; o += blockDim.x) {
    const int m = o / (kNB * 8), c = o % (kNB * 8);
    float sum = 0.0f;
#pragma unroll
    for (int w = 0; w < kW; ++w) sum += red[((size_t)w * kRows + m) * kRedCols + c];
    const int n = j0 * 8 + c;
    if (n < N) y[(size_t)m * N + n] = __float2half_rn(sum * rstd_s[m]);
  }
  asm volatile("barrier.cluster.wait.aligned;" ::: "memory");
}

__global__ void empty_kernel() {}

template <typename F>
double time_graph(cudaStream_t st, F launch) {
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CK(cudaStreamBeginCapture(st, cudaStreamCaptureModeGlobal));
  launch();
  CK(cudaStreamEndCapture(st, &graph));
  CK(cudaGraphInstantiate(&exec, graph, 0));
  for (int i = 0; i < 50; ++i) CK(cudaGraphLaunch(exec, st));
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  std::vector<double> samples;
  for (int s = 0; s < 7; ++s) {
    CK(cudaEventRecord(a, st));
    for (int i = 0; i < 200; ++i) CK(cudaGraphLaunch(exec, st));
    CK(cudaEventRecord(b, st));
    CK(cudaEventSynchronize(b));
    float ms;
    CK(cudaEventElapsedTime(&ms, a, b));
    samples.push_back(ms * 1000.0 / 200);
  }
  std::sort(samples.begin(), samples.end());
  CK(cudaGraphExecDestroy(exec));
  CK(cudaGraphDestroy(graph));
  return samples[3];
}

std::vector<__half> pack(const std::vector<__half>& w, int K, int N) {
  const int units = K / 32, tiles = N / 8;
  std::vector<__half> p((size_t)K * N);
  for (int j = 0; j < tiles; ++j)
    for (int u = 0; u < units; ++u)
      for (int l = 0; l < 32; ++l)
        for (int q = 0; q < 4; ++q)
          for (int e = 0; e < 2; ++e) {
            const int g = l / 4, t = l % 4, s = q / 2, r = q % 2;
            const int k = u * 32 + s * 16 + r * 8 + 2 * t + e, n = j * 8 + g;
            p[(((size_t)j * units + u) * 32 + l) * 8 + q * 2 + e] = w[(size_t)k * N + n];
          }
  return p;
}

struct Shape {
  int M, K, N;
};

template <int kMTiles, int kNB, int kMaxU>
double run_fused(cudaStream_t st, const Shape& s, const __half* x, const uint4* wp, __half* y) {
  auto kernel = fused_packed<kMTiles, kNB, kMaxU>;
  const size_t bytes = (size_t)kMTiles * 16 * (s.K + 8) * 2 +
                       (size_t)kWarps * kMTiles * 16 * (kNB * 8 + 4) * 4;
  CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes));
  const int blocks = s.N / (8 * kNB);
  return time_graph(st, [&] {
    kernel<<<blocks, kWarps * 32, bytes, st>>>(x, wp, y, s.M, s.K, s.N, 1e-6f);
  });
}


template <int kMTiles, int kNB, int kW, int kU>
double run_v2(cudaStream_t st, const Shape& s, const __half* x, const uint4* wp, __half* y) {
  auto kernel = fused_v2<kMTiles, kNB, kW, kU>;
  const size_t bytes = (size_t)kW * kMTiles * 16 * (kNB * 8 + 4) * 4;
  CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes));
  const int blocks = s.N / (8 * kNB);
  return time_graph(st, [&] {
    kernel<<<blocks, kW * 32, bytes, st>>>(x, wp, y, s.M, s.K, s.N, 1e-6f);
  });
}

template <int kMTiles, int kNB, int kW, int kU, int kSplit>
double run_v3(cudaStream_t st, const Shape& s, const __half* x, const uint4* wp, __half* y) {
  auto kernel = fused_v3<kMTiles, kNB, kW, kU, kSplit>;
  const size_t bytes = (size_t)kW * kMTiles * 16 * (kNB * 8 + 4) * 4;
  CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes));
  cudaLaunchAttribute cl{};
  cl.id = cudaLaunchAttributeClusterDimension;
  cl.val.clusterDim.x = 1;
  cl.val.clusterDim.y = kSplit;
  cl.val.clusterDim.z = 1;
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = dim3((s.N / 8 + kNB - 1) / kNB, kSplit);
  cfg.blockDim = dim3(kW * 32);
  cfg.dynamicSmemBytes = bytes;
  cfg.stream = st;
  cfg.attrs = &cl;
  cfg.numAttrs = 1;
  return time_graph(st, [&] {
    CK(cudaLaunchKernelEx(&cfg, kernel, x, wp, y, s.M, s.K, s.N, 1e-6f));
  });
}

template <int kNB, int kW, int kU>
double run_v4(cudaStream_t st, const Shape& s, const __half* x, const uint4* wp, __half* y) {
  auto kernel = fused_v4<kNB, kW, kU>;
  const size_t bytes = (size_t)16 * (s.K + 8) * 2 + (size_t)kW * 16 * (kNB * 8 + 4) * 4;
  CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes));
  cudaLaunchAttribute cl{};
  cl.id = cudaLaunchAttributeClusterDimension;
  cl.val.clusterDim.x = 2;
  cl.val.clusterDim.y = 1;
  cl.val.clusterDim.z = 1;
  cudaLaunchConfig_t cfg{};
  const int blocks = (s.N / 8 + kNB - 1) / kNB;
  cfg.gridDim = dim3((blocks + 1) / 2 * 2);
  cfg.blockDim = dim3(kW * 32);
  cfg.dynamicSmemBytes = bytes;
  cfg.stream = st;
  cfg.attrs = &cl;
  cfg.numAttrs = 1;
  return time_graph(st, [&] {
    CK(cudaLaunchKernelEx(&cfg, kernel, x, wp, y, s.M, s.K, s.N, 1e-6f));
  });
}

int main(int argc, char** argv) {
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  printf("# %s\n", prop.name);
  cudaStream_t st;
  CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  cublasHandle_t h;
  cublasCreate(&h);
  cublasSetStream(h, st);
  void* ws;
  CK(cudaMalloc(&ws, 32 << 20));
  cublasSetWorkspace(h, ws, 32 << 20);
  unsigned* sink;
  CK(cudaMalloc(&sink, 16));
  const Shape shapes[] = {{1, 576, 960},   {16, 576, 960},   {64, 576, 960},
                          {1, 2048, 2560}, {16, 2048, 2560}, {64, 2048, 2560}};
  std::mt19937 rng(7);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  const int rounds = argc > 1 ? atoi(argv[1]) : 2;
  for (int round = 0; round < rounds; ++round)
    for (const Shape& s : shapes) {
      std::vector<__half> hx((size_t)s.M * s.K), hw((size_t)s.K * s.N);
      for (auto& v : hx) v = __float2half(nd(rng) * 1.5f + 0.3f);
      for (auto& v : hw) v = __float2half(nd(rng) * 0.05f);
      auto hp = pack(hw, s.K, s.N);
      __half *x, *w, *y, *yc;
      CK(cudaMalloc(&x, hx.size() * 2));
      CK(cudaMalloc(&w, hw.size() * 2));
      __half* wpk;
      CK(cudaMalloc(&wpk, hw.size() * 2));
      CK(cudaMalloc(&y, (size_t)s.M * s.N * 2));
      CK(cudaMalloc(&yc, (size_t)s.M * s.N * 2));
      CK(cudaMemcpy(x, hx.data(), hx.size() * 2, cudaMemcpyHostToDevice));
      CK(cudaMemcpy(w, hw.data(), hw.size() * 2, cudaMemcpyHostToDevice));
      CK(cudaMemcpy(wpk, hp.data(), hp.size() * 2, cudaMemcpyHostToDevice));
      const uint4* wp = reinterpret_cast<const uint4*>(wpk);
      const double empty = time_graph(st, [&] { empty_kernel<<<1, 32, 0, st>>>(); });
      const float one = 1.0f, zero = 0.0f;
      const double gemm = time_graph(st, [&] {
        cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, s.N, s.M, s.K, &one, w, CUDA_R_16F, s.N, x,
                     CUDA_R_16F, s.K, &zero, yc, CUDA_R_16F, s.N, CUBLAS_COMPUTE_32F,
                     CUBLAS_GEMM_DEFAULT);
      });
      double read1 = 0, read2 = 0;
      if (s.K == 2048) {
        read1 = time_graph(st, [&] { read_packed<1, 8><<<s.N / 8, 256, 0, st>>>(wp, sink, s.K); });
        read2 = time_graph(st, [&] { read_packed<2, 8><<<s.N / 16, 256, 0, st>>>(wp, sink, s.K); });
      } else {
        read1 = time_graph(st, [&] { read_packed<1, 3><<<s.N / 8, 256, 0, st>>>(wp, sink, s.K); });
        read2 = time_graph(st, [&] { read_packed<2, 3><<<s.N / 16, 256, 0, st>>>(wp, sink, s.K); });
      }
      // fused variants
      std::vector<std::pair<const char*, double>> fused;
      auto check = [&](const char* name, double us) {
        std::vector<__half> hy((size_t)s.M * s.N);
        CK(cudaMemcpy(hy.data(), y, hy.size() * 2, cudaMemcpyDeviceToHost));
        double worst = 0;
        for (int m = 0; m < s.M; ++m) {
          double ss = 0;
          for (int k = 0; k < s.K; ++k) {
            double v = __half2float(hx[(size_t)m * s.K + k]);
            ss += v * v;
          }
          const double r = 1.0 / std::sqrt(ss / s.K + 1e-6);
          for (int n = 0; n < s.N; n += 7) {
            double acc = 0, mag = 0;
            for (int k = 0; k < s.K; ++k) {
              double p = (double)__half2float(hx[(size_t)m * s.K + k]) *
                         __half2float(hw[(size_t)k * s.N + n]);
              acc += p;
              mag += std::fabs(p);
            }
            const double ref = acc * r;
            const double err = std::fabs(__half2float(hy[(size_t)m * s.N + n]) - ref) /
                               (std::fabs(ref) * 0x1p-11 + mag * r * 1e-3 + 1e-6);
            worst = std::max(worst, err);
          }
        }
        fused.push_back({name, us});
        printf("   %-14s %7.2f us  err/tol %.3f %s\n", name, us, worst, worst <= 1.0 ? "ok" : "FAIL");
      };
      printf("M=%d K=%d N=%d  empty %.2f  gemm %.2f  read nb1 %.2f nb2 %.2f\n", s.M, s.K, s.N,
             empty, gemm, read1, read2);
      CK(cudaMemset(y, 0xff, (size_t)s.M * s.N * 2));

      {
        auto hp2 = pack2(hw, s.K, s.N);
        CK(cudaMemcpy(wpk, hp2.data(), hp2.size() * 2, cudaMemcpyHostToDevice));
#define V2(a, b, c, d) CK(cudaMemset(y, 0xff, (size_t)s.M * s.N * 2)); check("v2 " #a "," #b "," #c "," #d, run_v2<a, b, c, d>(st, s, x, wp, y));
        auto repo = [&](const char* name) {
          CK(cudaMemset(y, 0xff, (size_t)s.M * s.N * 2));
          const double us = time_graph(st, [&] {
            normlab::ch11::fused_rmsnorm_linear(normlab::ch11::FusedKernel::warp_split, x,
                                                {.packed = wpk}, s.M, s.K, s.N, 1e-6f, y, st);
          });
          check(name, us);
        };
#define V3(a, b, c, d, e) CK(cudaMemset(y, 0xff, (size_t)s.M * s.N * 2)); check("v3 " #a "," #b "," #c "," #d "," #e, run_v3<a, b, c, d, e>(st, s, x, wp, y));
        if (s.K == 2048 && s.M <= 16) {
#define V4(b, c, d) CK(cudaMemset(y, 0xff, (size_t)s.M * s.N * 2)); check("v4 " #b "," #c "," #d, run_v4<b, c, d>(st, s, x, wp, y));
          repo("repo"); V4(3, 16, 4) V4(4, 16, 4) V4(2, 16, 4) V4(3, 8, 8) repo("repo"); V4(3, 16, 4)
        } else if (s.K == 2048) {
          
        } else if (s.M <= 16) {
          repo("repo");
        } else {
          repo("repo");
        }
      }
      CK(cudaDeviceSynchronize());
      cudaFree(x);
      cudaFree(w);
      cudaFree(wpk);
      cudaFree(y);
      cudaFree(yc);
    }
  return 0;
}
