// SPDX-License-Identifier: Apache-2.0
/// @file ex03.cuh
/// @brief Exercise 03: block-per-row RMSNorm whose reduction is built from warp shuffles
/// (chapter 03), with the reductions written in reductions.cuh.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace normlab::ex03 {

/// y = x / sqrt(mean(x^2) + eps) * weight for every row of a rows x cols fp32 tensor, one block
/// per row. Strides are in elements; weight holds cols values.
void rmsnorm(const float* x, std::int64_t x_stride, const float* weight, float* y,
             std::int64_t y_stride, std::int64_t rows, std::int64_t cols, float eps,
             cudaStream_t stream);

}  // namespace normlab::ex03
