// SPDX-License-Identifier: Apache-2.0
/// @file ch06.cuh
/// @brief Chapter 06: residual fusion. h = x + r and the norm of h in one kernel that reads x
/// and r once and writes h and y once (4 rows x cols tensors of traffic instead of 5), for
/// RMSNorm and LayerNorm; and the unfused pair it replaces, for comparison.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "ch05.cuh"

namespace normlab::ch06 {

/// The widest row these kernels take (the row is held in registers, as in chapter 05).
inline constexpr std::int64_t kMaxCols = ch05::kMaxCols;

/// h = x + residual; y = h / sqrt(mean(h^2) + eps) * weight, for every row of rows x cols fp32
/// tensors (1 <= cols <= kMaxCols), in one kernel: one block per row, x and residual read once,
/// h written to residual_out and y written once. residual_out may be residual (the usual in
/// place update of a transformer's residual stream, same stride); weight may be null (scale
/// 1) and must not overlap y. rstd, when not null, receives each row's 1 / sqrt(mean(h^2) + eps).
void add_rmsnorm(const float* x, std::int64_t x_stride, const float* residual,
                 std::int64_t residual_stride, float* residual_out,
                 std::int64_t residual_out_stride, const float* weight, float* y,
                 std::int64_t y_stride, float* rstd, std::int64_t rows, std::int64_t cols,
                 float eps, cudaStream_t stream);

/// h = x + residual; y = LayerNorm(h) * weight + bias with chapter 05's Welford statistics, in
/// one kernel. Arguments as add_rmsnorm; bias may be null (shift 0); mean and rstd, when not
/// null, receive each row's mean of h and 1 / sqrt(var(h) + eps).
void add_layernorm(const float* x, std::int64_t x_stride, const float* residual,
                   std::int64_t residual_stride, float* residual_out,
                   std::int64_t residual_out_stride, const float* weight, const float* bias,
                   float* y, std::int64_t y_stride, float* mean, float* rstd, std::int64_t rows,
                   std::int64_t cols, float eps, cudaStream_t stream);

/// The unfused pair add_rmsnorm replaces: one kernel writes h = x + residual, a second reads h
/// back and normalises it (5 rows x cols tensors of traffic). Arguments as add_rmsnorm.
void add_then_rmsnorm(const float* x, std::int64_t x_stride, const float* residual,
                      std::int64_t residual_stride, float* residual_out,
                      std::int64_t residual_out_stride, const float* weight, float* y,
                      std::int64_t y_stride, float* rstd, std::int64_t rows, std::int64_t cols,
                      float eps, cudaStream_t stream);

}  // namespace normlab::ch06
