// SPDX-License-Identifier: Apache-2.0
// Chapter 09's registry entries: the dispatcher for each op, through the configured launcher
// (kernels/configured.cuh). The entries a configuration are the library's
// (kernels/configured_entries.hpp).
#include <string>
#include <vector>

#include "configured_entries.hpp"
#include "normlab/kernel.hpp"
#include "typed_call.hpp"

namespace normlab::ch09 {

std::vector<KernelEntry> entries() {
  // Chapter 07's capabilities: every kernel of the table takes what chapter 07's take (its tensor
  // I/O and arithmetic are chapter 07's), and rows wider than the table go to chapter 07.
  // In place: the narrow kernel, like chapter 07's, loads every chunk of a row into registers
  // before its group's reductions and stores after them, and a row belongs to one group; the
  // block kernels are chapter 07's row; the wide rows are chapter 07's launcher.
  std::vector<KernelEntry> entries;
  for (Op op : {Op::rmsnorm, Op::layernorm, Op::add_rmsnorm, Op::add_layernorm}) {
    entries.push_back({.name = std::string("ch09_") + name_of(op),
                       .chapter = 9,
                       .summary = "the dispatcher: a kernel per rows, width, dtype, alignment",
                       .op = op,
                       .can = kernels::every_tensor(),
                       .launch = [](const NormCall& call, cudaStream_t stream) {
                         kernels::configured::forward(call, stream);
                       }});
  }
  return entries;
}

}  // namespace normlab::ch09
