// SPDX-License-Identifier: Apache-2.0
/// @file reductions.cuh
/// @brief Chapter 03's hand-written sums: a warp's through shuffles, a block's through one
/// shared slot per warp. (The library's device/reduce.cuh is what later chapters use; a test
/// checks that the two agree.)
#pragma once

#include <cuda_runtime.h>

namespace normlab::ch03 {

inline constexpr int kWarpSize = 32;
inline constexpr unsigned int kFullMask = 0xffffffffu;

// [warp_sum]
// Butterfly: after the exchange at offset o, every lane holds the sum of the 2o lanes that
// agree with it in the bits above o. After offset 1, every lane holds the warp's total.
__device__ inline float warp_sum(float value) {
#pragma unroll
  for (int offset = kWarpSize / 2; offset > 0; offset /= 2) {
    value += __shfl_xor_sync(kFullMask, value, offset);
  }
  return value;
}
// [warp_sum]

// [block_sum]
// Two levels: each warp reduces in registers, lane 0 parks the warp's total in its slot, and
// after one barrier every warp reads all the slots and reduces them again, so every thread
// ends with the block's total. (A kernel that calls this twice would need a second barrier
// before the slots are written again.)
template <int kBlockThreads>
__device__ float block_sum(float value) {
  constexpr int kWarps = kBlockThreads / kWarpSize;
  static_assert(kBlockThreads % kWarpSize == 0 && kWarps <= kWarpSize,
                "whole warps, and few enough that one warp can add up their slots");
  __shared__ float per_warp[kWarps];
  const int lane = threadIdx.x % kWarpSize;
  const int warp = threadIdx.x / kWarpSize;
  value = warp_sum(value);
  if (lane == 0) per_warp[warp] = value;
  __syncthreads();
  return warp_sum(lane < kWarps ? per_warp[lane] : 0.0f);
}
// [block_sum]

}  // namespace normlab::ch03
