// SPDX-License-Identifier: Apache-2.0
// Chapter 06's registry entries.
#include <vector>

#include "ch06.cuh"
#include "normlab/arguments.hpp"
#include "normlab/kernel.hpp"

namespace normlab::ch06 {

namespace {

// Every kernel here: fp32; weight (and bias) optional; no (1 + w) (chapter 07 adds it); any
// strides; alignment 0 because the launcher falls back to 4-byte accesses itself; rows of at
// most kMaxCols (held in registers), one block per row; rstd (and mean) written. In place, meaning
// residual_out over residual with the same stride: none of the pointers is __restrict__ and each
// element of r is loaded by the thread that later stores h over it, before it does so.
Capabilities add_norm_capabilities() {
  return {.optional_parameters = true,
          .in_place = true,
          .max_cols = kMaxCols,
          .max_rows = kMaxRowsOneBlockPerRow,
          .writes_statistics = true};
}

using AddRmsNormLauncher = void (*)(const float*, std::int64_t, const float*, std::int64_t, float*,
                                    std::int64_t, const float*, float*, std::int64_t, float*,
                                    std::int64_t, std::int64_t, float, cudaStream_t);

KernelEntry add_rmsnorm_entry(const char* name, const char* summary, AddRmsNormLauncher launcher) {
  return {.name = name,
          .chapter = 6,
          .summary = summary,
          .op = Op::add_rmsnorm,
          .can = add_norm_capabilities(),
          .launch = [name, launcher](const NormCall& c, cudaStream_t s) {
            validate_no_weight_plus_one(name, c.weight_plus_one);
            launcher(static_cast<const float*>(c.x), c.x_stride,
                     static_cast<const float*>(c.residual), c.residual_stride,
                     static_cast<float*>(c.residual_out), c.residual_out_stride,
                     static_cast<const float*>(c.weight), static_cast<float*>(c.y), c.y_stride,
                     c.rstd, c.rows, c.cols, c.eps, s);
          }};
}

}  // namespace

std::vector<KernelEntry> entries() {
  std::vector<KernelEntry> entries;
  // Fused: every load of the row comes before the block's barrier, every store after it.
  entries.push_back(add_rmsnorm_entry(
      "ch06_add_rmsnorm_fused", "h = x + r and RMSNorm in one pass, h written once", &add_rmsnorm));
  // Unfused: the add kernel's threads load their x and r before storing h over r; the norm
  // kernel, ordered after it on the stream, reads only h.
  entries.push_back(add_rmsnorm_entry("ch06_add_then_rmsnorm_unfused",
                                      "add kernel, then RMSNorm kernel reading h back",
                                      &add_then_rmsnorm));
  // Fused LayerNorm: the pivot x[0] + r[0] is read by every thread before the barrier, and h
  // is stored only after it.
  entries.push_back({.name = "ch06_add_layernorm_fused",
                     .chapter = 6,
                     .summary = "h = x + r and Welford LayerNorm in one pass, h written once",
                     .op = Op::add_layernorm,
                     .can = add_norm_capabilities(),
                     .launch = [](const NormCall& c, cudaStream_t s) {
                       validate_no_weight_plus_one("ch06_add_layernorm_fused", c.weight_plus_one);
                       add_layernorm(static_cast<const float*>(c.x), c.x_stride,
                                     static_cast<const float*>(c.residual), c.residual_stride,
                                     static_cast<float*>(c.residual_out), c.residual_out_stride,
                                     static_cast<const float*>(c.weight),
                                     static_cast<const float*>(c.bias), static_cast<float*>(c.y),
                                     c.y_stride, c.mean, c.rstd, c.rows, c.cols, c.eps, s);
                     }});
  return entries;
}

}  // namespace normlab::ch06
