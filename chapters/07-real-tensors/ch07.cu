// Chapter 07: real tensors.
//
// Chapters 04 to 06 normalised neat fp32 blocks: 16-byte aligned rows, a width that splits
// into whole float4s, one stride for everything. Models hand a norm bf16 or fp16 activations
// with fp32 weights, rows of 5000 elements, views with their own row strides, slices whose
// base is not 16-byte aligned, tensors of more than 2^31 elements, and ask for the result in
// place. This chapter keeps the fast path (16-byte vectors, the row in registers, statistics
// in fp32) and makes each of those cases correct:
//   - a vector is always 16 bytes, 4 floats or 8 halves, converted to fp32 as it is loaded;
//   - a row is cut into chunks on the 16-byte boundaries of memory, not of the row, so a
//     misaligned row starts with a partial chunk moved element by element and the rest moves
//     as whole vectors; a tensor whose row is misaligned unlike x's moves element by element;
//   - every offset is int64;
//   - every load of a row happens before the block's reduction and every store after it, so
//     y may be x and the new residual may overwrite the old one.
#include "ch07.cuh"

#include <string>

#include "dispatch.cuh"
#include "normlab/arguments.hpp"
#include "normlab/check.hpp"
#include "normlab/kernel.hpp"

namespace normlab::ch07 {

// [validate]
void forward(const NormCall& call, cudaStream_t stream) {
  const char* fn = "ch07::forward";
  check_argument(call.op == Op::rmsnorm || call.op == Op::layernorm || is_add(call.op), fn, "op",
                 std::string("must be rmsnorm, layernorm, add_rmsnorm or add_layernorm (got ") +
                     name_of(call.op) + ")");
  check_argument(call.weight_dtype == call.dtype || call.weight_dtype == DType::f32, fn,
                 "weight_dtype",
                 std::string("must be the input dtype or fp32 (got ") + name_of(call.weight_dtype) +
                     " with " + name_of(call.dtype) + " inputs)");
  validate_shape(fn, call.rows, call.cols);
  validate_eps(fn, call.eps);
  const auto element = static_cast<std::int64_t>(size_of(call.dtype));
  const auto parameter = static_cast<std::int64_t>(size_of(call.weight_dtype));
  auto tensor = [&](const char* name, const void* data, std::int64_t stride) {
    validate_tensor(fn, name, data, call.rows, call.cols, stride);
    validate_alignment(fn, name, data, stride, element, element);
  };
  tensor("x", call.x, call.x_stride);
  tensor("y", call.y, call.y_stride);
  if (is_add(call.op)) {
    tensor("residual", call.residual, call.residual_stride);
    tensor("residual_out", call.residual_out, call.residual_out_stride);
  }
  validate_alignment(fn, "weight", call.weight, 0, parameter, parameter);
  validate_alignment(fn, "bias", call.bias, 0, parameter, parameter);
  if (call.rows == 0) return;

  NormCall used = call;
  if (!is_add(call.op)) used.residual = used.residual_out = nullptr;
  if (call.op == Op::rmsnorm || call.op == Op::add_rmsnorm) used.bias = nullptr;
  switch (call.op) {
    case Op::rmsnorm:
      return launch_for_dtypes<false, false>(used, stream);
    case Op::layernorm:
      return launch_for_dtypes<true, false>(used, stream);
    case Op::add_rmsnorm:
      return launch_for_dtypes<false, true>(used, stream);
    case Op::add_layernorm:
      return launch_for_dtypes<true, true>(used, stream);
    default:
      return;
  }
}
// [validate]

}  // namespace normlab::ch07
