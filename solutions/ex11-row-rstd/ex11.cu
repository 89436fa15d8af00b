// SPDX-License-Identifier: Apache-2.0
// Exercise 11: the statistics of FlashNorm's deferred path.
//
// Chapter 11 moves RMSNorm's 1/RMS past the matmul: Y = diag(rstd) · (X · W*), with the weight
// g already folded into W*. What is left of the norm before the GEMM is one number a row,
// rstd[m] = 1 / sqrt(mean(x[m][:]^2) + eps): a kernel that reads X once and writes M floats,
// 2·M·K + 4·M bytes, and so runs at the pace of memory. One block a row: chapter 07's 16-byte
// chunk loads, chapter 03's block reduction, called once.
#include "ex11.cuh"

#include <cstdint>

#include "normlab/arguments.hpp"
#include "normlab/check.hpp"
#include "normlab/device/reduce.cuh"
#include "normlab/device/vector.cuh"

namespace normlab::ex11 {

namespace {

using device::block_sum_once;
using device::load_chunk;
using device::to_float;
using Chunk = device::Vector<__half>;  // eight halves in 16 bytes

constexpr int kThreads = 256;
constexpr int kWidth = Chunk::kWidth;

// Block b writes rstd[b], the statistic of row b. Thread t sums the squares of the row's chunks
// t, t + kThreads, t + 2 * kThreads, ... (chunk k: elements 8k to 8k + 7), so that a warp's
// loads are 512 neighbouring bytes. @p aligned: every row starts on a 16-byte boundary, so a
// chunk wholly inside the row may move as one 16-byte load.
__global__ void __launch_bounds__(kThreads)
    row_rstd_kernel(const __half* x, std::int64_t x_stride, std::int64_t cols, float eps,
                    bool aligned, float* rstd) {
  // TODO(ex11) begin: sum the squares of row blockIdx.x over the block, then write its rstd
  const __half* row = x + static_cast<std::int64_t>(blockIdx.x) * x_stride;
  float squares = 0.0f;
  for (std::int64_t first = std::int64_t{threadIdx.x} * kWidth; first < cols;
       first += std::int64_t{kThreads} * kWidth) {
    const Chunk chunk = load_chunk<false>(row, first, cols, aligned);
#pragma unroll
    for (int j = 0; j < kWidth; ++j)
      squares += to_float(chunk.element[j]) * to_float(chunk.element[j]);
  }
  // Every thread reaches the reduction, those with no chunk included (they add zero).
  const float sum = block_sum_once<kThreads>(squares);
  if (threadIdx.x == 0) rstd[blockIdx.x] = rsqrtf(sum / static_cast<float>(cols) + eps);
  // TODO(ex11) end
}

}  // namespace

void row_rstd(const __half* x, std::int64_t x_stride, std::int64_t rows, std::int64_t cols,
              float eps, float* rstd, cudaStream_t stream) {
  const char* fn = "ex11::row_rstd";
  validate_shape(fn, rows, cols);
  validate_tensor(fn, "x", x, rows, cols, x_stride);
  check_argument(rows == 0 || rstd != nullptr, fn, "rstd", "is null");
  validate_eps(fn, eps);
  validate_one_block_per_row(fn, rows);
  if (rows == 0) return;
  // A 16-byte load needs its address on a 16-byte boundary: the base and every row's start.
  const bool aligned =
      reinterpret_cast<std::uintptr_t>(x) % device::kVectorBytes == 0 && x_stride % kWidth == 0;
  row_rstd_kernel<<<static_cast<unsigned int>(rows), kThreads, 0, stream>>>(x, x_stride, cols, eps,
                                                                            aligned, rstd);
  NORMLAB_CHECK_LAUNCH();
}

}  // namespace normlab::ex11
