// SPDX-License-Identifier: Apache-2.0
// Known wrong: chapter 04's register-resident kernel without its scalar tail. When rows are
// 16-byte aligned but cols % 4 != 0, the last cols % 4 elements of every row are neither
// summed nor written. (Misaligned rows take 4-byte packs, which have no tail: those pass.)
#include "known_wrong_ladder.hpp"
#include "known_wrong_launch.cuh"
#include "normlab/check.hpp"
#include "normlab/device/reduce.cuh"
#include "packs.cuh"

namespace normlab::known_wrong {

namespace {

constexpr int kThreads = 256;
constexpr int kFloatsPerThread = 48;  // 256 x 48 = 12288, the widest row of the grid

using ch04::kWidth;
using ch04::normalized;
using ch04::squares;

template <typename Pack>
__global__ void __launch_bounds__(kThreads)
    float4_without_tail(const float* __restrict__ x, std::int64_t x_stride,
                        const float* __restrict__ weight, float* __restrict__ y,
                        std::int64_t y_stride, int cols, float eps) {
  constexpr int kPacks = kFloatsPerThread / kWidth<Pack>;
  const int t = threadIdx.x;
  const auto* x_row =
      reinterpret_cast<const Pack*>(x + static_cast<std::int64_t>(blockIdx.x) * x_stride);
  auto* y_row = reinterpret_cast<Pack*>(y + static_cast<std::int64_t>(blockIdx.x) * y_stride);
  const auto* weight_packs = reinterpret_cast<const Pack*>(weight);
  const int packs = cols / kWidth<Pack>;
  // BUG: nothing reads, sums or writes the cols % 4 elements after the last whole float4.

  Pack slice[kPacks];
#pragma unroll
  for (int i = 0; i < kPacks; ++i) {
    const int p = i * kThreads + t;
    slice[i] = p < packs ? x_row[p] : Pack{};
  }
  float sum_of_squares = 0.0f;
#pragma unroll
  for (int i = 0; i < kPacks; ++i)
    sum_of_squares += squares(slice[i]);
  const float inverse_rms =
      rsqrtf(device::block_sum(sum_of_squares) / static_cast<float>(cols) + eps);
#pragma unroll
  for (int i = 0; i < kPacks; ++i) {
    const int p = i * kThreads + t;
    if (p < packs) y_row[p] = normalized(slice[i], weight_packs[p], inverse_rms);
  }
}

bool aligned(const void* p) {
  return reinterpret_cast<std::uintptr_t>(p) % 16 == 0;
}

}  // namespace

void rmsnorm_float4_without_tail(const NormCall& c, cudaStream_t stream) {
  const char* fn = "known_wrong::rmsnorm_float4_without_tail";
  validate_rmsnorm_call(fn, c);
  check_argument(c.cols <= kThreads * kFloatsPerThread, fn, "cols", "must be <= 12288");
  if (c.rows == 0) return;
  const auto* x = static_cast<const float*>(c.x);
  const auto* weight = static_cast<const float*>(c.weight);
  auto* y = static_cast<float*>(c.y);
  const auto cols = static_cast<int>(c.cols);
  const auto blocks = static_cast<unsigned int>(c.rows);
  if (aligned(x) && aligned(y) && aligned(weight) && c.x_stride % 4 == 0 && c.y_stride % 4 == 0) {
    float4_without_tail<float4>
        <<<blocks, kThreads, 0, stream>>>(x, c.x_stride, weight, y, c.y_stride, cols, c.eps);
  } else {
    float4_without_tail<float>
        <<<blocks, kThreads, 0, stream>>>(x, c.x_stride, weight, y, c.y_stride, cols, c.eps);
  }
  NORMLAB_CHECK_LAUNCH();
}

}  // namespace normlab::known_wrong
