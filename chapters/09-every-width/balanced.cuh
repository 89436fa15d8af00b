// SPDX-License-Identifier: Apache-2.0
/// @file balanced.cuh
/// @brief Chapter 09's LayerNorm statistics in one reduction, for rows where every thread holds
/// the same number of the row's elements (block.cu and narrow.cu use it).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "normlab/device/reduce.cuh"
#include "normlab/device/vector.cuh"
#include "row_norm.cuh"

namespace normlab::ch09 {

// [balanced]
// LayerNorm's statistics in one reduction, for rows where every thread holds kVectors whole
// chunks of the row (cols = threads x kVectors x width): each thread's mean and sum of squared
// deviations (M2) from two passes over its registers, then merged pairwise (Chan's parallel
// update). With equal counts n on both sides a merge needs no division: the mean is the
// average of the two, and M2 = M2a + M2b + (mean_b - mean_a)^2 n / 2. Chapter 07's two passes
// cost two reductions; this costs one, of two words, and keeps their guard against
// cancellation (no E[x^2] - E[x]^2).
struct Moments {
  float mean;
  float m2;
  float count;  // elements behind mean and m2
};

// The moments of the kLanes lanes' elements (a group of lanes, or a whole warp), in each lane.
template <int kLanes, typename T, int kVectors>
__device__ __forceinline__ Moments group_moments(const device::Vector<T> (&h)[kVectors]) {
  constexpr int kWidth = device::Vector<T>::kWidth;
  float x[kVectors][kWidth];
#pragma unroll
  for (int v = 0; v < kVectors; ++v)
    device::to_floats(h[v], x[v]);
  Moments m{0.0f, 0.0f, static_cast<float>(kVectors * kWidth)};
#pragma unroll
  for (int v = 0; v < kVectors; ++v)
#pragma unroll
    for (int j = 0; j < kWidth; ++j)
      m.mean += x[v][j];
  m.mean *= 1.0f / m.count;
#pragma unroll
  for (int v = 0; v < kVectors; ++v)
#pragma unroll
    for (int j = 0; j < kWidth; ++j) {
      const float d = x[v][j] - m.mean;
      m.m2 += d * d;
    }
#pragma unroll
  for (int lanes = 1; lanes < kLanes; lanes *= 2) {
    const float other_mean = __shfl_xor_sync(device::kFullMask, m.mean, lanes);
    const float other_m2 = __shfl_xor_sync(device::kFullMask, m.m2, lanes);
    const float d = other_mean - m.mean;
    m.mean = 0.5f * (m.mean + other_mean);
    m.m2 = m.m2 + other_m2 + d * d * (0.5f * m.count);
    m.count *= 2.0f;
  }
  return m;
}

__device__ __forceinline__ ch07::Statistics statistics_of(const Moments& m, std::int64_t cols,
                                                          float eps) {
  return {m.mean, rsqrtf(m.m2 / static_cast<float>(cols) + eps)};
}

// A row held by a group of kLanes lanes (narrow.cu).
template <int kLanes, typename T, int kVectors>
__device__ __forceinline__ ch07::Statistics group_balanced_statistics(
    const device::Vector<T> (&h)[kVectors], std::int64_t cols, float eps) {
  return statistics_of(group_moments<kLanes>(h), cols, eps);
}

// A row held by a block (block.cu): the warps' moments merged in order after one barrier.
template <typename T, int kVectors>
__device__ __forceinline__ ch07::Statistics block_balanced_statistics(
    const device::Vector<T> (&h)[kVectors], std::int64_t cols, float eps) {
  const Moments own = group_moments<device::kWarpSize>(h);
  __shared__ float2 per_warp[device::kWarpSize];
  const int warp = static_cast<int>(threadIdx.x) / device::kWarpSize;
  if (static_cast<int>(threadIdx.x) % device::kWarpSize == 0) per_warp[warp] = {own.mean, own.m2};
  __syncthreads();
  const int warps = static_cast<int>(blockDim.x) / device::kWarpSize;
  Moments m{per_warp[0].x, per_warp[0].y, own.count};
  for (int w = 1; w < warps; ++w) {  // w warps merged so far, own.count elements each
    const float2 next = per_warp[w];
    const float d = next.x - m.mean;
    const float share = __frcp_rn(static_cast<float>(w + 1));
    m.mean += d * share;
    m.m2 += next.y + d * d * (own.count * static_cast<float>(w) * share);
  }
  __syncthreads();  // the slots are read before the next row writes them
  return statistics_of(m, cols, eps);
}
// [balanced]

}  // namespace normlab::ch09
