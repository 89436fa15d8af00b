// Experiment: rows held by groups of lanes (shuffles only, no shared memory, no barrier),
// parameters loaded with the row, 32-bit offsets; bf16 RMSNorm / LayerNorm.
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <cstdint>

namespace {
__device__ __forceinline__ void st128(void* p, uint4 v) {
  asm volatile("st.global.v4.u32 [%0], {%1,%2,%3,%4};" ::"l"(p), "r"(v.x), "r"(v.y), "r"(v.z),
               "r"(v.w) : "memory");
}
__device__ __forceinline__ void tof(uint4 u, float (&f)[8]) {
  const unsigned w[4] = {u.x, u.y, u.z, u.w};
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    f[2 * j] = __uint_as_float(w[j] << 16);
    f[2 * j + 1] = __uint_as_float(w[j] & 0xffff0000u);
  }
}
__device__ __forceinline__ uint4 fromf(const float (&f)[8]) {
  unsigned w[4];
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    __nv_bfloat162 p = __floats2bfloat162_rn(f[2 * j], f[2 * j + 1]);
    w[j] = *reinterpret_cast<unsigned*>(&p);
  }
  return make_uint4(w[0], w[1], w[2], w[3]);
}
template <int L>
__device__ __forceinline__ float gsum(float v) {
#pragma unroll
  for (int o = L / 2; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

template <int L, int VEC, bool LN>
__global__ void __launch_bounds__(256) group_kernel(const __nv_bfloat16* x, const __nv_bfloat16* w,
                                                    const __nv_bfloat16* b, __nv_bfloat16* y,
                                                    long long rows, int cols, float eps) {
  const int chunks = cols / 8;
  const int lane = threadIdx.x % L;
  const long long per_block = blockDim.x / L;
  const uint4 zero = make_uint4(0u, 0u, 0u, 0u);
  uint4 wv[VEC], bv[LN ? VEC : 1];
#pragma unroll
  for (int v = 0; v < VEC; ++v) {
    const int c = v * L + lane;
    wv[v] = zero;
    if (c < chunks) {
      wv[v] = *reinterpret_cast<const uint4*>(w + c * 8);
      if constexpr (LN) bv[v] = *reinterpret_cast<const uint4*>(b + c * 8);
    }
  }
  for (long long r = blockIdx.x * per_block + threadIdx.x / L; r < rows;
       r += gridDim.x * per_block) {
    const __nv_bfloat16* xr = x + r * cols;
    __nv_bfloat16* yr = y + r * cols;
    uint4 h[VEC];
#pragma unroll
    for (int v = 0; v < VEC; ++v) {
      const int c = v * L + lane;
      h[v] = zero;
      if (c < chunks) h[v] = *reinterpret_cast<const uint4*>(xr + c * 8);
    }
    float mean = 0.0f;
    if constexpr (LN) {
      float s = 0.0f;
#pragma unroll
      for (int v = 0; v < VEC; ++v) {
        float f[8];
        tof(h[v], f);
#pragma unroll
        for (int j = 0; j < 8; ++j) s += f[j];
      }
      mean = gsum<L>(s) / static_cast<float>(cols);
    }
    float sq = 0.0f;
#pragma unroll
    for (int v = 0; v < VEC; ++v) {
      const int c = v * L + lane;
      float f[8];
      tof(h[v], f);
#pragma unroll
      for (int j = 0; j < 8; ++j) {
        float d = f[j] - mean;
        if (LN && !(c < chunks)) d = 0.0f;
        sq += d * d;
      }
    }
    const float rstd = rsqrtf(gsum<L>(sq) / static_cast<float>(cols) + eps);
#pragma unroll
    for (int v = 0; v < VEC; ++v) {
      const int c = v * L + lane;
      if (c < chunks) {
        float f[8], s[8], t[8] = {};
        tof(h[v], f);
        tof(wv[v], s);
        if constexpr (LN) tof(bv[v], t);
#pragma unroll
        for (int j = 0; j < 8; ++j) f[j] = (f[j] - mean) * rstd * s[j] + t[j];
        st128(yr + c * 8, fromf(f));
      }
    }
  }
}

using Fn = void (*)(const __nv_bfloat16*, const __nv_bfloat16*, const __nv_bfloat16*,
                    __nv_bfloat16*, long long, int, float);
template <int L, bool LN>
Fn by_vec(int vec) {
  switch (vec) {
    case 1: return group_kernel<L, 1, LN>;
    case 2: return group_kernel<L, 2, LN>;
    case 4: return group_kernel<L, 4, LN>;
    case 8: return group_kernel<L, 8, LN>;
  }
  return nullptr;
}
template <bool LN>
Fn pick(int lanes, int vec) {
  switch (lanes) {
    case 4: return by_vec<4, LN>(vec);
    case 8: return by_vec<8, LN>(vec);
    case 16: return by_vec<16, LN>(vec);
    case 32: return by_vec<32, LN>(vec);
  }
  return nullptr;
}
}  // namespace

extern "C" int exp_launch(int ln, int lanes, int vec, int threads, int grid_cap, const void* x,
                          const void* w, const void* b, void* y, long long rows, int cols,
                          float eps, void* stream) {
  Fn f = ln ? pick<true>(lanes, vec) : pick<false>(lanes, vec);
  if (!f || cols % 8 || cols / 8 > lanes * vec) return -1;
  const long long per_block = threads / lanes;
  long long grid = (rows + per_block - 1) / per_block;
  if (grid_cap > 0 && grid > grid_cap) grid = grid_cap;
  f<<<static_cast<unsigned>(grid), threads, 0, static_cast<cudaStream_t>(stream)>>>(
      static_cast<const __nv_bfloat16*>(x), static_cast<const __nv_bfloat16*>(w),
      static_cast<const __nv_bfloat16*>(b), static_cast<__nv_bfloat16*>(y), rows, cols, eps);
  return static_cast<int>(cudaGetLastError());
}
extern "C" int exp_regs(int ln, int lanes, int vec) {
  Fn f = ln ? pick<true>(lanes, vec) : pick<false>(lanes, vec);
  cudaFuncAttributes a{};
  if (!f || cudaFuncGetAttributes(&a, f) != cudaSuccess) return -1;
  return a.numRegs;
}
