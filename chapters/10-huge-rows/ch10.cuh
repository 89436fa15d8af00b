// SPDX-License-Identifier: Apache-2.0
/// @file ch10.cuh
/// @brief Chapter 10: rows too long for one block. The four forward norms of chapter 07 on the
/// same Tensors, for rows wider than a block's registers hold: a row over the blocks of a
/// thread-block cluster (Hopper), over every SM of the GPU, or split and read twice.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "ch07.cuh"
#include "choose_path.hpp"

namespace normlab::device {
struct Moments;  // normlab/device/welford.cuh
}  // namespace normlab::device

namespace normlab::ch10 {

using ch07::Tensors;

/// Device memory a launcher may use between its kernels: the whole-GPU kernel's partial sums
/// (two rows' worth) and the split kernels' (every row's). scratch_bytes() says how much.
struct Scratch {
  void* data = nullptr;  ///< 16-byte aligned
  std::size_t bytes = 0;
};

/// Scratch bytes any path needs for @p rows rows of @p cols elements of @p element_bytes each
/// (whichever path runs): the most of the whole-GPU kernel's and the split kernels'.
std::size_t scratch_bytes(std::int64_t rows, std::int64_t cols, int element_bytes);

/// The launchers, for T = P = float and for T = __half or __nv_bfloat16 with P = T or float,
/// with chapter 07's contract (ch07.cuh): any stride and element alignment, in place, (1 + w),
/// optional parameters and statistics; std::invalid_argument naming the argument before
/// anything is launched. @p path null: the chapter's choice (choose()); else that path,
/// refused by name when this GPU or this row cannot take it (a cluster below sm_90 or wider
/// than 16 blocks hold, the whole GPU when the row is wider than what is resident at once).
template <typename T, typename P>
void rmsnorm(const Tensors<T, P>& t, Scratch scratch, cudaStream_t stream,
             const Path* path = nullptr);
template <typename T, typename P>
void layernorm(const Tensors<T, P>& t, Scratch scratch, cudaStream_t stream,
               const Path* path = nullptr);
template <typename T, typename P>
void add_rmsnorm(const Tensors<T, P>& t, Scratch scratch, cudaStream_t stream,
                 const Path* path = nullptr);
template <typename T, typename P>
void add_layernorm(const Tensors<T, P>& t, Scratch scratch, cudaStream_t stream,
                   const Path* path = nullptr);

/// The split row's two passes apart, for chapter 12, which runs them on each GPU's slice of
/// every row with NCCL between them. Pass 1 writes the moments (device::Moments: count, mean,
/// M2; RMSNorm's about zero) of each of @p parts parts of each row, part p of row r at
/// moments[r * parts + p]; add + norm also stores h. Pass 2 normalises each row of @p t with
/// the statistics of the moments described by RowParts, merged in order, its @p parts blocks
/// a row each normalising its part.
struct RowParts {
  const device::Moments* moments;
  std::int64_t count;        ///< parts a row's statistics merge
  std::int64_t row_stride;   ///< from one row's first part to the next row's
  std::int64_t part_stride;  ///< from a part of a row to its next
  std::int64_t cols;         ///< the whole row's width, which @p t may hold a slice of
};
template <typename T, typename P, bool kCentre, bool kAdd>
void launch_split_moments(const Tensors<T, P>& t, std::int64_t parts, device::Moments* moments,
                          cudaStream_t stream);
template <typename T, typename P, bool kCentre, bool kAdd>
void launch_split_normalise(const Tensors<T, P>& t, std::int64_t parts, const RowParts& merged,
                            cudaStream_t stream);

/// What choose() is told of the current GPU (asked once per device and kept).
Gpu current_gpu();

}  // namespace normlab::ch10
