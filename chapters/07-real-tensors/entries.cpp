// Chapter 07's registry entries: one per op, all through ch07::forward, which maps a call's
// op and dtypes to the typed launchers of ch07.cuh.
#include <string>
#include <vector>

#include "ch07.cuh"
#include "forward.hpp"
#include "normlab/check.hpp"
#include "normlab/kernel.hpp"

namespace normlab::ch07 {

namespace {

template <typename T, typename P>
Tensors<T, P> tensors_of(const NormCall& call) {
  return {.x = static_cast<const T*>(call.x),
          .x_stride = call.x_stride,
          .residual = static_cast<const T*>(call.residual),
          .residual_stride = call.residual_stride,
          .y = static_cast<T*>(call.y),
          .y_stride = call.y_stride,
          .residual_out = static_cast<T*>(call.residual_out),
          .residual_out_stride = call.residual_out_stride,
          .weight = static_cast<const P*>(call.weight),
          .bias = static_cast<const P*>(call.bias),
          .weight_plus_one = call.weight_plus_one,
          .mean = call.mean,
          .rstd = call.rstd,
          .rows = call.rows,
          .cols = call.cols,
          .eps = call.eps};
}

template <typename T, typename P>
void run_op(const NormCall& call, cudaStream_t stream) {
  const Tensors<T, P> t = tensors_of<T, P>(call);
  switch (call.op) {
    case Op::rmsnorm:
      return rmsnorm(t, stream);
    case Op::layernorm:
      return layernorm(t, stream);
    case Op::add_rmsnorm:
      return add_rmsnorm(t, stream);
    case Op::add_layernorm:
      return add_layernorm(t, stream);
    default:
      return;
  }
}

}  // namespace

void forward(const NormCall& call, cudaStream_t stream) {
  const char* fn = "ch07::forward";
  check_argument(call.op == Op::rmsnorm || call.op == Op::layernorm || is_add(call.op), fn, "op",
                 std::string("must be rmsnorm, layernorm, add_rmsnorm or add_layernorm (got ") +
                     name_of(call.op) + ")");
  check_argument(call.weight_dtype == call.dtype || call.weight_dtype == DType::f32, fn,
                 "weight_dtype",
                 std::string("must be the input dtype or fp32 (got ") + name_of(call.weight_dtype) +
                     " with " + name_of(call.dtype) + " inputs)");
  const bool fp32_parameters = call.weight_dtype == DType::f32;
  switch (call.dtype) {
    case DType::f32:
      return run_op<float, float>(call, stream);
    case DType::f16:
      return fp32_parameters ? run_op<__half, float>(call, stream)
                             : run_op<__half, __half>(call, stream);
    case DType::bf16:
      return fp32_parameters ? run_op<__nv_bfloat16, float>(call, stream)
                             : run_op<__nv_bfloat16, __nv_bfloat16>(call, stream);
  }
}

std::vector<KernelEntry> entries() {
  // Every op: fp32, fp16 and bf16 tensors with parameters in their dtype or fp32; weight and
  // bias optional; (1 + w) (normalise_and_store adds the offset when a weight is given); any
  // strides and element alignment (chunks follow memory's 16-byte grid, alignment 0); any width
  // (rows too wide for registers are streamed) and any number of rows (blocks loop over rows);
  // mean and rstd written. In place (y over x, or residual_out over residual): no pointer is
  // __restrict__; in the register kernels every load of a row comes before the block's
  // reductions and every store after them; in the streaming kernel every pass hands chunk c to
  // the same thread, which reads it (from x, or from the stored h) before it overwrites it.
  std::vector<KernelEntry> entries;
  const struct {
    Op op;
    const char* name;
    const char* summary;
  } ops[] = {
      {Op::rmsnorm, "ch07_rmsnorm", "any dtype, stride, alignment; fp32 statistics"},
      {Op::layernorm, "ch07_layernorm", "any dtype, stride, alignment; fp32 statistics"},
      {Op::add_rmsnorm, "ch07_add_rmsnorm", "h = x + r rounded, then RMSNorm; any tensor"},
      {Op::add_layernorm, "ch07_add_layernorm", "h = x + r rounded, then LayerNorm; any tensor"},
  };
  for (const auto& op : ops) {
    entries.push_back({.name = op.name,
                       .chapter = 7,
                       .summary = op.summary,
                       .op = op.op,
                       .can = {.dtypes = {DType::f32, DType::f16, DType::bf16},
                               .fp32_parameters = true,
                               .optional_parameters = true,
                               .weight_plus_one = true,
                               .in_place = true,
                               .writes_statistics = true},
                       .launch = forward,
                       .default_for_op = true});
  }
  return entries;
}

}  // namespace normlab::ch07
