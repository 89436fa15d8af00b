// SPDX-License-Identifier: Apache-2.0
/// @file ch01.cuh
/// @brief Chapter 01: one thread per row. The straight port of the CPU loop to the GPU, and
/// the reason it is slow: few threads, and neighbouring threads read addresses a row apart.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace normlab::ch01 {

// [most_cols]
/// The widest row it takes. One thread adds a row's squares one after another in fp32, and once
/// the running sum is large, each small square loses most of its bits when added (squares below
/// half the sum's ulp vanish): the sum drifts low as the row grows. For normal(0, 1) rows the
/// relative error of 1/RMS is 3.6e-5 at 262144 columns, 2.4e-4 at 1048576 and 7.1e-3 at 9437184
/// (the same sum on the CPU; the kernel's own error on a GPU agrees), against the ladder's
/// tolerance of 1e-4. Chapter 02's tree adds numbers of like size and has no such limit.
inline constexpr std::int64_t kMostCols = 262144;
// [most_cols]

/// y = x / sqrt(mean(x^2) + eps) * weight for a strided rows x cols fp32 tensor, each row
/// computed by a single thread that loops over its columns twice (sum, then scale); at most
/// kMostCols columns.
void rmsnorm_thread_per_row(const float* x, std::int64_t x_stride, const float* weight, float* y,
                            std::int64_t y_stride, std::int64_t rows, std::int64_t cols, float eps,
                            cudaStream_t stream);

}  // namespace normlab::ch01
