// SPDX-License-Identifier: Apache-2.0
/// @file moments.cuh
/// @brief What chapter 05's LayerNorm kernels reduce besides Welford's moments
/// (normlab/device/welford.cuh): the textbook pair of sums, and where a row's statistics go.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace normlab::ch05 {

/// The sum and the sum of squares of a set (the textbook single-pass variance). All zeros is
/// the empty set, so device::block_reduce can combine it with add_sums.
struct Sums {
  float sum;
  float sum_of_squares;
};

__device__ __forceinline__ Sums add_sums(Sums a, Sums b) {
  return {a.sum + b.sum, a.sum_of_squares + b.sum_of_squares};
}

/// Thread 0 writes a row's statistics to those of @p mean_out and @p rstd_out that are not null.
__device__ __forceinline__ void write_statistics(float* mean_out, float* rstd_out, std::int64_t row,
                                                 float mean, float rstd) {
  if (threadIdx.x != 0) return;
  if (mean_out) mean_out[row] = mean;
  if (rstd_out) rstd_out[row] = rstd;
}

}  // namespace normlab::ch05
