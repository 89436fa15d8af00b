// SPDX-License-Identifier: Apache-2.0
/// @file validate_tensors.hpp
/// @brief The argument checks of every launcher that takes the general launcher's Tensors:
/// nothing is launched when one fails.
#pragma once

#include "general.cuh"
#include "normlab/arguments.hpp"
#include "normlab/check.hpp"

namespace normlab::kernels {

// [validate]
// The checks of every launcher, before anything is launched: a shape, eps, and each tensor
// the op reads or writes non-null (when rows > 0), with a stride of at least cols and aligned
// to its element (x's rows in groups only for the norms, and then not under y); the parameters
// aligned to theirs.
template <typename T, typename P, typename R>
inline void validate(const char* fn, const Tensors<T, P, R>& t, bool add) {
  validate_shape(fn, t.rows, t.cols);
  validate_eps(fn, t.eps);
  auto tensor = [&](const char* name, const void* data, std::int64_t stride, std::size_t element) {
    validate_tensor(fn, name, data, t.rows, t.cols, stride);
    validate_alignment(fn, name, data, stride, element, element);
  };
  tensor("x", t.x, t.x_stride, sizeof(T));
  validate_row_groups(fn, "x", t.rows, t.cols, t.x_stride, t.x_group_rows, t.x_group_stride);
  tensor("y", t.y, t.y_stride, sizeof(T));
  if (t.x_group_rows > 1) {
    check_argument(!add, fn, "x_group_rows",
                   "must be 0 or 1 for add + norm, which reads x one stride a row (two-level rows "
                   "are the norms')");
    check_argument(t.y != t.x, fn, "y", "may not lie over x when x's rows are in groups");
  }
  if (add) {
    tensor("residual", t.residual, t.residual_stride, sizeof(R));
    tensor("residual_out", t.residual_out, t.residual_out_stride, sizeof(R));
  }
  validate_alignment(fn, "weight", t.weight, 0, sizeof(P), sizeof(P));
  validate_alignment(fn, "bias", t.bias, 0, sizeof(P), sizeof(P));
}
// [validate]

// The launchers of the families that do not take RMSNorm with a bias (their entries declare none:
// Capabilities::rmsnorm_bias) refuse one by name rather than drop it.
template <typename T, typename P>
inline void refuse_rmsnorm_bias(const char* fn, const Tensors<T, P>& t, bool centre) {
  check_argument(centre || t.bias == nullptr, fn, "bias",
                 "RMSNorm with a bias runs in the general launcher (kernels::rmsnorm), not here");
}

}  // namespace normlab::kernels
