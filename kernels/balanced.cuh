// SPDX-License-Identifier: Apache-2.0
/// @file balanced.cuh
/// @brief The configured kernels' LayerNorm statistics in one reduction, for rows where every
/// thread holds the same number of the row's elements (block.cu and lanes.cu use it).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "normlab/device/reduce.cuh"
#include "normlab/device/vector.cuh"
#include "normlab/device/welford.cuh"
#include "row_norm.cuh"

namespace normlab::kernels::configured {

// [merge_equal]
// LayerNorm's statistics in one reduction, for rows where every thread holds kVectors whole
// chunks of the row (cols = threads x kVectors x width): each thread's mean and sum of squared
// deviations (M2) from two passes over its registers, then merged pairwise (Chan's parallel
// update). With equal counts n on both sides a merge needs no division: the mean is the
// average of the two, and M2 = M2a + M2b + (mean_b - mean_a)^2 n / 2. Chapter 07's two passes
// cost two reductions; this costs one, of two words, and keeps their guard against
// cancellation (no E[x^2] - E[x]^2). The moments are chapter 05's (device/welford.cuh).

// Moments of equal counts in the first @p lanes lanes of a warp (a power of two), merged by
// shuffles in a tree: each of those lanes ends with the merge of all of them.
__device__ __forceinline__ device::Moments merge_equal_lanes(device::Moments m, int lanes) {
#pragma unroll
  for (int step = 1; step < lanes; step *= 2) {
    const device::Moments other{m.count, __shfl_xor_sync(device::kFullMask, m.mean, step),
                                __shfl_xor_sync(device::kFullMask, m.m2, step)};
    m = device::welford_merge_equal(m, other);
  }
  return m;
}
// [merge_equal]

// The moments of the kLanes lanes' elements (a group of lanes, or a whole warp), in each lane.
template <int kLanes, typename T, int kVectors>
__device__ __forceinline__ device::Moments group_moments(const device::Vector<T> (&h)[kVectors]) {
  constexpr int kWidth = device::Vector<T>::kWidth;
  float x[kVectors][kWidth];
#pragma unroll
  for (int v = 0; v < kVectors; ++v)
    device::to_floats(h[v], x[v]);
  device::Moments m{static_cast<float>(kVectors * kWidth), 0.0f, 0.0f};
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
  return merge_equal_lanes(m, kLanes);
}

// A row held by a group of kLanes lanes (lanes.cu).
template <int kLanes, typename T, int kVectors>
__device__ __forceinline__ Statistics
group_balanced_statistics(const device::Vector<T> (&h)[kVectors], std::int64_t cols, float eps) {
  return statistics_of<true>(group_moments<kLanes>(h), cols, eps);
}

// [block_balanced]
// A row held by a block (block.cu), after one barrier: the warps' moments merged in a tree by
// shuffles, as a warp merges its lanes, where the block has a power of two of warps (every merge
// then joins equal counts); otherwise in warp order, each merge weighted by the warps so far.
template <typename T, int kVectors>
__device__ __forceinline__ Statistics
block_balanced_statistics(const device::Vector<T> (&h)[kVectors], std::int64_t cols, float eps) {
  const device::Moments own = group_moments<device::kWarpSize>(h);
  __shared__ float2 per_warp[device::kWarpSize];
  const int lane = static_cast<int>(threadIdx.x) % device::kWarpSize;
  const int warp = static_cast<int>(threadIdx.x) / device::kWarpSize;
  if (lane == 0) per_warp[warp] = {own.mean, own.m2};
  __syncthreads();
  const int warps = static_cast<int>(blockDim.x) / device::kWarpSize;
  device::Moments m;
  if ((warps & (warps - 1)) == 0) {
    const float2 mine = per_warp[lane < warps ? lane : 0];
    m = merge_equal_lanes({own.count, mine.x, mine.y}, warps);
    m = {m.count, __shfl_sync(device::kFullMask, m.mean, 0),
         __shfl_sync(device::kFullMask, m.m2, 0)};
  } else {
    m = {own.count, per_warp[0].x, per_warp[0].y};
    for (int w = 1; w < warps; ++w) {  // w warps merged so far, own.count elements each
      const float2 next = per_warp[w];
      const float d = next.x - m.mean;
      const float share = __frcp_rn(static_cast<float>(w + 1));
      m.mean += d * share;
      m.m2 += next.y + d * d * (own.count * static_cast<float>(w) * share);
    }
  }
  __syncthreads();  // the slots are read before the next row writes them
  return statistics_of<true>(m, cols, eps);
}
// [block_balanced]

/// Whether a row of @p cols elements of T fills @p holders threads (or lanes) of @p vectors
/// chunks each exactly, the condition of the statistics above.
template <typename T>
bool fills_exactly(std::int64_t cols, int holders, int vectors) {
  return cols == static_cast<std::int64_t>(holders) * vectors * device::Vector<T>::kWidth;
}

}  // namespace normlab::kernels::configured
