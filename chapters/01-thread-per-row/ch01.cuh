// SPDX-License-Identifier: Apache-2.0
/// @file ch01.cuh
/// @brief Chapter 01: one thread per row. The straight port of the CPU loop to the GPU, and
/// the reason it is slow: few threads, and neighbouring threads read addresses a row apart.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace normlab::ch01 {

/// y = x / sqrt(mean(x^2) + eps) * weight for a strided rows x cols fp32 tensor, each row
/// computed by a single thread that loops over its columns twice (sum, then scale).
void rmsnorm_thread_per_row(const float* x, std::int64_t x_stride, const float* weight, float* y,
                            std::int64_t y_stride, std::int64_t rows, std::int64_t cols, float eps,
                            cudaStream_t stream);

}  // namespace normlab::ch01
