// SPDX-License-Identifier: Apache-2.0
/// @file ex09.cuh
/// @brief Exercise 09: RMSNorm of narrow bf16 rows, several rows a block, each row held in the
/// registers of a group of lanes and summed with sub-warp shuffles alone (chapter 09).
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>

namespace normlab::ex09 {

/// The widest row the kernel holds in registers.
inline constexpr std::int64_t kMostCols = 1024;

/// y = x / sqrt(mean(x^2) + eps) * weight for every row of a rows x cols bf16 tensor with a
/// bf16 weight, 1 <= cols <= kMostCols, statistics in fp32. A group of 8, 16 or 32 lanes
/// (chosen by cols) holds each row. x, y and weight must be 16-byte aligned and the strides (in
/// elements) multiples of 8, so that every row starts on a 16-byte boundary.
void rmsnorm(const __nv_bfloat16* x, std::int64_t x_stride, const __nv_bfloat16* weight,
             __nv_bfloat16* y, std::int64_t y_stride, std::int64_t rows, std::int64_t cols,
             float eps, cudaStream_t stream);

}  // namespace normlab::ex09
