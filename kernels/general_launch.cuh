// SPDX-License-Identifier: Apache-2.0
/// @file general_launch.cuh
/// @brief The general launcher's decisions: the block for a row's chunks (counted by
/// chunk_grid.hpp), and which kernel runs a call.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cstdint>

#include "chunk_grid.hpp"
#include "normlab/check.hpp"
#include "row_norm.cuh"

namespace normlab::kernels {

static_assert(kChunkBytes == device::kVectorBytes, "the chunk grid is the 16-byte vector's");
static_assert(most_register_chunks(true) == 8 * kMostThreads<8> &&
                  most_register_chunks(false) == 4 * kMostThreads<4>,
              "chunk_grid.hpp states the register kernels' widest rows");

// [dispatch]
// Whole warps, enough for every chunk when each thread keeps vectors of them.
inline unsigned int threads_for_chunks(std::int64_t chunks, int vectors) {
  const std::int64_t threads = (chunks + vectors - 1) / vectors;
  return static_cast<unsigned int>((threads + device::kWarpSize - 1) / device::kWarpSize *
                                   device::kWarpSize);
}

// Aligned: every row of every tensor and both parameter vectors start on a 16-byte boundary
// and a row is a whole number of vectors, so no chunk needs element-by-element code. (The
// configured and spread launchers ask the same before they choose.)
template <typename T, typename P>
bool vectors_aligned(const Tensors<T, P>& t) {
  const auto element = static_cast<std::int64_t>(sizeof(T));
  return t.cols % Vector<T>::kWidth == 0 && rows_aligned(t.x, t.x_stride, element) &&
         rows_aligned(t.y, t.y_stride, element) &&
         rows_aligned(t.residual, t.residual_stride, element) &&
         rows_aligned(t.residual_out, t.residual_out_stride, element) &&
         rows_aligned(t.weight, 0, element) && rows_aligned(t.bias, 0, element);
}

template <typename T, typename P, bool kCentre, bool kAdd>
void launch(const Tensors<T, P>& t, cudaStream_t stream) {
  const auto element = static_cast<std::int64_t>(sizeof(T));
  const bool aligned = vectors_aligned(t);
  const std::int64_t chunks = most_chunks(t.x, t.x_stride, t.cols, element);
  const auto grid = static_cast<unsigned int>(std::min<std::int64_t>(t.rows, INT_MAX));
  // Four vectors a thread (64 bytes of a 16-bit row) while a block of at most 512 threads
  // holds the row; eight for wider aligned rows; wider rows still are streamed.
  if (aligned && chunks <= 4 * kMostThreads<4>) {
    norm_in_registers<T, P, 4, kCentre, kAdd, true>
        <<<grid, threads_for_chunks(chunks, 4), 0, stream>>>(t);
  } else if (aligned && chunks <= most_register_chunks(true)) {
    norm_in_registers<T, P, 8, kCentre, kAdd, true>
        <<<grid, threads_for_chunks(chunks, 8), 0, stream>>>(t);
  } else if (chunks <= most_register_chunks(false)) {
    norm_in_registers<T, P, 4, kCentre, kAdd, false>
        <<<grid, threads_for_chunks(chunks, 4), 0, stream>>>(t);
  } else {
    norm_streaming<T, P, kCentre, kAdd><<<grid, kStreamingThreads, 0, stream>>>(t);
  }
  NORMLAB_CHECK_LAUNCH();
}

// [dispatch]

}  // namespace normlab::kernels
