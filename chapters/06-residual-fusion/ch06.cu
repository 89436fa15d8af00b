// SPDX-License-Identifier: Apache-2.0
// Chapter 06: residual fusion.
//
// In a transformer block the norm's input is the residual stream plus the branch output:
// h = x + r, then y = norm(h), and h itself goes on as the next residual. Run as two kernels,
// the add reads x and r and writes h, and the norm reads h back and writes y: five rows x cols
// tensors cross the memory bus. Fused, one kernel reads x and r, keeps h in registers, writes h
// and y: four. Against a memory-bound pair the byte count is the whole story, so the best the
// fusion can do is 5/4 the speed of an equally good pair, plus one launch saved.
//
// The fused kernels are chapter 05's with one more load and one more store. h usually
// overwrites r (the residual stream is updated in place). That is safe without a second pass
// because every element of r is read by the thread that later writes h over it, and all reads
// happen before the block's barrier. The LayerNorm kernel depends on that ordering once more:
// its pivot, h[0], is computed by every thread from x[0] and r[0], so no thread may write h[0]
// over r[0] before every thread has read it; both kernels therefore store h after the barrier.
#include "ch06.cuh"
#include "moments.cuh"
#include "normlab/arguments.hpp"
#include "normlab/check.hpp"
#include "normlab/device/reduce.cuh"
#include "normlab/device/welford.cuh"
#include "row_slice.cuh"

namespace normlab::ch06 {

namespace {

using ch05::RowSlice;

// [add_rmsnorm]
// What changed from chapter 05: the row is x + r, formed in registers from two loads; after
// the statistics (RMSNorm's single sum of squares) it is stored twice: as h, then normalised
// as y.
template <typename L>
__global__ void __launch_bounds__(L::kThreads, L::kMinBlocksPerSm)
    add_rmsnorm_kernel(const float* x, std::int64_t x_stride, const float* residual,
                       std::int64_t residual_stride, float* residual_out,
                       std::int64_t residual_out_stride, const float* __restrict__ weight, float* y,
                       std::int64_t y_stride, float* rstd_out, int cols, float eps) {
  const std::int64_t row = blockIdx.x;
  RowSlice<L> h, r;
  h.load(x + row * x_stride, cols);
  r.load(residual + row * residual_stride, cols);
  h.add(r);

  float sum_of_squares = 0.0f;
  h.for_each(cols, [&](float v) { sum_of_squares += v * v; });
  sum_of_squares = device::block_sum_once<L::kThreads>(sum_of_squares);
  const float rstd = rsqrtf(sum_of_squares / static_cast<float>(cols) + eps);

  ch05::write_statistics(nullptr, rstd_out, row, 0.0f, rstd);
  h.store(residual_out + row * residual_out_stride, cols);
  h.store_normalized(
      y + row * y_stride, cols, [=](float v) { return v * rstd; }, weight, nullptr);
}
// [add_rmsnorm]

// [add_layernorm]
// The same fusion around chapter 05's Welford kernel; the pivot is h[0] = x[0] + r[0], the
// value the block's first thread also holds in registers.
template <typename L>
__global__ void __launch_bounds__(L::kThreads, L::kMinBlocksPerSm)
    add_layernorm_kernel(const float* x, std::int64_t x_stride, const float* residual,
                         std::int64_t residual_stride, float* residual_out,
                         std::int64_t residual_out_stride, const float* __restrict__ weight,
                         const float* __restrict__ bias, float* y, std::int64_t y_stride,
                         float* mean_out, float* rstd_out, int cols, float eps) {
  const std::int64_t row = blockIdx.x;
  const float* x_row = x + row * x_stride;
  const float* residual_row = residual + row * residual_stride;
  const float pivot = x_row[0] + residual_row[0];
  RowSlice<L> h, r;
  h.load(x_row, cols);
  r.load(residual_row, cols);
  h.add(r);

  device::Moments moments{};
  h.for_each(cols, [&](float v) { moments = device::welford_push(moments, v - pivot); });
  moments = device::block_reduce_once<L::kThreads>(moments, device::welford_merge);
  const float rstd = rsqrtf(moments.m2 / moments.count + eps);

  ch05::write_statistics(mean_out, rstd_out, row, pivot + moments.mean, rstd);
  h.store(residual_out + row * residual_out_stride, cols);
  h.store_normalized(
      y + row * y_stride, cols, [=](float v) { return ((v - pivot) - moments.mean) * rstd; },
      weight, bias);
}
// [add_layernorm]

// [unfused]
// The unfused pair, built from the same pieces so that only the traffic differs. First
// kernel: h = x + r, written out.
template <typename L>
__global__ void __launch_bounds__(L::kThreads, L::kMinBlocksPerSm)
    add_kernel(const float* x, std::int64_t x_stride, const float* residual,
               std::int64_t residual_stride, float* residual_out, std::int64_t residual_out_stride,
               int cols) {
  const std::int64_t row = blockIdx.x;
  RowSlice<L> h, r;
  h.load(x + row * x_stride, cols);
  r.load(residual + row * residual_stride, cols);
  h.add(r);
  h.store(residual_out + row * residual_out_stride, cols);
}

// Second kernel: RMSNorm of h, read back from memory.
template <typename L>
__global__ void __launch_bounds__(L::kThreads, L::kMinBlocksPerSm)
    rmsnorm_kernel(const float* h_in, std::int64_t h_stride, const float* __restrict__ weight,
                   float* y, std::int64_t y_stride, float* rstd_out, int cols, float eps) {
  const std::int64_t row = blockIdx.x;
  RowSlice<L> h;
  h.load(h_in + row * h_stride, cols);

  float sum_of_squares = 0.0f;
  h.for_each(cols, [&](float v) { sum_of_squares += v * v; });
  sum_of_squares = device::block_sum_once<L::kThreads>(sum_of_squares);
  const float rstd = rsqrtf(sum_of_squares / static_cast<float>(cols) + eps);

  ch05::write_statistics(nullptr, rstd_out, row, 0.0f, rstd);
  h.store_normalized(
      y + row * y_stride, cols, [=](float v) { return v * rstd; }, weight, nullptr);
}
// [unfused]

// The tensors of one add + norm call.
struct Tensors {
  const float* x;
  std::int64_t x_stride;
  const float* residual;
  std::int64_t residual_stride;
  float* residual_out;
  std::int64_t residual_out_stride;
  float* y;
  std::int64_t y_stride;
};

// The checks of every launcher of this chapter; nothing is launched when one fails.
void validate_add_norm(const char* fn, const Tensors& t, std::int64_t rows, std::int64_t cols,
                       float eps) {
  validate_register_rows(fn, rows, cols, kMaxCols);
  validate_tensor(fn, "x", t.x, rows, cols, t.x_stride);
  validate_tensor(fn, "residual", t.residual, rows, cols, t.residual_stride);
  validate_tensor(fn, "residual_out", t.residual_out, rows, cols, t.residual_out_stride);
  validate_tensor(fn, "y", t.y, rows, cols, t.y_stride);
  validate_in_place(fn, t.residual, t.residual_stride, t.residual_out, t.residual_out_stride,
                    "residual_out_stride");
  validate_in_place(fn, t.x, t.x_stride, t.y, t.y_stride, "y_stride");
  check_argument(rows == 0 || static_cast<const void*>(t.y) != t.residual_out, fn, "y",
                 "must not be residual_out (both are outputs)");
  validate_eps(fn, eps);
}

// Whether every row of the tensors, and the parameters @p weight and @p bias, are aligned for
// float4 packs.
bool rows_aligned(const Tensors& t, const float* weight, const float* bias) {
  return rows_are_16_byte_aligned(
      {t.x, t.residual, t.residual_out, t.y, weight, bias},
      {t.x_stride, t.residual_stride, t.residual_out_stride, t.y_stride});
}

unsigned int grid_for(std::int64_t rows) {
  return static_cast<unsigned int>(rows);
}

}  // namespace

void add_rmsnorm(const float* x, std::int64_t x_stride, const float* residual,
                 std::int64_t residual_stride, float* residual_out,
                 std::int64_t residual_out_stride, const float* weight, float* y,
                 std::int64_t y_stride, float* rstd, std::int64_t rows, std::int64_t cols,
                 float eps, cudaStream_t stream) {
  const Tensors t{x, x_stride, residual, residual_stride, residual_out, residual_out_stride,
                  y, y_stride};
  validate_add_norm("ch06::add_rmsnorm", t, rows, cols, eps);
  const bool aligned = rows_aligned(t, weight, nullptr);
  if (rows == 0) return;
  ch05::with_layout_for(cols, aligned, [&](auto layout) {
    using L = decltype(layout);
    add_rmsnorm_kernel<L><<<grid_for(rows), L::kThreads, 0, stream>>>(
        x, x_stride, residual, residual_stride, residual_out, residual_out_stride, weight, y,
        y_stride, rstd, static_cast<int>(cols), eps);
    NORMLAB_CHECK_LAUNCH();
  });
}

void add_layernorm(const float* x, std::int64_t x_stride, const float* residual,
                   std::int64_t residual_stride, float* residual_out,
                   std::int64_t residual_out_stride, const float* weight, const float* bias,
                   float* y, std::int64_t y_stride, float* mean, float* rstd, std::int64_t rows,
                   std::int64_t cols, float eps, cudaStream_t stream) {
  const Tensors t{x, x_stride, residual, residual_stride, residual_out, residual_out_stride,
                  y, y_stride};
  validate_add_norm("ch06::add_layernorm", t, rows, cols, eps);
  const bool aligned = rows_aligned(t, weight, bias);
  if (rows == 0) return;
  ch05::with_layout_for(cols, aligned, [&](auto layout) {
    using L = decltype(layout);
    add_layernorm_kernel<L><<<grid_for(rows), L::kThreads, 0, stream>>>(
        x, x_stride, residual, residual_stride, residual_out, residual_out_stride, weight, bias, y,
        y_stride, mean, rstd, static_cast<int>(cols), eps);
    NORMLAB_CHECK_LAUNCH();
  });
}

void add_then_rmsnorm(const float* x, std::int64_t x_stride, const float* residual,
                      std::int64_t residual_stride, float* residual_out,
                      std::int64_t residual_out_stride, const float* weight, float* y,
                      std::int64_t y_stride, float* rstd, std::int64_t rows, std::int64_t cols,
                      float eps, cudaStream_t stream) {
  const Tensors t{x, x_stride, residual, residual_stride, residual_out, residual_out_stride,
                  y, y_stride};
  validate_add_norm("ch06::add_then_rmsnorm", t, rows, cols, eps);
  const bool aligned = rows_aligned(t, weight, nullptr);
  if (rows == 0) return;
  ch05::with_layout_for(cols, aligned, [&](auto layout) {
    using L = decltype(layout);
    add_kernel<L><<<grid_for(rows), L::kThreads, 0, stream>>>(
        x, x_stride, residual, residual_stride, residual_out, residual_out_stride,
        static_cast<int>(cols));
    NORMLAB_CHECK_LAUNCH();
    rmsnorm_kernel<L><<<grid_for(rows), L::kThreads, 0, stream>>>(
        residual_out, residual_out_stride, weight, y, y_stride, rstd, static_cast<int>(cols), eps);
    NORMLAB_CHECK_LAUNCH();
  });
}

}  // namespace normlab::ch06
