// Experiment: what makes a one-row-per-block RMSNorm/LayerNorm (bf16) slower than Triton's.
// MODE 0: parameters loaded chunk by chunk after the statistics, each before its store
//         (the store an asm with a memory clobber, so loads cannot pass it)
// MODE 1: every chunk's parameters loaded (raw) after the statistics, then normalise + store
// MODE 2: parameters loaded with x, before the statistics (held, raw)
// K64: 64-bit chunk indices (as the library), else 32-bit.
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <cstdint>
#include <type_traits>

namespace {
__device__ __forceinline__ void st128(void* p, uint4 v) {
  asm volatile("st.global.v4.u32 [%0], {%1,%2,%3,%4};" ::"l"(p), "r"(v.x), "r"(v.y), "r"(v.z),
               "r"(v.w)
               : "memory");
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
__device__ __forceinline__ float block_sum(float v) {
  __shared__ float part[32];
#pragma unroll
  for (int o = 16; o > 0; o >>= 1)
    v += __shfl_xor_sync(0xffffffffu, v, o);
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (lane == 0) part[warp] = v;
  __syncthreads();
  v = lane < (blockDim.x >> 5) ? part[lane] : 0.0f;
#pragma unroll
  for (int o = 16; o > 0; o >>= 1)
    v += __shfl_xor_sync(0xffffffffu, v, o);
  __syncthreads();
  return v;
}

template <int VEC, int MODE, bool K64, bool LN>
__global__ void __launch_bounds__(512)
    norm_kernel(const __nv_bfloat16* x, const __nv_bfloat16* w, const __nv_bfloat16* b,
                __nv_bfloat16* y, long long rows, long long cols, float eps) {
  using I = std::conditional_t<K64, long long, int>;
  const I chunks = static_cast<I>(cols / 8);
  constexpr int NW = (MODE == 0) ? 1 : VEC;
  for (long long r = blockIdx.x; r < rows; r += gridDim.x) {
    const __nv_bfloat16* xr = x + r * cols;
    __nv_bfloat16* yr = y + r * cols;
    uint4 h[VEC], wv[NW], bv[LN ? NW : 1];
#pragma unroll
    for (int v = 0; v < VEC; ++v) {
      const I c = static_cast<I>(v) * static_cast<I>(blockDim.x) + static_cast<I>(threadIdx.x);
      h[v] = make_uint4(0u, 0u, 0u, 0u);
      if (c < chunks) h[v] = *reinterpret_cast<const uint4*>(xr + c * 8);
      if constexpr (MODE == 2) {
        if (c < chunks) {
          wv[v] = *reinterpret_cast<const uint4*>(w + c * 8);
          if constexpr (LN) bv[v] = *reinterpret_cast<const uint4*>(b + c * 8);
        }
      }
    }
    float mean = 0.0f;
    if constexpr (LN) {
      float s = 0.0f;
#pragma unroll
      for (int v = 0; v < VEC; ++v) {
        float f[8];
        tof(h[v], f);
#pragma unroll
        for (int j = 0; j < 8; ++j)
          s += f[j];
      }
      mean = block_sum(s) / static_cast<float>(cols);
    }
    float sq = 0.0f;
#pragma unroll
    for (int v = 0; v < VEC; ++v) {
      const I c = static_cast<I>(v) * static_cast<I>(blockDim.x) + static_cast<I>(threadIdx.x);
      float f[8];
      tof(h[v], f);
#pragma unroll
      for (int j = 0; j < 8; ++j) {
        float d = f[j] - mean;
        if (LN && !(c < chunks)) d = 0.0f;
        sq += d * d;
      }
    }
    const float rstd = rsqrtf(block_sum(sq) / static_cast<float>(cols) + eps);
    if constexpr (MODE == 1) {
#pragma unroll
      for (int v = 0; v < VEC; ++v) {
        const I c = static_cast<I>(v) * static_cast<I>(blockDim.x) + static_cast<I>(threadIdx.x);
        if (c < chunks) {
          wv[v] = *reinterpret_cast<const uint4*>(w + c * 8);
          if constexpr (LN) bv[v] = *reinterpret_cast<const uint4*>(b + c * 8);
        }
      }
    }
#pragma unroll
    for (int v = 0; v < VEC; ++v) {
      const I c = static_cast<I>(v) * static_cast<I>(blockDim.x) + static_cast<I>(threadIdx.x);
      if (c < chunks) {
        uint4 wc, bc = make_uint4(0u, 0u, 0u, 0u);
        if constexpr (MODE == 0) {
          wc = *reinterpret_cast<const uint4*>(w + c * 8);
          if constexpr (LN) bc = *reinterpret_cast<const uint4*>(b + c * 8);
        } else {
          wc = wv[v];
          if constexpr (LN) bc = bv[v];
        }
        float f[8], s[8], t[8];
        tof(h[v], f);
        tof(wc, s);
        tof(bc, t);
#pragma unroll
        for (int j = 0; j < 8; ++j)
          f[j] = (f[j] - mean) * rstd * s[j] + t[j];
        st128(yr + c * 8, fromf(f));
      }
    }
  }
}

using Fn = void (*)(const __nv_bfloat16*, const __nv_bfloat16*, const __nv_bfloat16*,
                    __nv_bfloat16*, long long, long long, float);

template <int VEC, bool LN>
Fn pick(int mode, int k64) {
  if (k64) {
    if (mode == 0) return norm_kernel<VEC, 0, true, LN>;
    if (mode == 1) return norm_kernel<VEC, 1, true, LN>;
    return norm_kernel<VEC, 2, true, LN>;
  }
  if (mode == 0) return norm_kernel<VEC, 0, false, LN>;
  if (mode == 1) return norm_kernel<VEC, 1, false, LN>;
  return norm_kernel<VEC, 2, false, LN>;
}

template <bool LN>
Fn pick_vec(int vec, int mode, int k64) {
  switch (vec) {
    case 1:
      return pick<1, LN>(mode, k64);
    case 2:
      return pick<2, LN>(mode, k64);
    case 4:
      return pick<4, LN>(mode, k64);
    case 8:
      return pick<8, LN>(mode, k64);
  }
  return nullptr;
}
}  // namespace

extern "C" int exp_regs(int ln, int vec, int mode, int k64) {
  Fn f = ln ? pick_vec<true>(vec, mode, k64) : pick_vec<false>(vec, mode, k64);
  if (!f) return -1;
  cudaFuncAttributes a{};
  if (cudaFuncGetAttributes(&a, reinterpret_cast<const void*>(f)) != cudaSuccess) return -2;
  return a.numRegs;
}

extern "C" int exp_launch(int ln, int vec, int mode, int k64, const void* x, const void* w,
                          const void* b, void* y, long long rows, long long cols, float eps,
                          void* stream) {
  Fn f = ln ? pick_vec<true>(vec, mode, k64) : pick_vec<false>(vec, mode, k64);
  if (!f || cols % 8 != 0) return -1;
  const long long chunks = cols / 8;
  long long threads = (chunks + vec - 1) / vec;
  threads = (threads + 31) / 32 * 32;
  if (threads > 512) return -3;
  f<<<static_cast<unsigned>(rows), static_cast<unsigned>(threads), 0,
      static_cast<cudaStream_t>(stream)>>>(
      static_cast<const __nv_bfloat16*>(x), static_cast<const __nv_bfloat16*>(w),
      static_cast<const __nv_bfloat16*>(b), static_cast<__nv_bfloat16*>(y), rows, cols, eps);
  return static_cast<int>(cudaGetLastError());
}
