// SPDX-License-Identifier: Apache-2.0
// Chapter 08's registry entries: RMSNorm and LayerNorm backward, each with the atomic
// reduction of the parameter gradients (a) and the deterministic one (b, the default), all
// through the backward family's kernels::backward::run (kernels/typed_gradients.hpp).
#include <string>
#include <vector>

#include "backward.cuh"
#include "normlab/kernel.hpp"
#include "typed_gradients.hpp"

namespace normlab::ch08 {

using kernels::backward::Reduction;

std::vector<KernelEntry> entries() {
  // Both ops, both reductions: fp32, fp16 and bf16 activations with parameters (and their
  // gradients) in the activation dtype or fp32, or fp16 and bf16 with fp32 activations; dy in any
  // dtype (widened, never rounded: typed_gradients.hpp); weight and bias optional, RMSNorm's bias
  // too (dbias the column sums of dy); (1 + w); any strides
  // and element alignment (misaligned rows move element by element); rows up to 12288 columns
  // for RMSNorm, 8192 for LayerNorm (x, dy and the column sums live in registers; wider rows
  // are refused by name); any number
  // of rows (blocks loop over rows), rows = 0 (zero gradients written); dresidual added into dx.
  // In place (dx over dy): every thread loads its chunks of dy before the block's reduction and
  // stores the same chunks of dx after it, and no pointer is __restrict__.
  std::vector<KernelEntry> entries;
  const struct {
    Op op;
    Reduction reduction;
    const char* name;
    const char* summary;
  } kernels[] = {
      {Op::rmsnorm_backward, Reduction::atomic, "ch08_rmsnorm_backward_atomic",
       "block per row; dweight by atomicAdd (bits vary)"},
      {Op::rmsnorm_backward, Reduction::deterministic, "ch08_rmsnorm_backward",
       "persistent grid; partial rows summed in order"},
      {Op::layernorm_backward, Reduction::atomic, "ch08_layernorm_backward_atomic",
       "block per row; dweight, dbias by atomicAdd (bits vary)"},
      {Op::layernorm_backward, Reduction::deterministic, "ch08_layernorm_backward",
       "persistent grid; partial rows summed in order"},
  };
  for (const auto& k : kernels) {
    const Reduction reduction = k.reduction;
    const bool centre = k.op == Op::layernorm_backward;
    entries.push_back({.name = k.name,
                       .chapter = 8,
                       .summary = k.summary,
                       .op = k.op,
                       .can = {.dtypes = {DType::f32, DType::f16, DType::bf16},
                               .fp32_parameters = true,
                               .narrow_parameters = true,
                               .rmsnorm_bias = !centre,
                               .other_dy_dtype = true,
                               .optional_parameters = true,
                               .weight_plus_one = true,
                               .in_place = true,
                               .two_level_rows = true,
                               .max_cols = centre ? kernels::backward::kMaxLayernormCols
                                                  : kernels::backward::kMaxRmsnormCols,
                               .residual_gradient = true},
                       .launch =
                           [reduction](const NormCall& call, cudaStream_t stream) {
                             kernels::backward::run(call, reduction, stream);
                           },
                       .scratch_bytes =
                           [reduction, centre](const Shape& s) {
                             return kernels::backward::scratch_bytes(reduction, centre, s);
                           },
                       .default_for_op = reduction == Reduction::deterministic});
  }
  return entries;
}

}  // namespace normlab::ch08
