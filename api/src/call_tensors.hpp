// SPDX-License-Identifier: Apache-2.0
/// @file call_tensors.hpp
/// @brief A NormCall read through its op's table of tensors (op_tensors.hpp): whether the call
/// gives a tensor, and its element size.
#pragma once

#include <cstdint>

#include "normlab/kernel.hpp"
#include "normlab/op_tensors.hpp"

namespace normlab::dispatch {

/// Whether @p call has the tensor of @p spec: always for a required one; the weight and its
/// gradient when the call gives a weight; the others (bias, dbias, statistics, dresidual) when
/// non-null.
bool given(const TensorSpec& spec, const NormCall& call);

/// Bytes per element of the tensor of @p spec in @p call.
std::int64_t element_bytes(const TensorSpec& spec, const NormCall& call);

}  // namespace normlab::dispatch
