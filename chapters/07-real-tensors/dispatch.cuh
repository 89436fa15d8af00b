// SPDX-License-Identifier: Apache-2.0
/// @file dispatch.cuh
/// @brief Chapter 07's launch decisions: whether every row is aligned, how many chunks a row
/// spans, the block for them, and which kernel runs a call.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cstdint>

#include "normlab/check.hpp"
#include "row_norm.cuh"

namespace normlab::ch07 {

// [dispatch]
// Whether every row of a tensor starts on a 16-byte boundary (null tensors are absent).
inline bool rows_aligned(const void* data, std::int64_t stride, std::int64_t element_bytes) {
  return reinterpret_cast<std::uintptr_t>(data) % kVectorBytes == 0 &&
         stride * element_bytes % kVectorBytes == 0;
}

// The most chunks a row of x spans: one per 16 bytes, plus one when rows do not start on a
// 16-byte boundary. When the stride keeps every row's alignment, the first row tells.
inline std::int64_t most_chunks(const void* x, std::int64_t stride, std::int64_t cols,
                                std::int64_t element_bytes) {
  const std::int64_t width = kVectorBytes / element_bytes;
  const bool rows_share_alignment = stride * element_bytes % kVectorBytes == 0;
  const std::int64_t lead =
      rows_share_alignment
          ? static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(x) % kVectorBytes) /
                element_bytes
          : width - 1;
  return (lead + cols + width - 1) / width;
}

// Whole warps, enough for every chunk when each thread keeps vectors of them.
inline unsigned int threads_for_chunks(std::int64_t chunks, int vectors) {
  const std::int64_t threads = (chunks + vectors - 1) / vectors;
  return static_cast<unsigned int>((threads + device::kWarpSize - 1) / device::kWarpSize *
                                   device::kWarpSize);
}

template <typename T, typename P, bool kCentre, bool kAdd>
void launch(const Tensors<T, P>& t, cudaStream_t stream) {
  // Aligned: every row of every tensor and both parameter vectors start on a 16-byte
  // boundary and a row is a whole number of vectors, so no chunk needs element-by-element code.
  const auto element = static_cast<std::int64_t>(sizeof(T));
  const bool aligned = t.cols % Vector<T>::kWidth == 0 && rows_aligned(t.x, t.x_stride, element) &&
                       rows_aligned(t.y, t.y_stride, element) &&
                       rows_aligned(t.residual, t.residual_stride, element) &&
                       rows_aligned(t.residual_out, t.residual_out_stride, element) &&
                       rows_aligned(t.weight, 0, element) && rows_aligned(t.bias, 0, element);
  const std::int64_t chunks = most_chunks(t.x, t.x_stride, t.cols, element);
  const auto grid = static_cast<unsigned int>(std::min<std::int64_t>(t.rows, INT_MAX));
  // Four vectors a thread (64 bytes of a 16-bit row) while a block of at most 512 threads
  // holds the row; eight for wider aligned rows; wider rows still are streamed.
  if (aligned && chunks <= 4 * kMostThreads<4>) {
    norm_in_registers<T, P, 4, kCentre, kAdd, true>
        <<<grid, threads_for_chunks(chunks, 4), 0, stream>>>(t);
  } else if (aligned && chunks <= 8 * kMostThreads<8>) {
    norm_in_registers<T, P, 8, kCentre, kAdd, true>
        <<<grid, threads_for_chunks(chunks, 8), 0, stream>>>(t);
  } else if (chunks <= 4 * kMostThreads<4>) {
    norm_in_registers<T, P, 4, kCentre, kAdd, false>
        <<<grid, threads_for_chunks(chunks, 4), 0, stream>>>(t);
  } else {
    norm_streaming<T, P, kCentre, kAdd><<<grid, kStreamingThreads, 0, stream>>>(t);
  }
  NORMLAB_CHECK_LAUNCH();
}

// [dispatch]

}  // namespace normlab::ch07
