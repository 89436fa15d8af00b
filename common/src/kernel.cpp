// SPDX-License-Identifier: Apache-2.0
#include "normlab/kernel.hpp"

#include <string>

#include "normlab/device.hpp"

namespace normlab {

int alignment_of(std::uint64_t bytes) {
  int alignment = 1;
  while (alignment < Requirements::kMostAlignment && bytes % (2u * alignment) == 0)
    alignment *= 2;
  return alignment;
}

std::string KernelEntry::refusal(const Requirements& needs) const {
  const Shape& s = needs.shape;
  if (op != needs.op) return std::string("runs ") + name_of(op) + ", not " + name_of(needs.op);
  if (can.min_compute_capability > 0) {
    // The current GPU's, when the call names none and there is one: without a GPU nothing runs,
    // and the architecture decides nothing.
    int gpu = needs.compute_capability;
    if (gpu == 0 && gpu_unavailable_reason().empty()) gpu = compute_capability();
    if (gpu > 0 && gpu < can.min_compute_capability)
      return "needs sm_" + std::to_string(can.min_compute_capability) +
             " or newer, this GPU is sm_" + std::to_string(gpu);
  }
  bool dtype_ok = false;
  for (DType d : can.dtypes)
    dtype_ok = dtype_ok || d == s.dtype;
  if (!dtype_ok) return std::string("no ") + name_of(s.dtype) + " tensors";
  if (op != Op::copy) {
    const bool fp32_parameters = s.weight_dtype == DType::f32 && can.fp32_parameters;
    const bool narrow_parameters = s.dtype == DType::f32 && can.narrow_parameters;
    if (s.weight_dtype != s.dtype && !fp32_parameters && !narrow_parameters)
      return std::string("no ") + name_of(s.weight_dtype) + " parameters with " + name_of(s.dtype) +
             " tensors";
    if (!can.optional_parameters && (!s.weight || (takes_bias(op) && !s.bias)))
      return "needs a weight" + std::string(takes_bias(op) ? " and a bias" : "");
  }
  if (s.bias && !may_take_bias(op)) return std::string(name_of(op)) + " has no bias";
  if (s.bias && !takes_bias(op) && !can.rmsnorm_bias)
    return std::string("no bias with ") + name_of(op);
  const DType dy = dy_dtype_of(s);
  if (is_backward(op) && dy != s.dtype) {
    if (!can.other_dy_dtype)
      return std::string("no ") + name_of(dy) + " dy with " + name_of(s.dtype) + " x";
    if (needs.in_place) return "dx over dy only when dy is in x's dtype";
  }
  const DType stream = residual_dtype_of(s);
  if (stream != s.dtype) {
    if (!is_add(op)) return std::string(name_of(op)) + " has no residual";
    if (stream != DType::f32 || !can.fp32_residual)
      return std::string("no ") + name_of(stream) + " residual with " + name_of(s.dtype) + " x";
  }
  if (can.max_cols != 0 && s.cols > can.max_cols)
    return "rows wider than " + std::to_string(can.max_cols);
  const std::int64_t row_bytes = s.cols * static_cast<std::int64_t>(size_of(s.dtype));
  // A backward call whose dy is in another dtype runs its row widened to fp32: both limits below
  // count the row as fp32 then, and say so.
  const auto fp32_bytes = static_cast<std::int64_t>(size_of(DType::f32));
  const bool widened = is_backward(op) && dy != s.dtype;
  const std::int64_t held_bytes = widened ? s.cols * fp32_bytes : row_bytes;
  const auto too_wide = [&](std::int64_t limit, const char* where) {
    if (!widened)
      return std::string("rows ") + where + "wider than " + std::to_string(limit) + " bytes";
    return std::string("dy_dtype ") + name_of(dy) + " with " + name_of(s.dtype) +
           " x runs the row widened to fp32: rows " + where + "wider than " +
           std::to_string(limit / fp32_bytes) + " columns (" + std::to_string(limit) + " bytes)";
  };
  if (can.max_row_bytes != 0 && held_bytes > can.max_row_bytes)
    return too_wide(can.max_row_bytes, "");
  const bool off_grid =
      needs.base_alignment % 16 != 0 || needs.pitch_alignment % 16 != 0 || row_bytes % 16 != 0;
  if (can.max_off_grid_row_bytes != 0 && off_grid && held_bytes > can.max_off_grid_row_bytes)
    return too_wide(can.max_off_grid_row_bytes, "off the 16-byte grid ");
  if (can.whole_chunks_only && row_bytes % 16 != 0)
    return "needs rows of a whole number of 16-byte chunks";
  if (can.max_rows != 0 && s.rows > can.max_rows)
    return "more than " + std::to_string(can.max_rows) + " rows";
  if (needs.weight_plus_one && !can.weight_plus_one) return "no (1 + w) scaling";
  if (needs.in_place && !can.in_place) return "not in place";
  if (needs.strided && !can.strided) return "no row stride other than cols";
  if (needs.two_level_rows) {
    if (is_add(op)) return "add + norm reads x one stride a row, not in groups";
    if (!can.two_level_rows) return "no two-level rows of x (x's rows in groups)";
    if (needs.in_place && !is_backward(op)) return "y cannot lie over x whose rows are in groups";
  }
  // A kernel that takes no row stride sees one flat array: only its base must be aligned.
  if (can.alignment_bytes != 0 &&
      (needs.base_alignment % can.alignment_bytes != 0 ||
       (can.strided && needs.pitch_alignment % can.alignment_bytes != 0)))
    return "needs rows aligned to " + std::to_string(can.alignment_bytes) + " bytes";
  if (needs.statistics && is_backward(op)) return "statistics are a forward op's outputs";
  if (needs.statistics && !can.writes_statistics) return "writes no per-row statistics";
  if (needs.residual_gradient && !is_backward(op)) return "dresidual is a backward op's input";
  if (needs.residual_gradient && !can.residual_gradient) return "adds no dresidual into dx";
  if (gpu_refusal && needs.compute_capability == 0 && gpu_unavailable_reason().empty())
    return gpu_refusal(needs);
  return {};
}

}  // namespace normlab
