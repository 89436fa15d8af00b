// SPDX-License-Identifier: Apache-2.0
/// @file ops.hpp
/// @brief The operations normlab implements, problem shapes and their bytes models.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "normlab/dtype.hpp"

namespace normlab {

enum class Op {
  copy,                ///< y = x (the roofline)
  rmsnorm,             ///< y = x / sqrt(mean(x^2) + eps) * w
  layernorm,           ///< y = (x - mean) / sqrt(var + eps) * w + b
  add_rmsnorm,         ///< h = x + r; y = rmsnorm(h); h written back
  add_layernorm,       ///< h = x + r; y = layernorm(h); h written back
  rmsnorm_backward,    ///< dx, dw from dy, x, w, rstd
  layernorm_backward,  ///< dx, dw, db from dy, x, w, mean, rstd
};

/// Whether @p op adds a residual first (and writes h = x + r back).
bool is_add(Op op);
/// Whether @p op centres its rows (LayerNorm, with or without the residual add).
bool is_layernorm(Op op);
/// Whether @p op is the gradient of a forward op (rmsnorm_backward, layernorm_backward).
bool is_backward(Op op);
/// Whether @p op is a forward norm: rmsnorm, layernorm, add_rmsnorm or add_layernorm.
bool is_forward_norm(Op op);
/// Whether @p op has a bias in every kernel that runs it (LayerNorm, its add + norm form and its
/// backward).
bool takes_bias(Op op);
/// Whether @p op may have a bias: LayerNorm's ops, and RMSNorm's (y = x * rstd * w + b, as
/// PyTorch-style RMSNorm modules with a bias) where the kernel declares
/// Capabilities::rmsnorm_bias.
bool may_take_bias(Op op);

/// "copy", "rmsnorm", "layernorm", "add_rmsnorm", ...
const char* name_of(Op op);
/// Inverse of name_of; throws std::invalid_argument naming @p argument.
Op parse_op(std::string_view text, const char* argument = "op");

/// The size and types of one problem.
struct Shape {
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  DType dtype = DType::f32;         ///< x, residual, y, dy, dx (residual: see residual_dtype)
  DType weight_dtype = DType::f32;  ///< weight, bias, dweight, dbias
  bool weight = true;
  bool bias = false;
  /// Backward ops: dy's dtype when it is not dtype (under autocast the incoming gradient may be
  /// fp32 for 16-bit x, or 16-bit for fp32 x); unset: dtype.
  std::optional<DType> dy_dtype = std::nullopt;
  /// Add + norm ops: the residual stream's dtype (residual and residual_out) when it is not
  /// dtype: fp32 with fp16 / bf16 x, the stream kept in fp32 across layers; unset: dtype.
  std::optional<DType> residual_dtype = std::nullopt;
};

/// The dtype of @p shape's dy: Shape::dy_dtype, else its dtype.
DType dy_dtype_of(const Shape& shape);
/// The dtype of @p shape's residual and residual_out: Shape::residual_dtype, else its dtype.
DType residual_dtype_of(const Shape& shape);

/// The fewest bytes @p op must move through device memory on @p shape: every input read
/// once, every output written once (activations M*N, parameters N, statistics M floats).
double bytes_moved(Op op, const Shape& shape);

}  // namespace normlab
