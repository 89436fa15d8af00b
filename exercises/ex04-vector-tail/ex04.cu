// SPDX-License-Identifier: Apache-2.0
// Exercise 04: the float4 body and the scalar tail.
//
// Chapter 04 reads each row once into registers and moves it in 16-byte float4 accesses, which
// works only when cols is a multiple of 4. Here a row of any width is split in two: a body of
// cols / 4 float4 vectors, and a tail of the last cols % 4 (at most 3) elements, read and
// written one float at a time. Rows start 16-byte aligned (the launcher checks it), so every
// body vector is aligned too.
#include <string>

#include "ex04.cuh"
#include "normlab/arguments.hpp"
#include "normlab/check.hpp"
#include "normlab/device/reduce.cuh"

namespace normlab::ex04 {

namespace {

constexpr int kThreads = 512;
constexpr int kVectorsPerThread = 6;
static_assert(kThreads * kVectorsPerThread * 4 == kMaxCols, "the widest row fills the block");

// One thread's share of a row, held in registers from the read of x to the write of y.
// body[k] is the row's float4 vector threadIdx.x + k * kThreads (if the row has it); tail is
// column 4 * (cols / 4) + threadIdx.x (if that is < cols: only threads 0, 1 and 2 can have one).
struct RowShare {
  float4 body[kVectorsPerThread];
  float tail;
};

// Reads this thread's share of @p x_row into @p share and returns the sum of its squares.
// What the row does not have is zero, so it adds nothing to the sum.
__device__ __forceinline__ float load_row(const float* x_row, std::int64_t cols, RowShare& share) {
  // Unroll every loop over body[] fully (#pragma unroll): an index known at compile time keeps
  // the array in registers, where a runtime index would put it in local memory.
  // TODO(ex04) begin: read the float4 body and the scalar tail; return the sum of squares
  return 0.0f;
  // TODO(ex04) end
}

// Writes y = x * rstd * weight for this thread's share of the row: the same body vectors and
// tail element that load_row read, and nothing past cols.
__device__ __forceinline__ void store_row(const RowShare& share, const float* weight, float rstd,
                                          float* y_row, std::int64_t cols) {
  // TODO(ex04) begin: write the float4 body and the scalar tail, nothing past cols
  // TODO(ex04) end
}

// Block `blockIdx.x` normalises one row: one read of x into registers, one block-wide sum, one
// write of y.
__global__ void rmsnorm_vector_tail(const float* x, std::int64_t x_stride, const float* weight,
                                    float* y, std::int64_t y_stride, std::int64_t cols, float eps) {
  const std::int64_t row = blockIdx.x;
  RowShare share;
  const float sum_squares = load_row(x + row * x_stride, cols, share);
  const float rstd = rsqrtf(device::block_sum(sum_squares) / static_cast<float>(cols) + eps);
  store_row(share, weight, rstd, y + row * y_stride, cols);
}

}  // namespace

void rmsnorm(const float* x, std::int64_t x_stride, const float* weight, float* y,
             std::int64_t y_stride, std::int64_t rows, std::int64_t cols, float eps,
             cudaStream_t stream) {
  const char* fn = "ex04::rmsnorm";
  validate_shape(fn, rows, cols);
  check_argument(cols <= kMaxCols, fn, "cols",
                 "must be <= " + std::to_string(kMaxCols) + " (the row is held in registers)");
  validate_tensor(fn, "x", x, rows, cols, x_stride);
  validate_tensor(fn, "y", y, rows, cols, y_stride);
  validate_vector(fn, "weight", weight);
  validate_eps(fn, eps);
  validate_alignment(fn, "x", x, x_stride, sizeof(float), 16);
  validate_alignment(fn, "y", y, y_stride, sizeof(float), 16);
  validate_alignment(fn, "weight", weight, 0, sizeof(float), 16);
  validate_one_block_per_row(fn, rows);
  if (rows == 0) return;
  rmsnorm_vector_tail<<<static_cast<unsigned int>(rows), kThreads, 0, stream>>>(
      x, x_stride, weight, y, y_stride, cols, eps);
  NORMLAB_CHECK_LAUNCH();
}

}  // namespace normlab::ex04
