// SPDX-License-Identifier: Apache-2.0
// Exercise 07: the bf16 x8 vector load and its tail.
//
// Chapter 07 moves 16 bytes per access whatever the dtype: four floats, or eight bf16 values.
// The eight arrive as one 128-bit load and are converted to fp32 in registers; the statistics
// and the arithmetic stay in fp32, and the result is rounded to bf16 once, when stored. A row
// whose width is not a multiple of 8 ends in a partial chunk that must be read element by
// element: a 16-byte load there would read past the row. Rows start 16-byte aligned here (the
// launcher checks it), so every chunk of 8 starts on a 16-byte boundary.
#include <string>

#include "ex07.cuh"
#include "normlab/arguments.hpp"
#include "normlab/check.hpp"
#include "normlab/device/reduce.cuh"
#include "normlab/device/vector.cuh"

namespace normlab::ex07 {

namespace {

constexpr int kThreads = 256;
constexpr int kWidth = 8;  // bf16 values in 16 bytes

// Eight bf16 values that move as one 16-byte vector: the library's (chapter 07's) vector.
using device::Vector;
static_assert(Vector<__nv_bfloat16>::kWidth == kWidth);

// Elements [first, first + 8) of a row of cols elements, as fp32, into out. first is a multiple
// of 8 and the row starts 16-byte aligned. Elements at or past cols are 0.
__device__ void load_bf16x8(const __nv_bfloat16* row, std::int64_t first, std::int64_t cols,
                            float (&out)[kWidth]) {
  // TODO(ex07) begin: one 16-byte load when the chunk lies inside the row, else element by element
#pragma unroll
  for (int j = 0; j < kWidth; ++j)
    out[j] = 0.0f;
  // TODO(ex07) end
}

// Rounds in[0..8) to bf16 and stores those inside the row: one 16-byte store, or element by
// element at the row's end.
__device__ void store_bf16x8(__nv_bfloat16* row, std::int64_t first, std::int64_t cols,
                             const float (&in)[kWidth]) {
  if (first + kWidth <= cols) {
    Vector<__nv_bfloat16> chunk;
#pragma unroll
    for (int j = 0; j < kWidth; ++j)
      chunk.element[j] = __float2bfloat16_rn(in[j]);
    *reinterpret_cast<Vector<__nv_bfloat16>*>(row + first) = chunk;
  } else {
#pragma unroll
    for (int j = 0; j < kWidth; ++j) {
      if (first + j < cols) row[first + j] = __float2bfloat16_rn(in[j]);
    }
  }
}

// Block blockIdx.x normalises one row in two passes over it: the sum of squares, then
// y = x * rstd * weight. Chunk k of 8 elements belongs to thread k % kThreads in both passes.
__global__ void rmsnorm_bf16x8(const __nv_bfloat16* x, std::int64_t x_stride,
                               const __nv_bfloat16* weight, __nv_bfloat16* y, std::int64_t y_stride,
                               std::int64_t cols, float eps) {
  const __nv_bfloat16* x_row = x + static_cast<std::int64_t>(blockIdx.x) * x_stride;
  __nv_bfloat16* y_row = y + static_cast<std::int64_t>(blockIdx.x) * y_stride;
  float squares = 0.0f;
  for (std::int64_t first = threadIdx.x * kWidth; first < cols; first += kThreads * kWidth) {
    float v[kWidth];
    load_bf16x8(x_row, first, cols, v);
#pragma unroll
    for (int j = 0; j < kWidth; ++j)
      squares += v[j] * v[j];
  }
  const float rstd = rsqrtf(device::block_sum(squares) / static_cast<float>(cols) + eps);
  for (std::int64_t first = threadIdx.x * kWidth; first < cols; first += kThreads * kWidth) {
    float v[kWidth], w[kWidth];
    load_bf16x8(x_row, first, cols, v);
    load_bf16x8(weight, first, cols, w);
#pragma unroll
    for (int j = 0; j < kWidth; ++j)
      v[j] = v[j] * rstd * w[j];
    store_bf16x8(y_row, first, cols, v);
  }
}

}  // namespace

void rmsnorm(const __nv_bfloat16* x, std::int64_t x_stride, const __nv_bfloat16* weight,
             __nv_bfloat16* y, std::int64_t y_stride, std::int64_t rows, std::int64_t cols,
             float eps, cudaStream_t stream) {
  const char* fn = "ex07::rmsnorm";
  validate_shape(fn, rows, cols);
  validate_tensor(fn, "x", x, rows, cols, x_stride);
  validate_tensor(fn, "y", y, rows, cols, y_stride);
  validate_vector(fn, "weight", weight);
  validate_eps(fn, eps);
  validate_alignment(fn, "x", x, x_stride, sizeof(__nv_bfloat16), 16);
  validate_alignment(fn, "y", y, y_stride, sizeof(__nv_bfloat16), 16);
  validate_alignment(fn, "weight", weight, 0, sizeof(__nv_bfloat16), 16);
  validate_one_block_per_row(fn, rows);
  if (rows == 0) return;
  rmsnorm_bf16x8<<<static_cast<unsigned int>(rows), kThreads, 0, stream>>>(x, x_stride, weight, y,
                                                                           y_stride, cols, eps);
  NORMLAB_CHECK_LAUNCH();
}

}  // namespace normlab::ex07
