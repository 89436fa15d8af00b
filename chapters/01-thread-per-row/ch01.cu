// SPDX-License-Identifier: Apache-2.0
// Chapter 01: one thread per row.
//
// The CPU loop, moved to the GPU as it stands: thread `row` sums the squares of its row, then
// walks the row again to scale it. It is correct and it is slow, for two reasons the later
// chapters remove one at a time. First, there are only `rows` threads, too few to fill the GPU.
// Second, at every step the 32 threads of a warp read 32 addresses a whole row apart, so one
// load instruction needs 32 separate memory transactions instead of 4 (uncoalesced).
#include "ch01.cuh"
#include "normlab/arguments.hpp"
#include "normlab/check.hpp"

namespace normlab::ch01 {

namespace {

constexpr int kThreads = 128;
constexpr std::int64_t kMaxBlocks = 0x7fffffff;  // the largest gridDim.x

// [kernel]
// One thread owns one row: a serial sum of squares, then a serial scale. The warp's 32
// threads touch 32 different rows at each step, so no two of their accesses share a line.
__global__ void rmsnorm_thread_per_row_kernel(const float* __restrict__ x, std::int64_t x_stride,
                                              const float* __restrict__ weight,
                                              float* __restrict__ y, std::int64_t y_stride,
                                              std::int64_t rows, std::int64_t cols, float eps) {
  const std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  const float* x_row = x + row * x_stride;
  float* y_row = y + row * y_stride;

  float sum_of_squares = 0.0f;
  for (std::int64_t c = 0; c < cols; ++c)
    sum_of_squares += x_row[c] * x_row[c];
  const float inverse_rms = rsqrtf(sum_of_squares / static_cast<float>(cols) + eps);

  for (std::int64_t c = 0; c < cols; ++c)
    y_row[c] = x_row[c] * inverse_rms * weight[c];
}
// [kernel]

}  // namespace

void rmsnorm_thread_per_row(const float* x, std::int64_t x_stride, const float* weight, float* y,
                            std::int64_t y_stride, std::int64_t rows, std::int64_t cols, float eps,
                            cudaStream_t stream) {
  const char* fn = "ch01::rmsnorm_thread_per_row";
  check_argument(cols <= kMostCols, fn, "cols",
                 "must be at most 262144: one thread's serial fp32 sum of more squares drifts "
                 "past the tolerance (ch01.cuh)");
  validate_rmsnorm_arguments(fn, x, x_stride, weight, y, y_stride, rows, cols, eps);
  const std::int64_t blocks = (rows + kThreads - 1) / kThreads;
  check_argument(blocks <= kMaxBlocks, fn, "rows", "must fit in 2^31 - 1 blocks of 128 rows");
  if (rows == 0) return;
  // [launch]
  rmsnorm_thread_per_row_kernel<<<static_cast<unsigned int>(blocks), kThreads, 0, stream>>>(
      x, x_stride, weight, y, y_stride, rows, cols, eps);
  NORMLAB_CHECK_LAUNCH();
  // [launch]
}

}  // namespace normlab::ch01
