// SPDX-License-Identifier: Apache-2.0
/// @file ex11.cuh
/// @brief Exercise 11: the statistics of FlashNorm's deferred path (chapter 11): 1/RMS of each
/// fp16 row, one float a row; the normalised row itself is never written.
#pragma once

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

namespace normlab::ex11 {

/// rstd[m] = 1 / sqrt(mean(x[m][:]^2) + eps) for each of @p rows rows of @p cols fp16 values,
/// rows @p x_stride elements apart, the squares summed in fp32. Writes rstd[0] to rstd[rows - 1]
/// and nothing else; one block a row. Throws std::invalid_argument naming the argument before
/// anything is launched; rows = 0 launches nothing.
void row_rstd(const __half* x, std::int64_t x_stride, std::int64_t rows, std::int64_t cols,
              float eps, float* rstd, cudaStream_t stream);

}  // namespace normlab::ex11
