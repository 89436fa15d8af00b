// SPDX-License-Identifier: Apache-2.0
/// @file ex08.cuh
/// @brief Exercise 08: the backward of fp32 RMSNorm: dx of each row from the rstd the forward
/// saved, and dweight summed over rows (chapter 08).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace normlab::ex08 {

/// For every row of a rows x cols fp32 tensor, with x_hat = x * rstd and g = dy * weight:
/// dx = rstd * (g - x_hat * mean(g * x_hat)); and dweight = sum over rows of dy * x_hat, added
/// in row order (the same bits on every run). saved_rstd holds one fp32 per row. rows = 0 writes
/// a zero dweight. One block per row for dx, one thread per column for dweight.
void rmsnorm_backward(const float* x, std::int64_t x_stride, const float* dy,
                      std::int64_t dy_stride, const float* weight, const float* saved_rstd,
                      float* dx, std::int64_t dx_stride, float* dweight, std::int64_t rows,
                      std::int64_t cols, cudaStream_t stream);

}  // namespace normlab::ex08
