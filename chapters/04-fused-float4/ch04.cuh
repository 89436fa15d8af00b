// SPDX-License-Identifier: Apache-2.0
/// @file ch04.cuh
/// @brief Chapter 04: fused single pass with 16-byte accesses. Each thread keeps its slice of
/// the row in registers across the reduction, so x is read from memory once: 2 * rows * cols
/// * 4 bytes in all, the least an RMSNorm can move.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace normlab::ch04 {

/// The widest row (in fp32 elements) kept in registers: 384 threads x 32 floats. Wider rows
/// are read twice (rmsnorm_two_reads), the second time mostly from the SM's L1.
inline constexpr std::int64_t kMaxRegisterCols = 12288;

/// y = x / sqrt(mean(x^2) + eps) * weight for a strided rows x cols fp32 tensor, one block per
/// row. Rows of up to kMaxRegisterCols elements stay in registers between the sum and the
/// scale; wider rows fall back to rmsnorm_two_reads. Uses 16-byte loads and stores when x, y
/// and weight are 16-byte aligned and both strides are multiples of 4 elements (every row then
/// starts aligned; a cols % 4 tail is handled element by element), else 4-byte accesses.
void rmsnorm_fused(const float* x, std::int64_t x_stride, const float* weight, float* y,
                   std::int64_t y_stride, std::int64_t rows, std::int64_t cols, float eps,
                   cudaStream_t stream);

/// The same result for any width, reading each row twice (sum, then scale) with the same
/// 16-byte accesses: the fallback rmsnorm_fused uses past kMaxRegisterCols, callable on its
/// own to compare both sides of that threshold.
void rmsnorm_two_reads(const float* x, std::int64_t x_stride, const float* weight, float* y,
                       std::int64_t y_stride, std::int64_t rows, std::int64_t cols, float eps,
                       cudaStream_t stream);

}  // namespace normlab::ch04
