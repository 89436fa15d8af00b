// SPDX-License-Identifier: Apache-2.0
/// @file ex06.cuh
/// @brief Exercise 06: fused residual add + RMSNorm (chapter 06): h = x + r and y = RMSNorm(h)
/// in one kernel that reads x and r once and writes h and y once, h possibly over r.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace normlab::ex06 {

/// The widest row the kernel keeps in registers.
inline constexpr std::int64_t kMaxCols = 12288;

/// h = x + residual, written to residual_out; y = h / sqrt(mean(h^2) + eps) * weight; for every
/// row of rows x cols fp32 tensors, one block per row, 1 <= cols <= kMaxCols, any strides and
/// alignment. residual_out may be residual (in place, same stride); weight must not be null.
void add_rmsnorm(const float* x, std::int64_t x_stride, const float* residual,
                 std::int64_t residual_stride, float* residual_out,
                 std::int64_t residual_out_stride, const float* weight, float* y,
                 std::int64_t y_stride, std::int64_t rows, std::int64_t cols, float eps,
                 cudaStream_t stream);

}  // namespace normlab::ex06
