// SPDX-License-Identifier: Apache-2.0
/// @file ex02.cuh
/// @brief Exercise 02: block-per-row LayerNorm whose shared-memory tree reduces the sum and the
/// sum of squares together (chapter 02's tree, carrying two values).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace normlab::ex02 {

/// y = (x - mean) / sqrt(variance + eps) * weight + bias for every row of a rows x cols fp32
/// tensor, one block per row, with variance = E[x^2] - E[x]^2: accurate for rows centred near
/// zero, not for rows whose mean is large against their spread. Strides are in elements;
/// weight and bias hold cols values.
void layernorm(const float* x, std::int64_t x_stride, const float* weight, const float* bias,
               float* y, std::int64_t y_stride, std::int64_t rows, std::int64_t cols, float eps,
               cudaStream_t stream);

}  // namespace normlab::ex02
