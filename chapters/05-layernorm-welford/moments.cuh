/// @file moments.cuh
/// @brief Row statistics on the device: Welford's (count, mean, M2) triple, Chan's merge of
/// two triples, and one two-level block reduction for any combine (sums add, triples merge).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace normlab::ch05 {

inline constexpr int kWarpSize = 32;
inline constexpr unsigned int kFullMask = 0xffffffffu;

// [moments]
/// What Welford keeps of a set of values instead of raw sums: how many, their mean, and M2, the
/// sum of squared deviations from that mean (variance = m2 / count). Every field stays the size
/// of the data's spread, never of its square, so nothing large cancels. All zeros is the empty
/// set.
struct Moments {
  float count;
  float mean;
  float m2;
};

/// Welford's update: the moments of a set with one more @p value. Counts are whole numbers
/// from 1 to 16384, where __fdividef (a reciprocal and a multiply, within 2 ulp) is as accurate
/// as it needs to be and far cheaper than an IEEE division, which the kernels would otherwise
/// do once per element.
__device__ __forceinline__ Moments welford_push(Moments s, float value) {
  const float count = s.count + 1.0f;
  const float delta = value - s.mean;
  const float mean = s.mean + __fdividef(delta, count);
  return {count, mean, s.m2 + delta * (value - mean)};
}

/// Chan's merge: the moments of the union of two disjoint sets. The means meet through their
/// difference, weighted by b's share of the count; M2 gains the spread between the two means.
__device__ __forceinline__ Moments welford_merge(Moments a, Moments b) {
  const float count = a.count + b.count;
  if (count == 0.0f) return a;
  const float delta = b.mean - a.mean;
  const float b_share = __fdividef(b.count, count);
  return {count, a.mean + delta * b_share, a.m2 + b.m2 + delta * delta * a.count * b_share};
}
// [moments]

/// The sum and the sum of squares of a set (the textbook single-pass variance).
struct Sums {
  float sum;
  float sum_of_squares;
};

__device__ __forceinline__ Sums add_sums(Sums a, Sums b) {
  return {a.sum + b.sum, a.sum_of_squares + b.sum_of_squares};
}
__device__ __forceinline__ float add_floats(float a, float b) {
  return a + b;
}

/// The value of lane (this lane XOR @p lane_mask), field by field.
__device__ __forceinline__ float shuffle_xor(float v, int lane_mask) {
  return __shfl_xor_sync(kFullMask, v, lane_mask);
}
__device__ __forceinline__ Sums shuffle_xor(Sums v, int lane_mask) {
  return {shuffle_xor(v.sum, lane_mask), shuffle_xor(v.sum_of_squares, lane_mask)};
}
__device__ __forceinline__ Moments shuffle_xor(Moments v, int lane_mask) {
  return {shuffle_xor(v.count, lane_mask), shuffle_xor(v.mean, lane_mask),
          shuffle_xor(v.m2, lane_mask)};
}

/// Thread 0 writes a row's statistics to those of @p mean_out and @p rstd_out that are not null.
__device__ __forceinline__ void write_statistics(float* mean_out, float* rstd_out, std::int64_t row,
                                                 float mean, float rstd) {
  if (threadIdx.x != 0) return;
  if (mean_out) mean_out[row] = mean;
  if (rstd_out) rstd_out[row] = rstd;
}

// [block_reduce]
/// Butterfly over the warp: after log2(32) exchanges every lane holds all 32 lanes' combine.
template <typename T, typename Combine>
__device__ __forceinline__ T warp_reduce(T value, Combine combine) {
#pragma unroll
  for (int lane_mask = kWarpSize / 2; lane_mask > 0; lane_mask /= 2) {
    value = combine(value, shuffle_xor(value, lane_mask));
  }
  return value;
}

/// Chapter 03's two-level reduction for any combine whose identity is T{} (zeros): each warp
/// reduces with shuffles, lane 0 parks the warp's result in shared memory, and after one
/// barrier every warp reduces those partials, so every thread gets the block's result. Call it
/// once per kernel (the shared slots are not reused).
template <int kThreads, typename T, typename Combine>
__device__ __forceinline__ T block_reduce(T value, Combine combine) {
  constexpr int kWarps = kThreads / kWarpSize;
  static_assert(kThreads % kWarpSize == 0 && kWarps <= kWarpSize);
  __shared__ T per_warp[kWarps];
  const int lane = static_cast<int>(threadIdx.x) % kWarpSize;
  value = warp_reduce(value, combine);
  if (lane == 0) per_warp[threadIdx.x / kWarpSize] = value;
  __syncthreads();
  return warp_reduce(lane < kWarps ? per_warp[lane] : T{}, combine);
}
// [block_reduce]

}  // namespace normlab::ch05
