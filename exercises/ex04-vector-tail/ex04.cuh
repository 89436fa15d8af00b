// SPDX-License-Identifier: Apache-2.0
/// @file ex04.cuh
/// @brief Exercise 04: a register-resident float4 RMSNorm for any width: a body of float4
/// vectors and a scalar tail of the last cols % 4 elements (chapter 04, beyond multiples of 4).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace normlab::ex04 {

/// The widest row the kernel keeps in registers.
inline constexpr std::int64_t kMaxCols = 12288;

/// y = x / sqrt(mean(x^2) + eps) * weight for every row of a rows x cols fp32 tensor, one block
/// per row, for 1 <= cols <= kMaxCols. x, y and weight must be 16-byte aligned and the strides
/// (in elements) multiples of 4, so that every row starts 16-byte aligned.
void rmsnorm(const float* x, std::int64_t x_stride, const float* weight, float* y,
             std::int64_t y_stride, std::int64_t rows, std::int64_t cols, float eps,
             cudaStream_t stream);

}  // namespace normlab::ex04
