// SPDX-License-Identifier: Apache-2.0
/// @file ch05.cuh
/// @brief Chapter 05: LayerNorm in one pass over a row held in registers, first with the
/// textbook variance E[x^2] - E[x]^2, then with Welford's moments, which stay accurate when the
/// mean is far larger than the spread.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace normlab::ch05 {

/// The widest row the register-resident kernels of chapters 05 and 06 take: 1024 threads
/// holding 16 elements each.
inline constexpr std::int64_t kMaxCols = 16384;

/// y = (x - mean) / sqrt(var + eps) * weight + bias for every row of a rows x cols fp32 tensor
/// (1 <= cols <= kMaxCols), one block per row, x read once; var = sum(x^2)/n - mean^2, which
/// loses every digit when |mean| >> std (this kernel is the chapter's counter-example).
/// weight and bias may be null (scale 1, shift 0) and must not overlap y; y may be x (same
/// stride). mean and rstd, when not null, receive each row's mean and 1 / sqrt(var + eps).
void layernorm_sum_of_squares(const float* x, std::int64_t x_stride, const float* weight,
                              const float* bias, float* y, std::int64_t y_stride, float* mean,
                              float* rstd, std::int64_t rows, std::int64_t cols, float eps,
                              cudaStream_t stream);

/// The same LayerNorm with the statistics accumulated as Welford moments around a per-row
/// pivot (the row's first element) and merged with Chan's formula: accurate to fp32 whatever
/// the row's mean. Arguments as layernorm_sum_of_squares.
void layernorm_welford(const float* x, std::int64_t x_stride, const float* weight,
                       const float* bias, float* y, std::int64_t y_stride, float* mean, float* rstd,
                       std::int64_t rows, std::int64_t cols, float eps, cudaStream_t stream);

}  // namespace normlab::ch05
