// SPDX-License-Identifier: Apache-2.0
/// @file row_slice.cuh
/// @brief A row held in registers, one slice per thread of a block, moved in float4 packs when
/// the rows are 16-byte aligned; and the launch configurations that size the block to the row.
/// Chapter 05 builds its LayerNorm kernels from these, chapter 06 its fused residual kernels.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "ch05.cuh"

namespace normlab::ch05 {

/// Elements of a row that each thread keeps in registers.
inline constexpr int kFloatsPerThread = 16;
/// Threads of the largest block a configuration launches.
inline constexpr int kMaxThreads = 1024;
static_assert(kMaxCols == std::int64_t{kMaxThreads} * kFloatsPerThread);

/// A launch configuration: the pack every access moves (float4, or float for rows that are
/// not 16-byte aligned) and the block size. Each thread holds kPacks packs of the row.
/// kMinBlocksPerSm, passed to __launch_bounds__, asks for at least 1024 resident threads per
/// SM, which caps a thread at 64 registers: room for its 16 floats without spilling.
template <typename PackType, int kThreadsPerBlock>
struct Layout {
  using Pack = PackType;
  static constexpr int kThreads = kThreadsPerBlock;
  static constexpr int kMinBlocksPerSm = kMaxThreads / kThreads;
  static constexpr int kWidth = sizeof(Pack) / sizeof(float);
  static constexpr int kPacks = kFloatsPerThread / kWidth;
  static_assert(kThreads % 32 == 0 && kThreads <= kMaxThreads);
};

/// Element @p j of a pack (a float is a pack of one).
template <typename Pack>
__device__ __forceinline__ float& component(Pack& pack, int j) {
  return reinterpret_cast<float*>(&pack)[j];
}
template <typename Pack>
__device__ __forceinline__ float component(const Pack& pack, int j) {
  return reinterpret_cast<const float*>(&pack)[j];
}

// [row_slice_load]
/// The part of one row that thread t of the block holds: packs t, t + kThreads, t + 2 kThreads,
/// ... of the row, and on the float4 path one element of the tail (the cols % 4 elements after
/// the last whole float4), which only threads 0 to 2 can have. Every loop over packs is fully
/// unrolled, so each index is a compile-time constant and the slice stays in registers.
template <typename L>
struct RowSlice {
  using Pack = typename L::Pack;
  Pack packs[L::kPacks];
  float tail;

  /// Index in the row, counted in packs, of this thread's pack @p i.
  __device__ static int pack_index(int i) {
    return i * L::kThreads + static_cast<int>(threadIdx.x);
  }
  /// Column of this thread's tail element (valid only when < cols).
  __device__ static int tail_column(int cols) {
    return cols / L::kWidth * L::kWidth + static_cast<int>(threadIdx.x);
  }

  /// Reads this thread's part of @p row; what the row does not have reads as 0. Every load is
  /// issued before any value is used, so the whole row is in flight at once.
  __device__ void load(const float* row, int cols) {
    const int whole_packs = cols / L::kWidth;
#pragma unroll
    for (int i = 0; i < L::kPacks; ++i) {
      const int p = pack_index(i);
      packs[i] = p < whole_packs ? reinterpret_cast<const Pack*>(row)[p] : Pack{};
    }
    const int t = tail_column(cols);
    tail = t < cols ? row[t] : 0.0f;
  }
  // [row_slice_load]

  /// Adds @p other element by element.
  __device__ void add(const RowSlice& other) {
#pragma unroll
    for (int i = 0; i < L::kPacks; ++i) {
#pragma unroll
      for (int j = 0; j < L::kWidth; ++j)
        component(packs[i], j) += component(other.packs[i], j);
    }
    tail += other.tail;
  }

  /// Calls @p visit(value) for each element this thread holds that lies inside the row, in
  /// order: the packs, then the tail element.
  template <typename Visit>
  __device__ void for_each(int cols, Visit visit) const {
    const int whole_packs = cols / L::kWidth;
#pragma unroll
    for (int i = 0; i < L::kPacks; ++i) {
      if (pack_index(i) < whole_packs) {
#pragma unroll
        for (int j = 0; j < L::kWidth; ++j)
          visit(component(packs[i], j));
      }
    }
    if (tail_column(cols) < cols) visit(tail);
  }

  /// Writes the slice to @p row, nothing past cols.
  __device__ void store(float* row, int cols) const {
    const int whole_packs = cols / L::kWidth;
#pragma unroll
    for (int i = 0; i < L::kPacks; ++i) {
      const int p = pack_index(i);
      if (p < whole_packs) reinterpret_cast<Pack*>(row)[p] = packs[i];
    }
    const int t = tail_column(cols);
    if (t < cols) row[t] = tail;
  }

  /// Writes y = normalize(v) * weight + bias for each element v to @p row, nothing past cols.
  /// A null @p weight scales by 1, a null @p bias adds 0. The parameters are read a pack at a
  /// time, like the row; they must not overlap @p row.
  template <typename Normalize>
  __device__ void store_normalized(float* row, int cols, Normalize normalize,
                                   const float* __restrict__ weight,
                                   const float* __restrict__ bias) const {
    const int whole_packs = cols / L::kWidth;
#pragma unroll
    for (int i = 0; i < L::kPacks; ++i) {
      const int p = pack_index(i);
      if (p < whole_packs) {
        const Pack w = weight ? reinterpret_cast<const Pack*>(weight)[p] : ones();
        const Pack b = bias ? reinterpret_cast<const Pack*>(bias)[p] : Pack{};
        Pack out;
#pragma unroll
        for (int j = 0; j < L::kWidth; ++j) {
          component(out, j) = normalize(component(packs[i], j)) * component(w, j) + component(b, j);
        }
        reinterpret_cast<Pack*>(row)[p] = out;
      }
    }
    const int t = tail_column(cols);
    if (t < cols) {
      row[t] = normalize(tail) * (weight ? weight[t] : 1.0f) + (bias ? bias[t] : 0.0f);
    }
  }

 private:
  __device__ static Pack ones() {
    Pack pack;
#pragma unroll
    for (int j = 0; j < L::kWidth; ++j)
      component(pack, j) = 1.0f;
    return pack;
  }
};

// [configurations]
/// Calls @p launch(Layout<Pack, threads>{}) with the smallest block whose threads hold a row
/// of @p cols elements, 16 each.
template <typename Pack, typename Launch>
void with_block_for(std::int64_t cols, Launch&& launch) {
  if (cols <= 128 * kFloatsPerThread) return launch(Layout<Pack, 128>{});
  if (cols <= 256 * kFloatsPerThread) return launch(Layout<Pack, 256>{});
  if (cols <= 512 * kFloatsPerThread) return launch(Layout<Pack, 512>{});
  launch(Layout<Pack, kMaxThreads>{});
}
/// The same with float4 packs when the rows are 16-byte @p aligned, floats otherwise.
template <typename Launch>
void with_layout_for(std::int64_t cols, bool aligned, Launch&& launch) {
  if (aligned) {
    with_block_for<float4>(cols, launch);
  } else {
    with_block_for<float>(cols, launch);
  }
}
// [configurations]

}  // namespace normlab::ch05
