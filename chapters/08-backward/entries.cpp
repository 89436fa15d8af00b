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
  // Both ops, both reductions, with what every backward launcher takes
  // (kernels::backward::capabilities in typed_gradients.hpp): any strides and element alignment
  // (misaligned rows move element by element); rows up to 12288 columns for RMSNorm, 8192 for
  // LayerNorm (x, dy and the column sums live in registers; wider rows are refused by name); any
  // number of rows (blocks loop over rows), rows = 0 (zero gradients written). In place (dx over
  // dy): every thread loads its chunks of dy before the block's reduction and stores the same
  // chunks of dx after it, and no pointer is __restrict__.
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
    Capabilities can = kernels::backward::capabilities(centre);
    can.max_cols =
        centre ? kernels::backward::kMaxLayernormCols : kernels::backward::kMaxRmsnormCols;
    entries.push_back({.name = k.name,
                       .chapter = 8,
                       .summary = k.summary,
                       .op = k.op,
                       .can = can,
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
