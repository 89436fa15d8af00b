// SPDX-License-Identifier: Apache-2.0
/// @file ch00.cuh
/// @brief Chapter 00: the roofline. A copy kernel to measure what "memory-bound" allows, and
/// the eager RMSNorm every later chapter is compared with.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace normlab::ch00 {

/// y = x for a contiguous rows x cols fp32 tensor, with a hand-written 16-byte-wide kernel.
void copy_kernel(const float* x, float* y, std::int64_t rows, std::int64_t cols,
                 cudaStream_t stream);

/// y = x for a strided rows x cols fp32 tensor, through cudaMemcpy2DAsync.
void copy_memcpy(const float* x, std::int64_t x_stride, float* y, std::int64_t y_stride,
                 std::int64_t rows, std::int64_t cols, cudaStream_t stream);

/// RMSNorm the way an eager framework runs `x * rsqrt(mean(x^2) + eps) * w`: five launches,
/// two rows x cols temporaries, about 3.5 times the bytes of a fused kernel.
void rmsnorm_eager(const float* x, std::int64_t x_stride, const float* weight, float* y,
                   std::int64_t y_stride, std::int64_t rows, std::int64_t cols, float eps,
                   cudaStream_t stream);

}  // namespace normlab::ch00
