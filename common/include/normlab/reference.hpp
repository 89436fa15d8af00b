// SPDX-License-Identifier: Apache-2.0
/// @file reference.hpp
/// @brief Float64 CPU references for every op normlab teaches. Dense row-major inputs.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace normlab {

/// Shape and parameters shared by the references. Empty spans mean "absent".
struct ReferenceParams {
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  double eps = 1e-5;
  std::span<const double> weight;  ///< cols values, or empty for no weight
  std::span<const double> bias;    ///< cols values, or empty for no bias
  bool weight_plus_one = false;    ///< scale by (1 + w) instead of w (Gemma-style RMSNorm)
};

/// Outputs of a forward reference. mean is empty for RMSNorm; residual only for add + norm.
struct ReferenceForward {
  std::vector<double> y;         ///< rows x cols
  std::vector<double> residual;  ///< h = x + r, rows x cols (add + norm only)
  std::vector<double> mean;      ///< per row (LayerNorm)
  std::vector<double> rstd;      ///< per row: 1 / sqrt(mean square or variance + eps)
};

/// Gradients from a backward reference.
struct ReferenceBackward {
  std::vector<double> dx;       ///< rows x cols
  std::vector<double> dweight;  ///< cols (empty without weight)
  std::vector<double> dbias;    ///< cols (LayerNorm with bias)
};

/// y = x / sqrt(mean(x^2) + eps) * w
ReferenceForward rmsnorm_forward(std::span<const double> x, const ReferenceParams& params);
/// y = (x - mean) / sqrt(var + eps) * w + b, with the population variance.
ReferenceForward layernorm_forward(std::span<const double> x, const ReferenceParams& params);
/// h = x + r; y = rmsnorm(h). @p residual_rounding rounds h before it is normalised (the
/// value a kernel stores); pass nullptr to keep h exact.
ReferenceForward add_rmsnorm_forward(std::span<const double> x, std::span<const double> r,
                                     const ReferenceParams& params,
                                     double (*residual_rounding)(double) = nullptr);
/// h = x + r; y = layernorm(h), as add_rmsnorm_forward.
ReferenceForward add_layernorm_forward(std::span<const double> x, std::span<const double> r,
                                       const ReferenceParams& params,
                                       double (*residual_rounding)(double) = nullptr);
/// Gradients of rmsnorm_forward given dy.
ReferenceBackward rmsnorm_backward(std::span<const double> dy, std::span<const double> x,
                                   const ReferenceParams& params);
/// Gradients of layernorm_forward given dy.
ReferenceBackward layernorm_backward(std::span<const double> dy, std::span<const double> x,
                                     const ReferenceParams& params);

}  // namespace normlab
