// SPDX-License-Identifier: Apache-2.0
// Chapter 05's registry entries.
#include <vector>

#include "ch05.cuh"
#include "normlab/arguments.hpp"
#include "normlab/kernel.hpp"

namespace normlab::ch05 {

namespace {

using LayerNormLauncher = void (*)(const float*, std::int64_t, const float*, const float*, float*,
                                   std::int64_t, float*, float*, std::int64_t, std::int64_t, float,
                                   cudaStream_t);

// Both kernels: fp32; weight and bias optional; no (1 + w) (chapter 07 adds it); any stride;
// alignment 0 because the launcher falls back to 4-byte accesses itself; rows of at most
// kMaxCols (held in registers), one block per row; mean and rstd written. In place (y over x, same
// stride): x and y are not __restrict__, every thread loads its whole slice of the row (and the
// Welford kernel its pivot x[0]) before the block's barrier and stores only after it, and nothing
// reads an element of y once it is written.
KernelEntry layernorm_entry(const char* name, const char* summary, LayerNormLauncher launcher) {
  return {.name = name,
          .chapter = 5,
          .summary = summary,
          .op = Op::layernorm,
          .can = {.optional_parameters = true,
                  .in_place = true,
                  .max_cols = kMaxCols,
                  .max_rows = kMaxRowsOneBlockPerRow,
                  .writes_statistics = true},
          .launch = [name, launcher](const NormCall& c, cudaStream_t s) {
            validate_no_weight_plus_one(name, c.weight_plus_one);
            launcher(static_cast<const float*>(c.x), c.x_stride,
                     static_cast<const float*>(c.weight), static_cast<const float*>(c.bias),
                     static_cast<float*>(c.y), c.y_stride, c.mean, c.rstd, c.rows, c.cols, c.eps,
                     s);
          }};
}

}  // namespace

std::vector<KernelEntry> entries() {
  return {
      layernorm_entry("ch05_layernorm_sum_of_squares",
                      "one pass, var = E[x^2] - E[x]^2: cancels on shifted rows",
                      &layernorm_sum_of_squares),
      layernorm_entry("ch05_layernorm_welford",
                      "one pass, Welford moments around a pivot, Chan merges", &layernorm_welford)};
}

}  // namespace normlab::ch05
