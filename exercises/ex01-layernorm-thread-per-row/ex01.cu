// SPDX-License-Identifier: Apache-2.0
// Exercise 01: LayerNorm with one thread per row.
//
// Chapter 01 gives each row to one thread, which needs one statistic: the mean square. LayerNorm
// needs two, and the second depends on the first: the mean, then the variance around that mean.
// So each thread walks its row three times: once for the mean, once for the variance, once to
// write y. The two passes for the statistics are the exercise.
#include "ex01.cuh"
#include "normlab/arguments.hpp"
#include "normlab/check.hpp"

namespace normlab::ex01 {

namespace {

constexpr int kThreads = 128;

// The mean of the row's cols values.
__device__ float row_mean(const float* x_row, std::int64_t cols) {
  // TODO(ex01) begin: add up the row's cols values and divide by cols
  return 0.0f;
  // TODO(ex01) end
}

// The population variance of the row: the mean of (x - mean)^2.
__device__ float row_variance(const float* x_row, std::int64_t cols, float mean) {
  // TODO(ex01) begin: a second pass over the row: the mean of (x - mean)^2, divided by cols
  return 0.0f;
  // TODO(ex01) end
}

// Thread `row` normalises row `row` on its own, exactly as in chapter 01: at every step the
// 32 threads of a warp read 32 different rows, so no load is coalesced.
__global__ void layernorm_thread_per_row(const float* x, std::int64_t x_stride, const float* weight,
                                         const float* bias, float* y, std::int64_t y_stride,
                                         std::int64_t rows, std::int64_t cols, float eps) {
  const std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  const float* x_row = x + row * x_stride;
  float* y_row = y + row * y_stride;
  const float mean = row_mean(x_row, cols);
  const float rstd = rsqrtf(row_variance(x_row, cols, mean) + eps);
  for (std::int64_t c = 0; c < cols; ++c) {
    y_row[c] = (x_row[c] - mean) * rstd * weight[c] + bias[c];
  }
}

}  // namespace

void layernorm(const float* x, std::int64_t x_stride, const float* weight, const float* bias,
               float* y, std::int64_t y_stride, std::int64_t rows, std::int64_t cols, float eps,
               cudaStream_t stream) {
  const char* fn = "ex01::layernorm";
  validate_shape(fn, rows, cols);
  validate_tensor(fn, "x", x, rows, cols, x_stride);
  validate_tensor(fn, "y", y, rows, cols, y_stride);
  validate_vector(fn, "weight", weight);
  validate_vector(fn, "bias", bias);
  validate_eps(fn, eps);
  const std::int64_t blocks = (rows + kThreads - 1) / kThreads;
  check_argument(blocks < (1LL << 31), fn, "rows", "must be < 2^31 * 128 (one thread per row)");
  if (rows == 0) return;
  layernorm_thread_per_row<<<static_cast<unsigned int>(blocks), kThreads, 0, stream>>>(
      x, x_stride, weight, bias, y, y_stride, rows, cols, eps);
  NORMLAB_CHECK_LAUNCH();
}

}  // namespace normlab::ex01
