// SPDX-License-Identifier: Apache-2.0
/// @file ex05.cuh
/// @brief Exercise 05: LayerNorm whose statistics are Welford moments, merged across a warp
/// and a block with Chan's formula (chapter 05), so that rows far from zero stay accurate.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace normlab::ex05 {

/// The widest row the kernel keeps in registers.
inline constexpr std::int64_t kMaxCols = 12288;

/// y = (x - mean) / sqrt(var + eps) * weight + bias for every row of a rows x cols fp32 tensor,
/// one block per row, for 1 <= cols <= kMaxCols, any strides and alignment. weight and bias
/// may be null (scale 1, shift 0); y may be x (same stride).
void layernorm(const float* x, std::int64_t x_stride, const float* weight, const float* bias,
               float* y, std::int64_t y_stride, std::int64_t rows, std::int64_t cols, float eps,
               cudaStream_t stream);

}  // namespace normlab::ex05
