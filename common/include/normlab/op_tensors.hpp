// SPDX-License-Identifier: Apache-2.0
/// @file op_tensors.hpp
/// @brief Each op described once, by the table of its tensors, and the host side of a case
/// that walks it: inputs made, the float64 reference computed and compared block by block on
/// every core. The Workspace (runner.hpp) adds the device side.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "normlab/compare.hpp"
#include "normlab/host_matrix.hpp"
#include "normlab/kernel.hpp"
#include "normlab/ops.hpp"

namespace normlab {

struct Case;  // runner.hpp

/// Every tensor any op has; each is one field (and its stride) of NormCall.
enum class Tensor {
  x,
  residual,
  weight,
  bias,
  dy,
  dresidual,
  saved_mean,
  saved_rstd,  // inputs
  y,
  residual_out,
  mean,
  rstd,
  dx,
  dweight,
  dbias,  // results
};
inline constexpr int kTensorCount = 15;

/// What a tensor is to the call, which also says how it is checked.
enum class Role {
  input,      ///< made by the harness, read by the kernel
  output,     ///< one value per element of a row, compared as OutputKind::element
  statistic,  ///< one fp32 value per row, compared as OutputKind::row_statistic
  gradient,   ///< a parameter's gradient: a sum over rows, OutputKind::sum_over_rows
};

/// How many elements: rows x cols (an activation), cols (a parameter), rows (a statistic).
enum class Extent { matrix, row_vector, per_row };

/// Where its dtype comes from: the activations' (Shape::dtype), the parameters'
/// (Shape::weight_dtype), fp32, or dy's (dy_dtype_of: the activations' unless the call names
/// another), or the residual stream's (residual_dtype_of: the activations' unless the call
/// names another).
enum class Element { activation, parameter, fp32, incoming, stream };

/// When a case has it.
enum class Presence {
  always,
  weight,             ///< Shape::weight
  bias,               ///< Shape::bias
  statistics,         ///< Case::statistics
  residual_gradient,  ///< Case::residual_gradient
};

/// One row of an op's table.
struct TensorSpec {
  Tensor tensor;
  Role role;
  Extent extent;
  Element element;
  Presence presence = Presence::always;
  /// The input this result overwrites when the case is in place.
  std::optional<Tensor> in_place_over = std::nullopt;
};

/// The table of @p op's tensors, inputs first.
std::span<const TensorSpec> tensors_of(Op op);
/// "x", "residual", ..., "dbias": file names and report labels.
const char* name_of(Tensor tensor);
/// The comparison a result of @p role gets.
OutputKind output_kind(Role role);

/// Where a NormCall keeps one tensor: its address and row stride (0 for a vector or statistic).
struct TensorField {
  const void* data = nullptr;
  std::int64_t stride = 0;
};
/// The field of @p call that holds @p tensor.
TensorField field_of(const NormCall& call, Tensor tensor);
/// Puts @p data (and its row stride) where @p call keeps @p tensor.
void bind(NormCall& call, Tensor tensor, void* data, std::int64_t stride);

/// Whether @p spec is part of case @p c.
bool present(const TensorSpec& spec, const Case& c);
/// Its dtype in case @p c.
DType dtype_of(const TensorSpec& spec, const Case& c);

/// One host matrix per tensor; a tensor the case does not have stays empty (cols() == 0).
using HostTensors = std::array<HostMatrix, kTensorCount>;
HostMatrix& at(HostTensors& tensors, Tensor tensor);
const HostMatrix& at(const HostTensors& tensors, Tensor tensor);

/// The row stride of activations in case @p c (cols + pad).
std::int64_t activation_stride(const Case& c);
/// The stride of x's groups of rows in case @p c (Case::group_rows): group_rows rows and the
/// gap after them; 0 for one level.
std::int64_t group_stride(const Case& c);

/// Every input of @p c, filled on every core: activations with guard bands (poisoned) from
/// Case::input with a seed per tensor, weights near 1 (near 0 for 1 + w), and for the backward
/// ops the saved mean and rstd from the float64 forward reference, rounded to fp32.
HostTensors make_inputs(const Case& c);

/// Poisoned host matrices shaped like every result of @p c (what a kernel's results are
/// downloaded into).
HostTensors make_results(const Case& c);

/// Compares every result of @p c in @p results with the float64 reference of @p inputs,
/// streamed by blocks of rows on every core: never a dense float64 copy of a whole tensor.
/// A result written over its input (in place) is not checked for unwritten elements. A
/// gradient is a sum over rows: with rows = 0 it is 0, which a kernel still has to write.
std::vector<CompareReport> compare_results(const Case& c, const HostTensors& inputs,
                                           const HostTensors& results);

}  // namespace normlab
