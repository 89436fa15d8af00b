// SPDX-License-Identifier: Apache-2.0
// The dispatcher's checks of a NormCall, each refusing by the argument's name before anything
// is planned or launched.
#include <cmath>
#include <cstdint>
#include <string>

#include "call_tensors.hpp"
#include "dispatcher.hpp"
#include "normlab/arguments.hpp"
#include "normlab/check.hpp"

namespace normlab::dispatch {

namespace {

constexpr const char* kFunction = "normlab::plan";

bool is_norm(Op op) {
  switch (op) {
    case Op::rmsnorm:
    case Op::layernorm:
    case Op::add_rmsnorm:
    case Op::add_layernorm:
    case Op::rmsnorm_backward:
    case Op::layernorm_backward:
      return true;
    case Op::copy:
      break;
  }
  return false;
}

bool is_dtype(DType dtype) {
  return dtype == DType::f32 || dtype == DType::f16 || dtype == DType::bf16;
}

void validate_types(const NormCall& call) {
  check_argument(is_norm(call.op), kFunction, "op",
                 "must be rmsnorm, layernorm, add_rmsnorm, add_layernorm, rmsnorm_backward or "
                 "layernorm_backward");
  check_argument(is_dtype(call.dtype), kFunction, "dtype", "must be fp32, fp16 or bf16");
  // Parameters as wide as the activations or wider, or any with fp32 activations.
  check_argument(
      is_dtype(call.weight_dtype) && (call.weight_dtype == call.dtype ||
                                      call.weight_dtype == DType::f32 || call.dtype == DType::f32),
      kFunction, "weight_dtype", [&] {
        return std::string("must be the activations' dtype (") + name_of(call.dtype) + ") or fp32";
      });
  check_argument(!is_backward(call.op) || !call.dy_dtype || is_dtype(*call.dy_dtype), kFunction,
                 "dy_dtype", "must be fp32, fp16 or bf16");
  // The residual stream in x's dtype, or in fp32 across layers with 16-bit x.
  check_argument(!is_add(call.op) || !call.residual_dtype || *call.residual_dtype == call.dtype ||
                     *call.residual_dtype == DType::f32,
                 kFunction, "residual_dtype", [&] {
                   return std::string("must be the activations' dtype (") + name_of(call.dtype) +
                          ") or fp32";
                 });
}

// A tensor the call gives: non-null where it must hold something, rows no closer than cols,
// aligned to its element.
void validate_tensor_of(const TensorSpec& spec, const NormCall& call) {
  const char* name = name_of(spec.tensor);
  const TensorField b = field_of(call, spec.tensor);
  switch (spec.extent) {
    case Extent::matrix:
      validate_tensor(kFunction, name, b.data, call.rows, call.cols, b.stride);
      break;
    case Extent::row_vector:
      // Only a gradient can be missing here: a weight or bias the call has is given.
      check_argument(b.data != nullptr, kFunction, name,
                     spec.presence == Presence::bias ? "is null but the call has a bias"
                                                     : "is null but the call has a weight");
      break;
    case Extent::per_row:
      check_argument(call.rows == 0 || b.data != nullptr, kFunction, name,
                     [&] { return "is null but rows = " + std::to_string(call.rows); });
      break;
  }
  const std::int64_t element = element_bytes(spec, call);
  check_argument(reinterpret_cast<std::uintptr_t>(b.data) % element == 0, kFunction, name, [&] {
    return "must be aligned to its " + std::to_string(element) + "-byte elements";
  });
}

}  // namespace

void validate_eps(float eps) {
  check_argument(std::isfinite(eps) && eps >= 0.0f, kFunction, "eps",
                 [&] { return "must be >= 0 and finite (got " + std::to_string(eps) + ")"; });
}

void validate(const NormCall& call) {
  validate_types(call);
  validate_shape(kFunction, call.rows, call.cols);
  validate_eps(call.eps);
  check_argument(!call.weight_plus_one || call.weight != nullptr, kFunction, "weight_plus_one",
                 "scales by (1 + w) and needs a weight");
  validate_row_groups(kFunction, "x", call.rows, call.cols, call.x_stride, call.x_group_rows,
                      call.x_group_stride);
  const bool two_level = call.x_group_rows > 1;
  check_argument(!two_level || !is_add(call.op), kFunction, "x_group_rows",
                 "must be 0 or 1 for add + norm, which reads x one stride a row (two-level rows "
                 "are the norms' and their backward's)");
  for (const TensorSpec& spec : tensors_of(call.op)) {
    if (!given(spec, call)) continue;
    validate_tensor_of(spec, call);
    if (!spec.in_place_over) continue;
    const TensorField input = field_of(call, *spec.in_place_over);
    const TensorField output = field_of(call, spec.tensor);
    if (output.data != nullptr && output.data == input.data) {  // in place: strides must agree
      check_argument(!two_level || *spec.in_place_over != Tensor::x, kFunction,
                     name_of(spec.tensor), "may not lie over x when x's rows are in groups");
      const std::string stride_name = std::string(name_of(spec.tensor)) + "_stride";
      validate_in_place(kFunction, input.data, input.stride, output.data, output.stride,
                        stride_name.c_str());
    }
  }
}

}  // namespace normlab::dispatch
