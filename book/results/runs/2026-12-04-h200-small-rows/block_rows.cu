// Experiment: what separates the product's slim kernels of a block a row (slim1_held,
// slim2_held) from the lean block kernel on 1 to 256 rows, one difference at a time. Built on
// small.cu (the product's slim kernels, the lean kernels, their argument structs).
#include "small.cu"

namespace small {

// Bits: 1 the product's Tensors (else the small struct); 2 each sum through block_sum, two
// barriers (else one barrier, a slot array a sum); 4 a grid-stride loop over 64-bit rows (else
// one row a block).
template <int VEC, bool LN, int BITS, typename A>
__device__ __forceinline__ void block_row(const A& a, std::int64_t r, float (&slots)[2][32]) {
  constexpr bool kTwoBarriers = (BITS & 2) != 0;
  auto sum = [&](float v, int k) {
    if constexpr (kTwoBarriers) {
      return normlab::device::block_sum(v);
    } else {
      return row_sum<0>(v, slots[k]);
    }
  };
  const int lane = static_cast<int>(threadIdx.x);
  const int per_row = static_cast<int>(blockDim.x);
  const int chunks = cols_of(a) / 8;
  const std::int64_t base = r * cols_of(a);
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
  s = sum(s, 0);
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
    ms = sum(d, 1) / n;
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

template <int VEC, bool LN, int BITS, typename A>
__global__ void __launch_bounds__(1024) block_rows(const A a) {
  __shared__ float slots[2][32];
  if constexpr ((BITS & 4) != 0) {
    for (std::int64_t r = blockIdx.x; r < a.rows; r += gridDim.x)
      block_row<VEC, LN, BITS>(a, r, slots);
  } else {
    block_row<VEC, LN, BITS>(a, blockIdx.x, slots);
  }
}

template <int VEC, bool LN, int BITS>
int block_rows_launch(const void* x, const void* w, const void* b, void* y, int rows, int cols,
                      float eps, cudaStream_t s) {
  const int threads = ((cols / 8 + VEC - 1) / VEC + 31) / 32 * 32;
  if ((BITS & 1) != 0) {
    block_rows<VEC, LN, BITS><<<rows, threads, 0, s>>>(args_of<Big>(x, w, b, y, rows, cols, eps));
  } else {
    block_rows<VEC, LN, BITS><<<rows, threads, 0, s>>>(args_of<Args>(x, w, b, y, rows, cols, eps));
  }
  return static_cast<int>(cudaGetLastError());
}

template <int VEC, bool LN>
int block_rows_by_bits(int bits, const void* x, const void* w, const void* b, void* y, int rows,
                       int cols, float eps, cudaStream_t s) {
  switch (bits) {
#define B(n) \
  case n:    \
    return block_rows_launch<VEC, LN, n>(x, w, b, y, rows, cols, eps, s);
    B(0) B(1) B(2) B(4) B(7)
#undef B
  }
  return -3;
}
}  // namespace small

extern "C" int small_block_rows(int ln, int vec, int bits, const void* x, const void* w,
                                const void* b, void* y, int rows, int cols, float eps,
                                void* stream) {
  using namespace small;
  auto s = static_cast<cudaStream_t>(stream);
  if (cols % 8 || ((cols / 8 + vec - 1) / vec) > 1024) return -2;
  switch (vec * 2 + ln) {
    case 2:
      return block_rows_by_bits<1, false>(bits, x, w, b, y, rows, cols, eps, s);
    case 3:
      return block_rows_by_bits<1, true>(bits, x, w, b, y, rows, cols, eps, s);
    case 4:
      return block_rows_by_bits<2, false>(bits, x, w, b, y, rows, cols, eps, s);
    case 5:
      return block_rows_by_bits<2, true>(bits, x, w, b, y, rows, cols, eps, s);
    case 8:
      return block_rows_by_bits<4, false>(bits, x, w, b, y, rows, cols, eps, s);
    case 9:
      return block_rows_by_bits<4, true>(bits, x, w, b, y, rows, cols, eps, s);
  }
  return -4;
}
