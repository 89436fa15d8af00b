// SPDX-License-Identifier: Apache-2.0
// Exercise 05: merging Welford moments.
//
// A thread's share of a row is summarised as Welford moments (count, mean, M2), where M2 is
// the sum of squared deviations from the mean. Threads then combine their summaries, first
// across a warp with shuffles, then across the warps of the block, until every thread holds
// the moments of the whole row. Combining two summaries is Chan's merge; it never forms a sum
// of squares, so rows whose mean is far larger than their spread keep their variance.
#include <string>

#include "ex05.cuh"
#include "normlab/arguments.hpp"
#include "normlab/check.hpp"

namespace normlab::ex05 {

namespace {

constexpr int kThreads = 512;
constexpr int kValuesPerThread = 24;
static_assert(kThreads * kValuesPerThread == kMaxCols, "the widest row fills the block");
constexpr int kWarpSize = 32;

// The moments of a set of values. All zeros is the empty set.
struct Moments {
  float count;
  float mean;
  float m2;  // sum of (value - mean)^2
};

// Welford's update: the moments of the set with one more value.
__device__ Moments welford_push(Moments s, float value) {
  const float count = s.count + 1.0f;
  const float delta = value - s.mean;
  const float mean = s.mean + delta / count;
  return {count, mean, s.m2 + delta * (value - mean)};
}

// The moments of the union of two disjoint sets a and b (either may be empty).
__device__ Moments welford_merge(Moments a, Moments b) {
  // TODO(ex05) begin: Chan's merge of a and b; an empty set (count 0) must not divide by zero
  return a;  // placeholder: forgets b
  // TODO(ex05) end
}

// The moments of all 32 lanes' sets, returned to every lane.
__device__ Moments warp_merge(Moments s) {
  // TODO(ex05) begin: butterfly over the warp with __shfl_xor_sync, merging at every step
  return welford_merge(s, Moments{0.0f, 0.0f, 0.0f});  // placeholder: this lane's moments only
  // TODO(ex05) end
}

// The moments of the whole block's sets, returned to every thread: each warp merges, lane 0
// parks the warp's moments in shared memory, then every warp merges those.
__device__ Moments block_merge(Moments s) {
  constexpr int kWarps = kThreads / kWarpSize;
  __shared__ Moments per_warp[kWarps];
  const int lane = static_cast<int>(threadIdx.x) % kWarpSize;
  s = warp_merge(s);
  if (lane == 0) per_warp[threadIdx.x / kWarpSize] = s;
  __syncthreads();
  return warp_merge(lane < kWarps ? per_warp[lane] : Moments{0.0f, 0.0f, 0.0f});
}

// Block `blockIdx.x` normalises one row held in registers: value k of thread t is column
// k * kThreads + t. Values are shifted by the row's first element before they are summarised:
// x - pivot is exact for nearby floats, so the moments describe small numbers even when the
// row's mean is 1e4, whose fp32 value alone would be 5e-4 off.
__global__ void __launch_bounds__(kThreads, 2)
    layernorm_kernel(const float* x, std::int64_t x_stride, const float* weight, const float* bias,
                     float* y, std::int64_t y_stride, int cols, float eps) {
  const float* x_row = x + static_cast<std::int64_t>(blockIdx.x) * x_stride;
  float* y_row = y + static_cast<std::int64_t>(blockIdx.x) * y_stride;
  const float pivot = x_row[0];
  float values[kValuesPerThread];
  Moments moments{0.0f, 0.0f, 0.0f};
#pragma unroll
  for (int k = 0; k < kValuesPerThread; ++k) {
    const int col = k * kThreads + static_cast<int>(threadIdx.x);
    values[k] = col < cols ? x_row[col] - pivot : 0.0f;
    if (col < cols) moments = welford_push(moments, values[k]);
  }
  moments = block_merge(moments);
  const float rstd = rsqrtf(moments.m2 / moments.count + eps);
#pragma unroll
  for (int k = 0; k < kValuesPerThread; ++k) {
    const int col = k * kThreads + static_cast<int>(threadIdx.x);
    if (col < cols) {
      const float scale = weight ? weight[col] : 1.0f;
      const float shift = bias ? bias[col] : 0.0f;
      y_row[col] = (values[k] - moments.mean) * rstd * scale + shift;
    }
  }
}

}  // namespace

void layernorm(const float* x, std::int64_t x_stride, const float* weight, const float* bias,
               float* y, std::int64_t y_stride, std::int64_t rows, std::int64_t cols, float eps,
               cudaStream_t stream) {
  const char* fn = "ex05::layernorm";
  validate_shape(fn, rows, cols);
  check_argument(cols <= kMaxCols, fn, "cols",
                 "must be <= " + std::to_string(kMaxCols) + " (the row is held in registers)");
  validate_tensor(fn, "x", x, rows, cols, x_stride);
  validate_tensor(fn, "y", y, rows, cols, y_stride);
  check_argument(y != x || y_stride == x_stride, fn, "y_stride",
                 "must equal x_stride when y is x (in place)");
  validate_eps(fn, eps);
  validate_one_block_per_row(fn, rows);
  if (rows == 0) return;
  layernorm_kernel<<<static_cast<unsigned int>(rows), kThreads, 0, stream>>>(
      x, x_stride, weight, bias, y, y_stride, static_cast<int>(cols), eps);
  NORMLAB_CHECK_LAUNCH();
}

}  // namespace normlab::ex05
