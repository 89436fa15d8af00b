// SPDX-License-Identifier: Apache-2.0
/// @file general.cuh
/// @brief The general launcher (taught in chapter 07): real tensors. RMSNorm, LayerNorm and their
/// fused add + norm forms for fp32, fp16 and bf16 tensors of any shape, stride and alignment,
/// statistics in fp32.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

namespace normlab::kernels {

/// The tensors of one call. T: x, y (float, __half or __nv_bfloat16); P: weight and bias (T or
/// float; the general launcher also __half or __nv_bfloat16 with T = float); R: residual and
/// residual_out, the residual stream (T; the general launcher's add + norm also float with a
/// 16-bit T). Strides are in elements.
template <typename T, typename P, typename R = T>
struct Tensors {
  const T* x;
  std::int64_t x_stride;
  const R* residual;  ///< add + norm only
  std::int64_t residual_stride;
  T* y;
  std::int64_t y_stride;
  R* residual_out;  ///< add + norm only: h = x + residual, rounded to R
  std::int64_t residual_out_stride;
  const P* weight;       ///< null: scale 1
  const P* bias;         ///< null: shift 0 (RMSNorm's only in the general launcher)
  bool weight_plus_one;  ///< scale by (1 + weight)
  /// Two-level rows of x (a head view, row_offset): groups of x_group_rows rows x_stride apart,
  /// the groups x_group_stride apart; 0 or 1 for one level. The norms only, not add + norm. In
  /// 32 bits (validate_row_groups refuses more).
  std::int32_t x_group_rows = 0;
  float* mean;  ///< null: not written (LayerNorm only)
  float* rstd;  ///< null: not written
  std::int64_t rows;
  std::int64_t cols;
  float eps;
  std::int32_t x_group_stride = 0;  ///< see x_group_rows
};
// The groups' two fields sit in padding, so that every kernel's parameter keeps its size: 16
// more bytes made chapter 09's 16-bit rows of 8 vectors with fp32 parameters, and chapter 10's
// whole-GPU fp32 LayerNorm, spill under their register caps.
static_assert(sizeof(Tensors<float, float>) == 128 && sizeof(Tensors<__half, __half>) == 128,
              "x_group_rows and x_group_stride fill Tensors' padding");

// [row_offset]
/// Where row @p r of x starts, in elements, with two levels (x of a head view, [tokens, heads,
/// head_dim] sliced from a fused projection, whose token stride is not heads x head_dim): the
/// rows come in groups of @p group_rows rows @p stride apart, the groups @p group_stride apart,
/// so row r is row r % group_rows of group r / group_rows. group_rows >= 2, and r and group_rows
/// below 2^32 (the launchers refuse more rows: validate_row_groups): the quotient is taken in 32
/// bits, inline, where a 64-bit one is a call that makes the register-capped kernels spill. The
/// kernels compiled for head views (kTwoLevel), which their launchers launch only for
/// x_group_rows >= 2, call it directly: row_offset's one-level branch cost those capped kernels
/// registers, and so blocks an SM, over their one-level twins.
__host__ __device__ inline std::int64_t grouped_row_offset(std::int64_t r, std::int64_t stride,
                                                           std::int64_t group_rows,
                                                           std::int64_t group_stride) {
  const std::uint32_t group =
      static_cast<std::uint32_t>(r) / static_cast<std::uint32_t>(group_rows);
  const std::uint32_t within =
      static_cast<std::uint32_t>(r) - group * static_cast<std::uint32_t>(group_rows);
  return group * group_stride + within * stride;
}

/// Where row @p r of a tensor starts, in elements: r * stride for @p group_rows 0 or 1 (one
/// level), else grouped_row_offset's two levels.
__host__ __device__ inline std::int64_t row_offset(std::int64_t r, std::int64_t stride,
                                                   std::int64_t group_rows,
                                                   std::int64_t group_stride) {
  if (group_rows <= 1) return r * stride;
  return grouped_row_offset(r, stride, group_rows, group_stride);
}
// [row_offset]

/// Where row @p r of x starts in @p t: the forward's Tensors, or the backward's Gradients.
/// kTwoLevel: x's rows in groups (grouped_row_offset), for the kernels compiled for head views,
/// which their launchers launch only for x_group_rows >= 2; without it one stride. A template
/// flag, not row_offset's run-time branch: the branch, and the grouped path beside it, cost the
/// register-capped kernels up to 46 registers, so the one-level kernels keep one stride alone.
template <bool kTwoLevel, typename Args>
__host__ __device__ inline auto x_row(const Args& t, std::int64_t r) {
  return t.x + (kTwoLevel ? grouped_row_offset(r, t.x_stride, t.x_group_rows, t.x_group_stride)
                          : r * t.x_stride);
}

/// The launchers, for T = P = float, for T = __half or __nv_bfloat16 with P = T or float, and for
/// T = float with P = __half or __nv_bfloat16 (read exactly as fp32: the fp32 launch's result).
///
/// Each tensor may have its own row stride and any element-aligned base; x of rmsnorm and
/// layernorm may also have two-level rows (Tensors::x_group_rows), which add + norm refuses.
/// Statistics are accumulated in fp32; the result is computed in fp32 and rounded to T once, when
/// it is stored; for add + norm, h = x + residual is added in fp32, rounded to R when it is
/// stored, and the norm is taken of that stored h: the value the next layer reads back. With
/// R = T (one dtype) h is rounded to T before the statistics; with an fp32 stream (R = float, T
/// 16-bit) h is not rounded at all, and only y is rounded to T. y may be x (not x in groups), and
/// residual_out may be residual (in place). Throws std::invalid_argument naming the argument
/// before anything is launched when an argument cannot work; rows = 0 launches nothing. Fields
/// an op does not use are ignored.

/// y = x / sqrt(mean(x^2) + eps) * weight (+ bias when given).
template <typename T, typename P>
void rmsnorm(const Tensors<T, P>& t, cudaStream_t stream);
/// y = (x - mean) / sqrt(var + eps) * weight + bias.
template <typename T, typename P>
void layernorm(const Tensors<T, P>& t, cudaStream_t stream);
/// h = x + residual into residual_out, then y = RMSNorm(h).
template <typename T, typename P, typename R>
void add_rmsnorm(const Tensors<T, P, R>& t, cudaStream_t stream);
/// h = x + residual into residual_out, then y = LayerNorm(h).
template <typename T, typename P, typename R>
void add_layernorm(const Tensors<T, P, R>& t, cudaStream_t stream);

}  // namespace normlab::kernels

/// Every forward op as (kCentre, kAdd) for every dtype pairing above: X(T, P, kCentre, kAdd).
/// The other families, whose launchers take these Tensors, instantiate their kernels with it.
#define NORMLAB_FORWARD_FOR_EACH_OP(X, T, P) \
  X(T, P, false, false)                      \
  X(T, P, true, false)                       \
  X(T, P, false, true)                       \
  X(T, P, true, true)
#define NORMLAB_FORWARD_FOR_EACH_CALL(X)                       \
  NORMLAB_FORWARD_FOR_EACH_OP(X, float, float)                 \
  NORMLAB_FORWARD_FOR_EACH_OP(X, __half, __half)               \
  NORMLAB_FORWARD_FOR_EACH_OP(X, __half, float)                \
  NORMLAB_FORWARD_FOR_EACH_OP(X, __nv_bfloat16, __nv_bfloat16) \
  NORMLAB_FORWARD_FOR_EACH_OP(X, __nv_bfloat16, float)
