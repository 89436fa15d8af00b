// SPDX-License-Identifier: Apache-2.0
// Exercise 03: warp shuffles.
//
// Chapter 02 adds a block's partial sums in a shared-memory tree: eight levels for 256 threads,
// each a round trip through shared memory and a barrier. Chapter 03 adds them in registers
// instead: warp_sum exchanges values between the 32 lanes of a warp with shuffles, and
// block_sum needs shared memory only to combine the warps' totals. This file is a block-per-row
// RMSNorm whose one reduction is block_sum; the reductions themselves are in reductions.cuh.
#include "ex03.cuh"
#include "normlab/arguments.hpp"
#include "normlab/check.hpp"
#include "reductions.cuh"

namespace normlab::ex03 {

namespace {

constexpr int kThreads = 256;  // eight warps
static_assert(kThreads % kWarpSize == 0, "block_sum needs whole warps");

// Block `blockIdx.x` normalises one row; thread t reads columns t, t + kThreads, ...
__global__ void rmsnorm_warp_shuffle(const float* x, std::int64_t x_stride, const float* weight,
                                     float* y, std::int64_t y_stride, std::int64_t cols,
                                     float eps) {
  const float* x_row = x + static_cast<std::int64_t>(blockIdx.x) * x_stride;
  float* y_row = y + static_cast<std::int64_t>(blockIdx.x) * y_stride;
  float sum_squares = 0.0f;
  for (std::int64_t c = threadIdx.x; c < cols; c += kThreads) {
    const float value = x_row[c];
    sum_squares += value * value;
  }
  const float rstd = rsqrtf(block_sum(sum_squares) / static_cast<float>(cols) + eps);
  for (std::int64_t c = threadIdx.x; c < cols; c += kThreads) {
    y_row[c] = x_row[c] * rstd * weight[c];
  }
}

}  // namespace

void rmsnorm(const float* x, std::int64_t x_stride, const float* weight, float* y,
             std::int64_t y_stride, std::int64_t rows, std::int64_t cols, float eps,
             cudaStream_t stream) {
  const char* fn = "ex03::rmsnorm";
  validate_shape(fn, rows, cols);
  validate_tensor(fn, "x", x, rows, cols, x_stride);
  validate_tensor(fn, "y", y, rows, cols, y_stride);
  validate_vector(fn, "weight", weight);
  validate_eps(fn, eps);
  check_argument(rows < (1LL << 31), fn, "rows", "must be < 2^31 (one block per row)");
  if (rows == 0) return;
  rmsnorm_warp_shuffle<<<static_cast<unsigned int>(rows), kThreads, 0, stream>>>(
      x, x_stride, weight, y, y_stride, cols, eps);
  NORMLAB_CHECK_LAUNCH();
}

}  // namespace normlab::ex03
