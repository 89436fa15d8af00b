// SPDX-License-Identifier: Apache-2.0
// Chapter 04's registry entries.
#include <vector>

#include "ch04.cuh"
#include "normlab/arguments.hpp"
#include "normlab/kernel.hpp"

namespace normlab::ch04 {

std::vector<KernelEntry> entries() {
  // Both: fp32, a weight, any stride, one block per row; alignment 0 because the launcher checks it
  // and falls back to 4-byte accesses itself; any width (rmsnorm_fused reads rows past
  // kMaxRegisterCols twice). Not in place: x and y are __restrict__, a promise to the compiler that
  // they do not overlap.
  std::vector<KernelEntry> entries;
  entries.push_back({.name = "ch04_rmsnorm_fused_float4",
                     .chapter = 4,
                     .summary = "row in registers, x read once, float4 accesses",
                     .op = Op::rmsnorm,
                     .can = {.max_rows = kMaxRowsOneBlockPerRow},
                     .launch = [](const NormCall& c, cudaStream_t s) {
                       validate_no_weight_plus_one("ch04_rmsnorm_fused_float4", c.weight_plus_one);
                       rmsnorm_fused(static_cast<const float*>(c.x), c.x_stride,
                                     static_cast<const float*>(c.weight), static_cast<float*>(c.y),
                                     c.y_stride, c.rows, c.cols, c.eps, s);
                     }});
  entries.push_back(
      {.name = "ch04_rmsnorm_two_reads_float4",
       .chapter = 4,
       .summary = "float4 accesses, x read twice (the wide-row fallback)",
       .op = Op::rmsnorm,
       .can = {.max_rows = kMaxRowsOneBlockPerRow},
       .launch = [](const NormCall& c, cudaStream_t s) {
         validate_no_weight_plus_one("ch04_rmsnorm_two_reads_float4", c.weight_plus_one);
         rmsnorm_two_reads(static_cast<const float*>(c.x), c.x_stride,
                           static_cast<const float*>(c.weight), static_cast<float*>(c.y),
                           c.y_stride, c.rows, c.cols, c.eps, s);
       }});
  return entries;
}

}  // namespace normlab::ch04
