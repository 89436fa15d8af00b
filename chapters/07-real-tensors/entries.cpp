// SPDX-License-Identifier: Apache-2.0
// Chapter 07's registry entries: one per op, all through the general launcher's kernels::forward
// (kernels/general_forward.hpp), which maps a call's op and dtypes to its typed launchers.
#include <string>
#include <vector>

#include "general_forward.hpp"
#include "normlab/kernel.hpp"
#include "typed_call.hpp"

namespace normlab::ch07 {

std::vector<KernelEntry> entries() {
  // Every op: fp32, fp16 and bf16 tensors with parameters in their dtype or fp32, and fp32
  // tensors with fp16 or bf16 parameters; the fused adds' residual stream in fp32 with fp16 or
  // bf16 x (kernels/fp32_residual.cuh); weight and bias optional, RMSNorm's bias too; (1 + w)
  // (normalise_and_store adds the offset when a weight is given); any strides and element alignment
  // (chunks follow memory's 16-byte grid, alignment 0); any width (rows too wide for registers are
  // streamed) and any number of rows (blocks loop over rows); mean and rstd written. In place (y
  // over x, or residual_out over residual): no pointer is
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
                       .can = kernels::general_tensors(),
                       .launch = kernels::forward,
                       .default_for_op = true});
  }
  return entries;
}

}  // namespace normlab::ch07
