// SPDX-License-Identifier: Apache-2.0
/// @file ex07.cuh
/// @brief Exercise 07: RMSNorm of a bf16 tensor that reads each row as 16-byte vectors of eight
/// bf16 values, converted to fp32, with an element-by-element tail (chapter 07).
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>

namespace normlab::ex07 {

/// y = x / sqrt(mean(x^2) + eps) * weight for every row of a rows x cols bf16 tensor with a
/// bf16 weight, any cols >= 1, statistics in fp32, one block per row. x, y and weight must be
/// 16-byte aligned and the strides (in elements) multiples of 8, so that every row starts on a
/// 16-byte boundary.
void rmsnorm(const __nv_bfloat16* x, std::int64_t x_stride, const __nv_bfloat16* weight,
             __nv_bfloat16* y, std::int64_t y_stride, std::int64_t rows, std::int64_t cols,
             float eps, cudaStream_t stream);

}  // namespace normlab::ex07
