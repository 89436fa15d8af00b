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
  float* mean;           ///< null: not written (LayerNorm only)
  float* rstd;           ///< null: not written
  std::int64_t rows;
  std::int64_t cols;
  float eps;
};

/// The launchers, for T = P = float, for T = __half or __nv_bfloat16 with P = T or float, and for
/// T = float with P = __half or __nv_bfloat16 (read exactly as fp32: the fp32 launch's result).
///
/// Each row may have its own stride and any element-aligned base. Statistics are accumulated
/// in fp32; the result is computed in fp32 and rounded to T once, when it is stored; for
/// add + norm, h = x + residual is added in fp32, rounded to R when it is stored, and the norm is
/// taken of that stored h: the value the next layer reads back. With R = T (one dtype) h is
/// rounded to T before the statistics; with an fp32 stream (R = float, T 16-bit) h is not rounded
/// at all, and only y is rounded to T. y may be x, and residual_out may be residual (in place).
/// Throws
/// std::invalid_argument naming the argument before anything is launched when an argument
/// cannot work; rows = 0 launches nothing. Fields an op does not use are ignored.

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
