// SPDX-License-Identifier: Apache-2.0
/// @file chunk_grid.hpp
/// @brief The arithmetic of memory's 16-byte grid (taught in chapter 07), host code only: whether
/// rows start on it, and how many 16-byte chunks a row spans. The launchers (general_launch.cuh,
/// backward, configured) and normlab's dispatcher (api/), which predicts the configured
/// launcher's choice, share it.
#pragma once

#include <cstdint>

namespace normlab::kernels {

/// The 16-byte vector of the device code (device::kVectorBytes), for code without its headers.
inline constexpr std::int64_t kChunkBytes = 16;

// [chunk_grid]
// Whether every row of a tensor starts on a 16-byte boundary (null tensors are absent).
inline bool rows_aligned(const void* data, std::int64_t stride, std::int64_t element_bytes) {
  return reinterpret_cast<std::uintptr_t>(data) % kChunkBytes == 0 &&
         stride * element_bytes % kChunkBytes == 0;
}

// The same for x, whose rows may have two levels (row_offset in general.cuh): groups of
// group_rows rows, the groups group_stride apart; both strides must keep the alignment.
inline bool rows_aligned(const void* data, std::int64_t stride, std::int64_t group_rows,
                         std::int64_t group_stride, std::int64_t element_bytes) {
  return rows_aligned(data, stride, element_bytes) &&
         (group_rows <= 1 || group_stride * element_bytes % kChunkBytes == 0);
}

// The most chunks a row of x spans: one per 16 bytes, plus one when rows do not start on a
// 16-byte boundary. When the strides keep every row's alignment (both, for two-level rows), the
// first row tells.
inline std::int64_t most_chunks(const void* x, std::int64_t stride, std::int64_t cols,
                                std::int64_t element_bytes, std::int64_t group_rows = 0,
                                std::int64_t group_stride = 0) {
  const std::int64_t width = kChunkBytes / element_bytes;
  const bool rows_share_alignment =
      rows_aligned(nullptr, stride, group_rows, group_stride, element_bytes);
  const std::int64_t lead =
      rows_share_alignment
          ? static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(x) % kChunkBytes) /
                element_bytes
          : width - 1;
  return (lead + cols + width - 1) / width;
}
// [chunk_grid]

/// The widest row the general launcher keeps in one block's registers, in chunks
/// (general_launch.cuh): 8 vectors x 384 threads for rows on the 16-byte grid, 4 x 512 for
/// others. Wider rows are streamed, reading x again; the spread launcher keeps them on chip.
constexpr std::int64_t most_register_chunks(bool aligned) {
  return aligned ? 8 * 384 : 4 * 512;
}

}  // namespace normlab::kernels
