// SPDX-License-Identifier: Apache-2.0
/// @file ex12.cuh
/// @brief Exercise 12: LayerNorm's statistics of rows split across ranks (chapter 12). Each rank
/// reduces its slice of every row to Welford moments (count, mean, M2); the ranks' moments,
/// gathered rank after rank, merge in rank order into each row's mean and 1/sqrt(var + eps).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace normlab::ex12 {

/// Floats of one row's moments: count, mean, and M2, the sum of squared deviations from the
/// mean (chapter 05's Welford moments, device::Moments).
inline constexpr int kMomentFloats = 3;

/// Threads of the block that reduces one row of a slice.
inline constexpr int kThreads = 256;

/// Pass 1 on one rank: the moments of each of @p rows rows of its slice, @p cols fp32 values a
/// row, rows @p x_stride elements apart; row r's (count, mean, M2) into moments[3r], [3r + 1],
/// [3r + 2], and nothing else written. One block a row. Throws std::invalid_argument naming
/// the argument before anything is launched; rows = 0 launches nothing.
void slice_moments(const float* x, std::int64_t x_stride, std::int64_t rows, std::int64_t cols,
                   float* moments, cudaStream_t stream);

/// Pass 2 on one rank: each row's statistics from the moments of all @p ranks ranks, gathered
/// rank after rank (rank p's row r at gathered[3 (p rows + r)], all-gather's layout) and merged
/// in rank order: mean[r] and rstd[r] = 1 / sqrt(M2 / count + eps) for r < rows, nothing else
/// written. Ranks that merge the same gathered moments get the same bits. Throws
/// std::invalid_argument naming the argument before anything is launched; rows = 0 launches
/// nothing.
void merge_statistics(const float* gathered, int ranks, std::int64_t rows, float eps, float* mean,
                      float* rstd, cudaStream_t stream);

}  // namespace normlab::ex12
