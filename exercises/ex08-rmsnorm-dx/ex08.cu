// SPDX-License-Identifier: Apache-2.0
// Exercise 08: dx of RMSNorm from the saved rstd.
//
// With x_hat = x * rstd and g = dy * weight, the gradient of one row of RMSNorm is
//   dx = rstd * (g - x_hat * mean(g * x_hat)),
// where rstd is the forward's 1 / sqrt(mean(x^2) + eps), saved per row, so the backward does not
// recompute it. The projection term x_hat * mean(g * x_hat) is what normalising costs: moving x
// along itself changes rstd, and the term takes that direction back out. mean(g * x_hat) is a
// sum over the row, so the block reduces it once before any dx can be written. dweight, a sum
// over rows per column, is given: one thread per column adds the rows in order.
#include "ex08.cuh"

#include "normlab/arguments.hpp"
#include "normlab/check.hpp"
#include "normlab/device/reduce.cuh"

namespace normlab::ex08 {

namespace {

constexpr int kThreads = 256;

// Block blockIdx.x writes dx of one row; thread t takes columns t, t + kThreads, ...
__global__ void rmsnorm_dx(const float* x, std::int64_t x_stride, const float* dy,
                           std::int64_t dy_stride, const float* weight, const float* saved_rstd,
                           float* dx, std::int64_t dx_stride, std::int64_t cols) {
  // TODO(ex08) begin: sum g * x_hat over row blockIdx.x (device::block_sum), then write its dx
  // TODO(ex08) end
}

// dweight[c] = sum over rows of dy * x_hat, one thread per column, rows added in order.
__global__ void dweight_by_columns(const float* x, std::int64_t x_stride, const float* dy,
                                   std::int64_t dy_stride, const float* saved_rstd, float* dweight,
                                   std::int64_t rows, std::int64_t cols) {
  const std::int64_t c = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c >= cols) return;
  float sum = 0.0f;
  for (std::int64_t r = 0; r < rows; ++r)
    sum += dy[r * dy_stride + c] * x[r * x_stride + c] * saved_rstd[r];
  dweight[c] = sum;
}

}  // namespace

void rmsnorm_backward(const float* x, std::int64_t x_stride, const float* dy,
                      std::int64_t dy_stride, const float* weight, const float* saved_rstd,
                      float* dx, std::int64_t dx_stride, float* dweight, std::int64_t rows,
                      std::int64_t cols, cudaStream_t stream) {
  const char* fn = "ex08::rmsnorm_backward";
  validate_shape(fn, rows, cols);
  validate_tensor(fn, "x", x, rows, cols, x_stride);
  validate_tensor(fn, "dy", dy, rows, cols, dy_stride);
  validate_tensor(fn, "dx", dx, rows, cols, dx_stride);
  validate_vector(fn, "weight", weight);
  validate_vector(fn, "dweight", dweight);
  check_argument(rows == 0 || saved_rstd != nullptr, fn, "saved_rstd", "must not be null");
  validate_one_block_per_row(fn, rows);
  if (rows > 0) {
    rmsnorm_dx<<<static_cast<unsigned int>(rows), kThreads, 0, stream>>>(
        x, x_stride, dy, dy_stride, weight, saved_rstd, dx, dx_stride, cols);
    NORMLAB_CHECK_LAUNCH();
  }
  const auto column_blocks = static_cast<unsigned int>((cols + kThreads - 1) / kThreads);
  dweight_by_columns<<<column_blocks, kThreads, 0, stream>>>(x, x_stride, dy, dy_stride, saved_rstd,
                                                             dweight, rows, cols);
  NORMLAB_CHECK_LAUNCH();
}

}  // namespace normlab::ex08
