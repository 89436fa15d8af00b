// SPDX-License-Identifier: Apache-2.0
// Exercise 06: fused residual add + RMSNorm, with the residual updated in place.
//
// A transformer block adds the branch output x to the residual stream r, normalises the sum
// h = x + r, and carries h on as the new residual. This kernel does all of it in one pass: it
// reads x and r once, keeps h in registers, and writes h (usually over r) and y once.
#include <string>

#include "ex06.cuh"
#include "normlab/arguments.hpp"
#include "normlab/check.hpp"
#include "normlab/device/reduce.cuh"

namespace normlab::ex06 {

namespace {

constexpr int kThreads = 512;
constexpr int kValuesPerThread = 24;
static_assert(kThreads * kValuesPerThread == kMaxCols, "the widest row fills the block");

// Reads this thread's columns of x_row and r_row once, leaves h = x + r in h (0 past cols)
// and returns the sum of the squares of h. Value k of thread t is column k * kThreads + t.
__device__ float load_sum(const float* x_row, const float* r_row, int cols,
                          float (&h)[kValuesPerThread]) {
  // TODO(ex06) begin: h[k] = x + r at this thread's column k (0 past cols); return sum of h^2
  return 0.0f;  // placeholder: reads nothing
  // TODO(ex06) end
}

// Writes this thread's columns of h to h_row and of y = h * rstd * weight to y_row, nothing
// at or past cols. h_row may be the r_row that load_sum read.
__device__ void store(const float (&h)[kValuesPerThread], float rstd, const float* weight,
                      float* h_row, float* y_row, int cols) {
  // TODO(ex06) begin: write h and y for this thread's columns below cols
  // TODO(ex06) end
}

// Block `blockIdx.x` handles one row: one read of x and r, one block-wide sum, one write of h
// and of y.
__global__ void __launch_bounds__(kThreads, 2)
    add_rmsnorm_kernel(const float* x, std::int64_t x_stride, const float* residual,
                       std::int64_t residual_stride, float* residual_out,
                       std::int64_t residual_out_stride, const float* weight, float* y,
                       std::int64_t y_stride, int cols, float eps) {
  const std::int64_t row = blockIdx.x;
  float h[kValuesPerThread];
  const float sum_of_squares =
      load_sum(x + row * x_stride, residual + row * residual_stride, cols, h);
  const float rstd = rsqrtf(device::block_sum(sum_of_squares) / static_cast<float>(cols) + eps);
  store(h, rstd, weight, residual_out + row * residual_out_stride, y + row * y_stride, cols);
}

}  // namespace

void add_rmsnorm(const float* x, std::int64_t x_stride, const float* residual,
                 std::int64_t residual_stride, float* residual_out,
                 std::int64_t residual_out_stride, const float* weight, float* y,
                 std::int64_t y_stride, std::int64_t rows, std::int64_t cols, float eps,
                 cudaStream_t stream) {
  const char* fn = "ex06::add_rmsnorm";
  validate_shape(fn, rows, cols);
  check_argument(cols <= kMaxCols, fn, "cols",
                 "must be <= " + std::to_string(kMaxCols) + " (the row is held in registers)");
  validate_tensor(fn, "x", x, rows, cols, x_stride);
  validate_tensor(fn, "residual", residual, rows, cols, residual_stride);
  validate_tensor(fn, "residual_out", residual_out, rows, cols, residual_out_stride);
  validate_tensor(fn, "y", y, rows, cols, y_stride);
  check_argument(residual_out != residual || residual_out_stride == residual_stride, fn,
                 "residual_out_stride", "must equal residual_stride when h overwrites r");
  validate_vector(fn, "weight", weight);
  validate_eps(fn, eps);
  validate_one_block_per_row(fn, rows);
  if (rows == 0) return;
  add_rmsnorm_kernel<<<static_cast<unsigned int>(rows), kThreads, 0, stream>>>(
      x, x_stride, residual, residual_stride, residual_out, residual_out_stride, weight, y,
      y_stride, static_cast<int>(cols), eps);
  NORMLAB_CHECK_LAUNCH();
}

}  // namespace normlab::ex06
