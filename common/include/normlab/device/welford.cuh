// SPDX-License-Identifier: Apache-2.0
/// @file welford.cuh
/// @brief Welford's moments of a set of values and Chan's merge of two sets, taught in
/// chapter 05; block_reduce(moments, welford_merge) (reduce.cuh) gives a block's moments.
#pragma once

#include <cuda_runtime.h>

namespace normlab::device {

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
/// below 2^24, where __fdividef (a reciprocal and a multiply, within 2 ulp) is as accurate as
/// it needs to be and far cheaper than an IEEE division, which a kernel would otherwise do once
/// per element.
__device__ __forceinline__ Moments welford_push(Moments s, float value) {
  const float count = s.count + 1.0f;
  const float delta = value - s.mean;
  const float mean = s.mean + __fdividef(delta, count);
  return {count, mean, s.m2 + delta * (value - mean)};
}

/// Chan's merge: the moments of the union of two disjoint sets (either may be empty). The means
/// meet through their difference, weighted by b's share of the count; M2 gains the spread
/// between the two means.
__device__ __forceinline__ Moments welford_merge(Moments a, Moments b) {
  const float count = a.count + b.count;
  if (count == 0.0f) return a;
  const float delta = b.mean - a.mean;
  const float b_share = __fdividef(b.count, count);
  return {count, a.mean + delta * b_share, a.m2 + b.m2 + delta * delta * a.count * b_share};
}
// [moments]

/// Chan's merge of two sets of the same count (chapter 09's balanced rows): b's share is one
/// half, so the merge needs no division. The result is the same whichever set is a.
__device__ __forceinline__ Moments welford_merge_equal(Moments a, Moments b) {
  const float delta = b.mean - a.mean;
  return {a.count + b.count, 0.5f * (a.mean + b.mean),
          a.m2 + b.m2 + delta * delta * (0.5f * a.count)};
}

}  // namespace normlab::device
