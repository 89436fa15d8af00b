// SPDX-License-Identifier: Apache-2.0
/// @file part_moments.cuh
/// @brief The spread families' statistics of a row held by many blocks, each block with a part of
/// it: the moments of a part (chapter 05's Welford moments, device/welford.cuh), merged in a fixed
/// order into the row's. RMSNorm's are moments about zero (mean 0, m2 the sum of squares), so
/// Chan's merge of them is a plain sum and one type serves both norms.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "normlab/device/reduce.cuh"
#include "normlab/device/welford.cuh"
#include "row_norm.cuh"

namespace normlab::kernels::spread {

using device::Moments;
using device::Vector;

// [chunk_moments]
// The moments of the elements of one chunk that lie inside the row, merged into @p m.
// LayerNorm: the chunk's own mean and squared deviations (two passes over at most 8 values in
// registers), then Chan's merge; RMSNorm: the sum of squares.
template <bool kCentre, bool kAligned, typename T>
__device__ Moments add_chunk(Moments m, const Vector<T>& v, std::int64_t first, std::int64_t cols) {
  constexpr int kWidth = Vector<T>::kWidth;
  float count = 0.0f, sum = 0.0f, squares = 0.0f;
#pragma unroll
  for (int j = 0; j < kWidth; ++j) {
    if (kAligned ? first < cols : in_row(first + j, cols)) {
      const float value = device::to_float(v.element[j]);
      count += 1.0f;
      sum += value;
      squares += value * value;
    }
  }
  if constexpr (!kCentre) return {m.count + count, 0.0f, m.m2 + squares};
  if (count == 0.0f) return m;
  const float mean = __fdividef(sum, count);
  float deviations = 0.0f;
#pragma unroll
  for (int j = 0; j < kWidth; ++j) {
    if (kAligned ? first < cols : in_row(first + j, cols)) {
      const float d = device::to_float(v.element[j]) - mean;
      deviations += d * d;
    }
  }
  return device::welford_merge(m, {count, mean, deviations});
}
// [chunk_moments]

// The moments of the chunks a thread keeps in registers (chunk slice.chunk(v) in h[v]).
template <bool kCentre, bool kAligned, int kVectors, typename T>
__device__ Moments registers_moments(const Vector<T> (&h)[kVectors], Slice slice, int lead,
                                     std::int64_t cols) {
  Moments m{};
#pragma unroll
  for (int v = 0; v < kVectors; ++v)
    m = add_chunk<kCentre, kAligned>(m, h[v], chunk_start(slice.chunk(v), Vector<T>::kWidth, lead),
                                     cols);
  return m;
}

// The merge of every lane's @p m by the warp's butterfly, lane 0's result in every lane: Chan's
// merge is not commutative bit for bit, so lanes of one butterfly may differ in the last bit,
// and every thread must normalise with the same statistics.
__device__ inline Moments warp_merge(Moments m) {
  m = device::warp_reduce(m, device::welford_merge);
  return {__shfl_sync(device::kFullMask, m.count, 0), __shfl_sync(device::kFullMask, m.mean, 0),
          __shfl_sync(device::kFullMask, m.m2, 0)};
}

// The moments of parts[0], parts[stride], ... (count of them), merged in the same order by
// every warp that calls it: lane l merges parts l, l + 32, ... in turn, then the warp merges its
// lanes. A lane's loads go kBatch at a time, all in flight before the first merge waits for
// one; one at a time, each part costs the lane an L2 round trip. The split row and chapter 12
// keep 1, which leaves their kernels the registers they had. Reads through L2 (__ldcg): the
// parts were written by other SMs, whose writes an SM's L1 does not see.
template <int kBatch = 1>
__device__ Moments merge_parts(const Moments* parts, std::int64_t count, std::int64_t stride = 1) {
  Moments m{};
  for (std::int64_t base = threadIdx.x % device::kWarpSize; base < count;
       base += device::kWarpSize * kBatch) {
    Moments part[kBatch];
#pragma unroll
    for (int k = 0; k < kBatch; ++k) {
      if (base + k * device::kWarpSize < count) {
        const Moments* p = parts + (base + k * device::kWarpSize) * stride;
        part[k] = {__ldcg(&p->count), __ldcg(&p->mean), __ldcg(&p->m2)};
      }
    }
#pragma unroll
    for (int k = 0; k < kBatch; ++k) {
      if (base + k * device::kWarpSize < count) m = device::welford_merge(m, part[k]);
    }
  }
  return warp_merge(m);
}

// merge_parts by the block's first warp alone, its result shared with the block through shared
// memory: one warp of each block reads the parts, not every warp (with every warp of a
// 256-block grid reading the same 256 parts at once, the merge was a large share of a row's
// time).
template <int kBatch>
__device__ Moments block_merge_parts(const Moments* parts, std::int64_t count) {
  __shared__ Moments merged;
  if (threadIdx.x < device::kWarpSize) {
    const Moments m = merge_parts<kBatch>(parts, count);
    if (threadIdx.x == 0) merged = m;
  }
  __syncthreads();
  const Moments m = merged;
  __syncthreads();  // read by every thread before the next row writes it
  return m;
}

// [merge_by_warps]
// The same merge with every warp of the block reading a share of the parts (warp w the w-th
// run of about count / warps of them, merged as merge_parts does), then the warps' results
// merged in warp order: each part is still read once a block, but in one round of loads instead
// of count / 32 / kBatch rounds by one warp. Every block merges in the same order, so every
// block normalises with the same statistics. The held whole-GPU kernel takes it over
// block_merge_parts<4> (chapter 10's worklog, "The merge by warps", has the comparison).
__device__ inline Moments block_merge_parts_by_warps(const Moments* parts, int count) {
  __shared__ Moments by_warp[device::kWarpSize];
  const int warps = static_cast<int>(blockDim.x) / device::kWarpSize;
  const int warp = static_cast<int>(threadIdx.x) / device::kWarpSize;
  const int share = (count + warps - 1) / warps;
  const int first = min(count, warp * share);
  const Moments mine = merge_parts<2>(parts + first, min(count, first + share) - first);
  if (threadIdx.x % device::kWarpSize == 0) by_warp[warp] = mine;
  __syncthreads();
  Moments m{};
  for (int w = 0; w < warps; ++w)
    m = device::welford_merge(m, by_warp[w]);
  __syncthreads();  // read by every thread before the next row writes it
  return m;
}
// [merge_by_warps]

}  // namespace normlab::kernels::spread
