// SPDX-License-Identifier: Apache-2.0
/// @file reductions.cuh
/// @brief Exercise 03: a sum across a warp with register shuffles, and a sum across a block in
/// two levels (warps, then one shared slot per warp).
#pragma once

#include <cuda_runtime.h>

namespace normlab::ex03 {

/// Threads in a warp.
inline constexpr int kWarpSize = 32;

/// The sum of @p value over the 32 lanes of the calling warp, returned to every lane. All 32
/// lanes must call it together.
__device__ inline float warp_sum(float value) {
  // Each step adds the value of the lane `distance` away (lane ^ distance); after the steps
  // 16, 8, 4, 2, 1 every lane has added every other lane's value exactly once.
  // TODO(ex03) begin: the butterfly with __shfl_xor_sync over all 32 lanes
  return 0.0f;
  // TODO(ex03) end
}

/// The sum of @p value over every thread of the block, returned to every thread. blockDim.x
/// must be a multiple of 32 (at most 1024), every thread of the block must call it, and it may
/// be called several times in a row.
__device__ inline float block_sum(float value) {
  // Level one: each warp adds its own 32 values (warp_sum). Level two: lane 0 of every warp
  // puts its warp's total in the warp's shared slot, and the slots are added up.
  // TODO(ex03) begin: two levels through one shared slot per warp, safe to call again
  return 0.0f;
  // TODO(ex03) end
}

}  // namespace normlab::ex03
