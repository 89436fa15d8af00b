// SPDX-License-Identifier: Apache-2.0
// Chapter 11, the deferred path's two small kernels: the statistics alone (M floats written,
// the normalised row never is), and the row scale used when cuBLASLt cannot apply it.
#include <cuda_fp16.h>

#include <algorithm>
#include <cstdint>

#include "ch11.cuh"
#include "normlab/check.hpp"
#include "normlab/device/reduce.cuh"
#include "normlab/device/vector.cuh"

namespace normlab::ch11 {

namespace {

using device::Vector;
constexpr int kWidth = Vector<__half>::kWidth;  // 8 halves in 16 bytes
constexpr int kMostThreads = 1024;

// [statistics]
// One block per row: each thread sums the squares of the 16-byte chunks it strides over
// (chapter 07's chunk loads, which fall back to single elements on a ragged or misaligned
// row), the block adds the sums (chapter 03's reduction), and thread 0 writes the row's rstd.
__global__ void row_rstd_kernel(const __half* x, std::int64_t cols, float eps, bool aligned,
                                float* rstd) {
  const __half* row = x + static_cast<std::int64_t>(blockIdx.x) * cols;
  float sum_of_squares = 0.0f;
  for (std::int64_t first = static_cast<std::int64_t>(threadIdx.x) * kWidth; first < cols;
       first += static_cast<std::int64_t>(blockDim.x) * kWidth) {
    device::accumulate_squares(sum_of_squares,
                               device::load_chunk<false>(row, first, cols, aligned));
  }
  const float total = device::block_sum_once(sum_of_squares);
  if (threadIdx.x == 0) rstd[blockIdx.x] = rsqrtf(total / static_cast<float>(cols) + eps);
}
// [statistics]

// One block a row, 8 halves a thread at a time (chapter 04's 16-byte accesses) where the rows
// lie on the 16-byte grid, element by element otherwise; each thread loads kBatch chunks before
// it stores any, since a store might alias the next load as far as the compiler knows, and the
// block has as many threads as a row has batches (at most 256). Chapter 12 scales 16384 x 8192
// outputs with it; one half a thread ran that far below the copy roof.
constexpr int kBatch = 4;
constexpr int kScaleThreads = 256;

__global__ void __launch_bounds__(kScaleThreads)
    scale_rows_kernel(__half* y, const float* scale, std::int64_t cols, bool aligned) {
  __half* row = y + static_cast<std::int64_t>(blockIdx.x) * cols;
  const float s = scale[blockIdx.x];
  const std::int64_t step = static_cast<std::int64_t>(blockDim.x) * kWidth;
  for (std::int64_t base = threadIdx.x * kWidth; base < cols; base += kBatch * step) {
    Vector<__half> v[kBatch];
#pragma unroll
    for (int b = 0; b < kBatch; ++b)
      v[b] = device::load_chunk<false>(row, base + b * step, cols, aligned);
#pragma unroll
    for (int b = 0; b < kBatch; ++b) {
#pragma unroll
      for (int j = 0; j < kWidth; ++j)
        v[b].element[j] = __float2half_rn(__half2float(v[b].element[j]) * s);
      device::store_chunk<false>(row, base + b * step, cols, aligned, v[b]);
    }
  }
}

// Threads for one row of @p cols: one a chunk, in whole warps,
// at most 1024.
int threads_for(std::int64_t cols) {
  const std::int64_t chunks = (cols + kWidth - 1) / kWidth;
  const std::int64_t warps = (chunks + device::kWarpSize - 1) / device::kWarpSize;
  return static_cast<int>(std::min<std::int64_t>(warps * device::kWarpSize, kMostThreads));
}

void check_rows(const char* fn, std::int64_t rows, std::int64_t cols) {
  check_argument(rows >= 0, fn, "rows", "must not be negative");
  check_argument(rows <= 0x7fffffff, fn, "rows", "must fit one block per row (at most 2^31 - 1)");
  check_argument(cols > 0, fn, "cols", "must be positive");
}

}  // namespace

void row_rstd(const __half* x, std::int64_t rows, std::int64_t cols, float eps, float* rstd,
              cudaStream_t stream) {
  const char* fn = "ch11::row_rstd";
  check_rows(fn, rows, cols);
  check_argument(rows == 0 || x != nullptr, fn, "x", "must not be null");
  check_argument(rows == 0 || rstd != nullptr, fn, "rstd", "must not be null");
  check_argument(eps > 0.0f, fn, "eps", "must be positive");
  if (rows == 0) return;
  const bool aligned = cols % kWidth == 0 && reinterpret_cast<std::uintptr_t>(x) % 16 == 0;
  row_rstd_kernel<<<static_cast<unsigned int>(rows), threads_for(cols), 0, stream>>>(x, cols, eps,
                                                                                     aligned, rstd);
  NORMLAB_CHECK_LAUNCH();
}

void scale_rows(__half* y, const float* scale, std::int64_t rows, std::int64_t cols,
                cudaStream_t stream) {
  const char* fn = "ch11::scale_rows";
  check_rows(fn, rows, cols);
  check_argument(rows == 0 || y != nullptr, fn, "y", "must not be null");
  check_argument(rows == 0 || scale != nullptr, fn, "scale", "must not be null");
  if (rows == 0) return;
  const bool aligned = cols % kWidth == 0 && reinterpret_cast<std::uintptr_t>(y) % 16 == 0;
  const int threads = std::min(threads_for((cols + kBatch - 1) / kBatch), kScaleThreads);
  scale_rows_kernel<<<static_cast<unsigned int>(rows), threads, 0, stream>>>(y, scale, cols,
                                                                             aligned);
  NORMLAB_CHECK_LAUNCH();
}

}  // namespace normlab::ch11
