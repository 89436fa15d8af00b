// Experiment: what the slim kernels pay over the best peer on 1 to 256 rows of 256 to 8192 bf16
// columns, where a call takes a few microseconds. The product's slim kernel (slim.cu, launched as
// its launcher launches it) runs beside a lean kernel of the same function, which takes either a
// small argument struct or the product's Tensors, and beside empty kernels of each argument size.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "../../../../common/src/check.cpp"
#include "configs.cpp"
#include "slim.cu"

namespace small {
using bf16 = __nv_bfloat16;
using Big = normlab::kernels::Tensors<bf16, bf16>;

struct Args {
  const bf16* x;
  const bf16* w;
  const bf16* b;
  bf16* y;
  int rows;
  int cols;
  float eps;
};

// The fields the lean kernel reads, from either struct.
__device__ __forceinline__ const bf16* x_of(const Args& a) {
  return a.x;
}
__device__ __forceinline__ const bf16* w_of(const Args& a) {
  return a.w;
}
__device__ __forceinline__ const bf16* b_of(const Args& a) {
  return a.b;
}
__device__ __forceinline__ bf16* y_of(const Args& a) {
  return a.y;
}
__device__ __forceinline__ int rows_of(const Args& a) {
  return a.rows;
}
__device__ __forceinline__ int cols_of(const Args& a) {
  return a.cols;
}
__device__ __forceinline__ float eps_of(const Args& a) {
  return a.eps;
}
__device__ __forceinline__ const bf16* x_of(const Big& a) {
  return a.x;
}
__device__ __forceinline__ const bf16* w_of(const Big& a) {
  return a.weight;
}
__device__ __forceinline__ const bf16* b_of(const Big& a) {
  return a.bias;
}
__device__ __forceinline__ bf16* y_of(const Big& a) {
  return a.y;
}
__device__ __forceinline__ int rows_of(const Big& a) {
  return static_cast<int>(a.rows);
}
__device__ __forceinline__ int cols_of(const Big& a) {
  return static_cast<int>(a.cols);
}
__device__ __forceinline__ float eps_of(const Big& a) {
  return a.eps;
}

__device__ __forceinline__ void unpack(uint4 u, float (&f)[8]) {
  const unsigned w[4] = {u.x, u.y, u.z, u.w};
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    f[2 * j] = __uint_as_float(w[j] << 16);
    f[2 * j + 1] = __uint_as_float(w[j] & 0xffff0000u);
  }
}
__device__ __forceinline__ uint4 pack(const float (&f)[8]) {
  unsigned w[4];
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    __nv_bfloat162 p = __floats2bfloat162_rn(f[2 * j], f[2 * j + 1]);
    w[j] = *reinterpret_cast<unsigned*>(&p);
  }
  return make_uint4(w[0], w[1], w[2], w[3]);
}

// G lanes a row (a power of two up to 32: shuffles only), or G = 0: the block holds one row and
// sums through shared memory, one barrier a sum with its own slots. Rows in 32 bits, x and the
// parameters loaded at once, LayerNorm's two sums from the registers.
template <int G>
__device__ __forceinline__ float row_sum(float v, float* slots) {
  constexpr int kFrom = G > 0 ? G / 2 : 16;
#pragma unroll
  for (int o = kFrom; o > 0; o >>= 1)
    v += __shfl_xor_sync(0xffffffffu, v, o);
  if constexpr (G > 0) {
    return v;
  } else {
    if (threadIdx.x % 32 == 0) slots[threadIdx.x / 32] = v;
    __syncthreads();
    const int lane = threadIdx.x % 32;
    v = lane < static_cast<int>(blockDim.x / 32) ? slots[lane] : 0.0f;
#pragma unroll
    for (int o = 16; o > 0; o >>= 1)
      v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
  }
}

template <int G, int VEC, bool LN, typename A>
__global__ void __launch_bounds__(512) lean(const A a) {
  __shared__ float slots[2][32];
  const int per_row = G > 0 ? G : static_cast<int>(blockDim.x);
  const int lane = static_cast<int>(threadIdx.x) % per_row;
  const int r = static_cast<int>(blockIdx.x) * (static_cast<int>(blockDim.x) / per_row) +
                static_cast<int>(threadIdx.x) / per_row;
  const int chunks = r < rows_of(a) ? cols_of(a) / 8 : 0;
  const std::int64_t base = static_cast<std::int64_t>(r) * cols_of(a);
  const uint4* x = reinterpret_cast<const uint4*>(x_of(a) + base);
  const uint4* w = reinterpret_cast<const uint4*>(w_of(a));
  const uint4* b = reinterpret_cast<const uint4*>(b_of(a));
  uint4 h[VEC], wv[VEC], bv[VEC];
#pragma unroll
  for (int v = 0; v < VEC; ++v) {
    const int c = lane + v * per_row;
    h[v] = wv[v] = bv[v] = make_uint4(0, 0, 0, 0);
    if (c < chunks) {
      h[v] = x[c];
      wv[v] = w[c];
      if (LN) bv[v] = b[c];
    }
  }
  float s = 0.0f;
#pragma unroll
  for (int v = 0; v < VEC; ++v) {
    float f[8];
    unpack(h[v], f);
#pragma unroll
    for (int j = 0; j < 8; ++j)
      s += LN ? f[j] : f[j] * f[j];
  }
  s = row_sum<G>(s, slots[0]);
  const float n = static_cast<float>(cols_of(a));
  float mean = 0.0f, ms = s / n;
  if (LN) {
    mean = s / n;
    float d = 0.0f;
#pragma unroll
    for (int v = 0; v < VEC; ++v) {
      if (lane + v * per_row >= chunks) continue;
      float f[8];
      unpack(h[v], f);
#pragma unroll
      for (int j = 0; j < 8; ++j)
        d += (f[j] - mean) * (f[j] - mean);
    }
    ms = row_sum<G>(d, slots[1]) / n;
  }
  const float rstd = rsqrtf(ms + eps_of(a));
  uint4* y = reinterpret_cast<uint4*>(y_of(a) + base);
#pragma unroll
  for (int v = 0; v < VEC; ++v) {
    const int c = lane + v * per_row;
    if (c >= chunks) continue;
    float f[8], sc[8], sh[8];
    unpack(h[v], f);
    unpack(wv[v], sc);
    unpack(bv[v], sh);
#pragma unroll
    for (int j = 0; j < 8; ++j)
      f[j] = (f[j] - mean) * rstd * sc[j] + (LN ? sh[j] : 0.0f);
    y[c] = pack(f);
  }
}

template <typename A>
__global__ void empty(const A a) {
  if (rows_of(a) < 0) y_of(a)[0] = x_of(a)[0];
}

template <typename A>
A args_of(const void* x, const void* w, const void* b, void* y, int rows, int cols, float eps);
template <>
Args args_of<Args>(const void* x, const void* w, const void* b, void* y, int rows, int cols,
                   float eps) {
  return Args{static_cast<const bf16*>(x),
              static_cast<const bf16*>(w),
              static_cast<const bf16*>(b),
              static_cast<bf16*>(y),
              rows,
              cols,
              eps};
}
template <>
Big args_of<Big>(const void* x, const void* w, const void* b, void* y, int rows, int cols,
                 float eps) {
  Big t{};
  t.x = static_cast<const bf16*>(x);
  t.x_stride = cols;
  t.y = static_cast<bf16*>(y);
  t.y_stride = cols;
  t.weight = static_cast<const bf16*>(w);
  t.bias = static_cast<const bf16*>(b);
  t.rows = rows;
  t.cols = cols;
  t.eps = eps;
  return t;
}

template <typename A, bool LN>
int lean_by_shape(int g, int vec, int threads, const A& a, cudaStream_t s) {
  const int per_row = g > 0 ? g : threads;
  const int blocks = (a.rows + threads / per_row - 1) / (threads / per_row);
#define L(G, V)                                      \
  if (g == G && vec == V) {                          \
    lean<G, V, LN, A><<<blocks, threads, 0, s>>>(a); \
    return static_cast<int>(cudaGetLastError());     \
  }
  L(32, 1)
  L(8, 4) L(16, 4) L(32, 3) L(32, 4) L(0, 1) L(0, 2) L(0, 4)
#undef L
      return -3;
}
}  // namespace small

extern "C" int small_lean(int ln, int big, int g, int vec, int threads, const void* x,
                          const void* w, const void* b, void* y, int rows, int cols, float eps,
                          void* stream) {
  using namespace small;
  if (cols % 8 || (g > 0 ? g : threads) * vec * 8 < cols) return -2;
  auto s = static_cast<cudaStream_t>(stream);
  if (big) {
    const Big a = args_of<Big>(x, w, b, y, rows, cols, eps);
    return ln ? lean_by_shape<Big, true>(g, vec, threads, a, s)
              : lean_by_shape<Big, false>(g, vec, threads, a, s);
  }
  const Args a = args_of<Args>(x, w, b, y, rows, cols, eps);
  return ln ? lean_by_shape<Args, true>(g, vec, threads, a, s)
            : lean_by_shape<Args, false>(g, vec, threads, a, s);
}

extern "C" int small_empty(int big, void* stream) {
  using namespace small;
  auto s = static_cast<cudaStream_t>(stream);
  if (big) {
    empty<Big><<<1, 32, 0, s>>>(args_of<Big>(nullptr, nullptr, nullptr, nullptr, 1, 8, 0.f));
  } else {
    empty<Args><<<1, 32, 0, s>>>(args_of<Args>(nullptr, nullptr, nullptr, nullptr, 1, 8, 0.f));
  }
  return static_cast<int>(cudaGetLastError());
}

// The product's slim kernel of configuration @p name, configured and launched as its launcher
// does. Returns threads * 100000 + blocks, or a negative code.
extern "C" int small_product(int ln, const char* name, const void* x, const void* w, const void* b,
                             void* y, int rows, int cols, float eps, void* stream) {
  using namespace normlab::kernels::configured;
  using T = __nv_bfloat16;
  normlab::kernels::Tensors<T, T> t =
      small::args_of<small::Big>(x, w, ln ? b : nullptr, y, rows, cols, eps);
  Problem p;
  p.rows = rows;
  p.cols = cols;
  p.element_bytes = 2;
  p.aligned = true;
  p.chunks = cols / 8;
  p.centre = ln != 0;
  try {
    const Choice c = configure(config_index(name), p);
    if (ln) {
      launch_slim<T, T, true, false>(t, c, static_cast<cudaStream_t>(stream));
    } else {
      launch_slim<T, T, false, false>(t, c, static_cast<cudaStream_t>(stream));
    }
    return static_cast<int>(c.threads) * 100000 + static_cast<int>(c.blocks);
  } catch (...) {
    return -5;
  }
}
