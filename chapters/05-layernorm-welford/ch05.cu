// SPDX-License-Identifier: Apache-2.0
// Chapter 05: LayerNorm in one pass, and a variance that survives shifted data.
//
// LayerNorm centres the row before it scales it: y = (x - mean) / sqrt(var + eps) * w + b.
// The row still fits in registers (chapter 04's layout: float4 packs, every load in flight at
// once), so x is read once and y written once; what is new is that the block must agree on two
// statistics instead of one.
//
// The obvious single pass sums x and x^2 together and takes var = E[x^2] - E[x]^2. When the
// mean is large next to the spread, both terms are huge and nearly equal, and their difference
// is rounding noise: with a mean of 1e4, E[x^2] is about 1e8, where fp32 values are 8 apart, and
// the variance (about 1) is gone. layernorm_sum_of_squares_kernel keeps that formula to show it.
//
// layernorm_welford_kernel carries Welford's moments (count, mean, M2) instead of raw sums:
// each thread pushes its values one at a time, then the block merges the threads' moments with
// Chan's formula, which only ever combines quantities of the size of the spread. Before any of
// that, each value is shifted by a pivot, the row's first element: x - pivot is exact for
// nearby floats, so the statistics are taken of small numbers, and the kernel normalises with
// (x - pivot) - mean_of_shifted instead of x - mean, whose fp32 mean (1e4 is stored to within
// 5e-4) would already be off by more than the 1e-4 tolerance.
#include "ch05.cuh"
#include "moments.cuh"
#include "normlab/arguments.hpp"
#include "normlab/check.hpp"
#include "normlab/device/reduce.cuh"
#include "normlab/device/welford.cuh"
#include "row_slice.cuh"

namespace normlab::ch05 {

namespace {

// [sum_of_squares]
// What changed from chapter 04: the block reduces two sums at once, of x and of x^2, and the
// variance is E[x^2] - E[x]^2 (clamped at 0, where rounding can push it). One pass and one
// barrier, like RMSNorm; but on rows far from zero the two terms cancel catastrophically.
template <typename L>
__global__ void __launch_bounds__(L::kThreads, L::kMinBlocksPerSm)
    layernorm_sum_of_squares_kernel(const float* x, std::int64_t x_stride,
                                    const float* __restrict__ weight,
                                    const float* __restrict__ bias, float* y, std::int64_t y_stride,
                                    float* mean_out, float* rstd_out, int cols, float eps) {
  const std::int64_t row = blockIdx.x;
  RowSlice<L> slice;
  slice.load(x + row * x_stride, cols);

  Sums sums{};
  slice.for_each(cols, [&](float v) {
    sums.sum += v;
    sums.sum_of_squares += v * v;
  });
  sums = device::block_reduce_once<L::kThreads>(sums, add_sums);
  const float mean = sums.sum / static_cast<float>(cols);
  const float variance = fmaxf(sums.sum_of_squares / static_cast<float>(cols) - mean * mean, 0.0f);
  const float rstd = rsqrtf(variance + eps);

  write_statistics(mean_out, rstd_out, row, mean, rstd);
  slice.store_normalized(
      y + row * y_stride, cols, [=](float v) { return (v - mean) * rstd; }, weight, bias);
}
// [sum_of_squares]

// [welford]
// What changed from the sum-of-squares kernel: each thread pushes its values, shifted by the
// row's first element, into Welford moments; the block merges the moments with Chan's formula;
// the variance is M2 / n, a sum of squared deviations that never cancels. The pivot is read by
// every thread (one cached address) before the barrier, so y may overwrite x.
template <typename L>
__global__ void __launch_bounds__(L::kThreads, L::kMinBlocksPerSm)
    layernorm_welford_kernel(const float* x, std::int64_t x_stride,
                             const float* __restrict__ weight, const float* __restrict__ bias,
                             float* y, std::int64_t y_stride, float* mean_out, float* rstd_out,
                             int cols, float eps) {
  const std::int64_t row = blockIdx.x;
  const float* x_row = x + row * x_stride;
  const float pivot = x_row[0];
  RowSlice<L> slice;
  slice.load(x_row, cols);

  device::Moments moments{};
  slice.for_each(cols, [&](float v) { moments = device::welford_push(moments, v - pivot); });
  moments = device::block_reduce_once<L::kThreads>(moments, device::welford_merge);
  const float rstd = rsqrtf(moments.m2 / moments.count + eps);

  write_statistics(mean_out, rstd_out, row, pivot + moments.mean, rstd);
  slice.store_normalized(
      y + row * y_stride, cols, [=](float v) { return ((v - pivot) - moments.mean) * rstd; },
      weight, bias);
}
// [welford]

// The checks of either launcher; nothing is launched when one fails.
void validate_layernorm(const char* fn, const float* x, std::int64_t x_stride, const float* y,
                        std::int64_t y_stride, std::int64_t rows, std::int64_t cols, float eps) {
  validate_register_rows(fn, rows, cols, kMaxCols);
  validate_tensor(fn, "x", x, rows, cols, x_stride);
  validate_tensor(fn, "y", y, rows, cols, y_stride);
  validate_in_place(fn, x, x_stride, y, y_stride, "y_stride");
  validate_eps(fn, eps);
}

}  // namespace

void layernorm_sum_of_squares(const float* x, std::int64_t x_stride, const float* weight,
                              const float* bias, float* y, std::int64_t y_stride, float* mean,
                              float* rstd, std::int64_t rows, std::int64_t cols, float eps,
                              cudaStream_t stream) {
  validate_layernorm("ch05::layernorm_sum_of_squares", x, x_stride, y, y_stride, rows, cols, eps);
  const bool aligned = rows_are_16_byte_aligned({x, y, weight, bias}, {x_stride, y_stride});
  if (rows == 0) return;
  with_layout_for(cols, aligned, [&](auto layout) {
    using L = decltype(layout);
    layernorm_sum_of_squares_kernel<L><<<static_cast<unsigned int>(rows), L::kThreads, 0, stream>>>(
        x, x_stride, weight, bias, y, y_stride, mean, rstd, static_cast<int>(cols), eps);
    NORMLAB_CHECK_LAUNCH();
  });
}

void layernorm_welford(const float* x, std::int64_t x_stride, const float* weight,
                       const float* bias, float* y, std::int64_t y_stride, float* mean, float* rstd,
                       std::int64_t rows, std::int64_t cols, float eps, cudaStream_t stream) {
  validate_layernorm("ch05::layernorm_welford", x, x_stride, y, y_stride, rows, cols, eps);
  const bool aligned = rows_are_16_byte_aligned({x, y, weight, bias}, {x_stride, y_stride});
  if (rows == 0) return;
  with_layout_for(cols, aligned, [&](auto layout) {
    using L = decltype(layout);
    layernorm_welford_kernel<L><<<static_cast<unsigned int>(rows), L::kThreads, 0, stream>>>(
        x, x_stride, weight, bias, y, y_stride, mean, rstd, static_cast<int>(cols), eps);
    NORMLAB_CHECK_LAUNCH();
  });
}

}  // namespace normlab::ch05
