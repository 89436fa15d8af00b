// SPDX-License-Identifier: Apache-2.0
/// @file ex01.cuh
/// @brief Exercise 01: LayerNorm with one thread per row (chapter 01's kernel, taken from
/// RMSNorm to LayerNorm).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace normlab::ex01 {

/// y = (x - mean) / sqrt(variance + eps) * weight + bias for every row of a rows x cols fp32
/// tensor, one thread per row. Strides are in elements; weight and bias hold cols values.
void layernorm(const float* x, std::int64_t x_stride, const float* weight, const float* bias,
               float* y, std::int64_t y_stride, std::int64_t rows, std::int64_t cols, float eps,
               cudaStream_t stream);

}  // namespace normlab::ex01
