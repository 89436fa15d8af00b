// SPDX-License-Identifier: Apache-2.0
/// @file general_launch.cuh
/// @brief The general launcher's decisions: the block for a row's chunks (counted by
/// chunk_grid.hpp), and which kernel runs a call.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <type_traits>

#include "chunk_grid.hpp"
#include "fp32_residual.cuh"
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
template <typename T, typename P, typename R>
bool vectors_aligned(const Tensors<T, P, R>& t) {
  const auto element = static_cast<std::int64_t>(sizeof(T));
  const auto stream_element = static_cast<std::int64_t>(sizeof(R));
  return t.cols % Vector<T>::kWidth == 0 &&
         rows_aligned(t.x, t.x_stride, t.x_group_rows, t.x_group_stride, element) &&
         rows_aligned(t.y, t.y_stride, element) &&
         rows_aligned(t.residual, t.residual_stride, stream_element) &&
         rows_aligned(t.residual_out, t.residual_out_stride, stream_element) &&
         rows_aligned(t.weight, 0, element) && rows_aligned(t.bias, 0, element);
}

// kTwoLevel: the instances that take x's rows in groups (a head view; launch() below).
template <typename T, typename P, bool kCentre, bool kAdd, bool kTwoLevel>
void launch_kernels(const Tensors<T, P>& t, cudaStream_t stream) {
  const auto element = static_cast<std::int64_t>(sizeof(T));
  const bool aligned = vectors_aligned(t);
  const std::int64_t chunks =
      most_chunks(t.x, t.x_stride, t.cols, element, t.x_group_rows, t.x_group_stride);
  const auto grid = static_cast<unsigned int>(std::min<std::int64_t>(t.rows, INT_MAX));
  // Four vectors a thread (64 bytes of a 16-bit row) while a block of at most 512 threads
  // holds the row; eight for wider aligned rows; wider rows still are streamed.
  if (aligned && chunks <= 4 * kMostThreads<4>) {
    norm_in_registers<T, P, 4, kCentre, kAdd, true, kTwoLevel>
        <<<grid, threads_for_chunks(chunks, 4), 0, stream>>>(t);
  } else if (aligned && chunks <= most_register_chunks(true)) {
    norm_in_registers<T, P, 8, kCentre, kAdd, true, kTwoLevel>
        <<<grid, threads_for_chunks(chunks, 8), 0, stream>>>(t);
  } else if (chunks <= most_register_chunks(false)) {
    norm_in_registers<T, P, 4, kCentre, kAdd, false, kTwoLevel>
        <<<grid, threads_for_chunks(chunks, 4), 0, stream>>>(t);
  } else {
    norm_streaming<T, P, kCentre, kAdd, kTwoLevel><<<grid, kStreamingThreads, 0, stream>>>(t);
  }
  NORMLAB_CHECK_LAUNCH();
}

template <typename T, typename P, bool kCentre, bool kAdd>
void launch(const Tensors<T, P>& t, cudaStream_t stream) {
  if constexpr (!kAdd) {  // add + norm's x has one stride (validate refuses groups)
    if (t.x_group_rows > 1) return launch_kernels<T, P, kCentre, kAdd, true>(t, stream);
  }
  launch_kernels<T, P, kCentre, kAdd, false>(t, stream);
}

// [dispatch]

// An fp32 residual stream with 16-bit x (fp32_residual.cuh): four chunks a thread while a block
// holds the row, else streamed.
template <typename T, typename P, bool kCentre, bool kAdd>
requires(!std::is_same_v<T, float>) void launch(const Tensors<T, P, float>& t,
                                                cudaStream_t stream) {
  static_assert(kAdd, "only add + norm has a residual stream");
  const std::int64_t chunks =
      most_chunks(t.x, t.x_stride, t.cols, static_cast<std::int64_t>(sizeof(T)), t.x_group_rows,
                  t.x_group_stride);
  const auto grid = static_cast<unsigned int>(std::min<std::int64_t>(t.rows, INT_MAX));
  if (vectors_aligned(t) && chunks <= 4 * kMostThreads<4>) {
    fp32_residual_in_registers<T, P, 4, kCentre, true>
        <<<grid, threads_for_chunks(chunks, 4), 0, stream>>>(t);
  } else if (chunks <= 4 * kMostThreads<4>) {
    fp32_residual_in_registers<T, P, 4, kCentre, false>
        <<<grid, threads_for_chunks(chunks, 4), 0, stream>>>(t);
  } else {
    fp32_residual_streaming<T, P, kCentre><<<grid, kStreamingThreads, 0, stream>>>(t);
  }
  NORMLAB_CHECK_LAUNCH();
}

}  // namespace normlab::kernels
