// SPDX-License-Identifier: Apache-2.0
/// @file reduce.cuh
/// @brief Warp and block all-reduce, taught in chapter 03 and reused from chapter 04 on.
///
/// Contract of every function here: all threads of the warp (warp_*, group_*) or of the block
/// (block_*) call it with their value, and every one of them gets the combined result back (of
/// its group of lanes, for group_*). blockDim.x is a whole number of warps (at most 32 of
/// them). The block versions park one value per warp in shared memory. block_reduce and
/// block_sum synchronise twice, after the slots are written and after they are read, so a
/// kernel may call them any number of times in a row (two reductions of one row, a loop over
/// rows). block_reduce_once and block_sum_once synchronise once, for kernels that reduce once
/// per block (one row per block, no loop): a second call could overwrite a slot another warp
/// has not read yet. combine must be associative and commutative, with T{} (all zeros) as its
/// identity: sums, Welford moments.
#pragma once

#include <cuda_runtime.h>

#include <cstring>

namespace normlab::device {

inline constexpr int kWarpSize = 32;
inline constexpr unsigned int kFullMask = 0xffffffffu;

/// The value of lane (this lane XOR @p lane_mask); any T made of 32-bit words, moved word by
/// word.
template <typename T>
__device__ __forceinline__ T shuffle_xor(T value, int lane_mask) {
  static_assert(sizeof(T) % sizeof(unsigned int) == 0, "T must be made of 32-bit words");
  constexpr int kWords = sizeof(T) / sizeof(unsigned int);
  unsigned int words[kWords];
  memcpy(words, &value, sizeof(T));
#pragma unroll
  for (int i = 0; i < kWords; ++i)
    words[i] = __shfl_xor_sync(kFullMask, words[i], lane_mask);
  memcpy(&value, words, sizeof(T));
  return value;
}
__device__ __forceinline__ float shuffle_xor(float value, int lane_mask) {
  return __shfl_xor_sync(kFullMask, value, lane_mask);
}

/// Adds two values: the combine of a sum.
struct Plus {
  template <typename T>
  __device__ __forceinline__ T operator()(T a, T b) const {
    return a + b;
  }
};

/// Butterfly over the warp: after the exchange at offset o, every lane holds the combine of the
/// 2o lanes that agree with it in the bits above o; after offset 1, of all 32.
template <typename T, typename Combine>
__device__ __forceinline__ T warp_reduce(T value, Combine combine) {
#pragma unroll
  for (int lane_mask = kWarpSize / 2; lane_mask > 0; lane_mask /= 2)
    value = combine(value, shuffle_xor(value, lane_mask));
  return value;
}

/// The warp's total, in every lane.
__device__ __forceinline__ float warp_sum(float value) {
  return warp_reduce(value, Plus{});
}

// [group_reduce]
/// The same butterfly on each group of kLanes neighbouring lanes (a power of two up to 32; lane
/// l belongs to group l / kLanes): XOR with an offset below kLanes never leaves the group, so
/// after offset 1 every lane holds the combine of its own group's kLanes lanes and nothing of
/// its neighbours'. All 32 lanes of the warp call it (the shuffles name the full mask). Taught
/// in chapter 09, where a group holds one row.
template <int kLanes, typename T, typename Combine>
__device__ __forceinline__ T group_reduce(T value, Combine combine) {
  static_assert(kLanes > 0 && kLanes <= kWarpSize && (kLanes & (kLanes - 1)) == 0,
                "a group is a power of two of at most 32 lanes");
#pragma unroll
  for (int lane_mask = kLanes / 2; lane_mask > 0; lane_mask /= 2)
    value = combine(value, shuffle_xor(value, lane_mask));
  return value;
}

/// The group's total, in every lane of the group.
template <int kLanes>
__device__ __forceinline__ float group_sum(float value) {
  return group_reduce<kLanes>(value, Plus{});
}
// [group_reduce]

// [block_reduce]
/// Two levels: each warp reduces in registers, lane 0 parks the warp's result in its slot, and
/// after a barrier every warp reduces the slots again, so every thread ends with the block's
/// result. Called once per block, that one barrier is all it needs. kThreads: the block size
/// when the kernel knows it at compile time (chapter 03's block_sum took it so), which spares
/// reading blockDim.x and lets a full block of 32 warps read its slots unconditionally; 0 to
/// take blockDim.x. The slots are the caller's: a kernel that reduces several times per block,
/// each time in slots of its own, needs one barrier a reduction (chapter 09's slim kernels).
template <int kThreads = 0, typename T, typename Combine>
__device__ __forceinline__ T block_reduce_in(T (&slots)[kWarpSize], T value, Combine combine) {
  static_assert(kThreads % kWarpSize == 0 && kThreads <= kWarpSize * kWarpSize,
                "a block of whole warps, at most 32 of them");
  const int lane = static_cast<int>(threadIdx.x) % kWarpSize;
  const int warps = (kThreads != 0 ? kThreads : static_cast<int>(blockDim.x)) / kWarpSize;
  value = warp_reduce(value, combine);
  if (lane == 0) slots[threadIdx.x / kWarpSize] = value;
  __syncthreads();
  return warp_reduce(lane < warps ? slots[lane] : T{}, combine);
}

/// The same in slots of its own, for a kernel that reduces once per block.
template <int kThreads = 0, typename T, typename Combine>
__device__ __forceinline__ T block_reduce_once(T value, Combine combine) {
  __shared__ T per_warp[kWarpSize];
  return block_reduce_in<kThreads>(per_warp, value, combine);
}

/// The same, safe to call again at once: a second barrier keeps the slots until every warp has
/// read them, so the next call cannot overwrite a slot a slower warp still needs.
template <typename T, typename Combine>
__device__ __forceinline__ T block_reduce(T value, Combine combine) {
  const T result = block_reduce_once(value, combine);
  __syncthreads();
  return result;
}

/// The block's total, in every thread: once per block, one barrier.
template <int kThreads = 0>
__device__ __forceinline__ float block_sum_once(float value) {
  return block_reduce_once<kThreads>(value, Plus{});
}

/// The block's total, in every thread, through @p slots (block_reduce_in): one barrier.
template <int kThreads = 0>
__device__ __forceinline__ float block_sum_in(float (&slots)[kWarpSize], float value) {
  return block_reduce_in<kThreads>(slots, value, Plus{});
}

/// The block's total, in every thread; may be called again at once.
__device__ __forceinline__ float block_sum(float value) {
  return block_reduce(value, Plus{});
}
// [block_reduce]

}  // namespace normlab::device
