// SPDX-License-Identifier: Apache-2.0
// Chapter 01's registry entry.
#include <vector>

#include "ch01.cuh"
#include "normlab/arguments.hpp"
#include "normlab/kernel.hpp"

namespace normlab::ch01 {

std::vector<KernelEntry> entries() {
  // fp32, a weight, any stride and element alignment, rows of at most kMostCols (its serial
  // sum's rounding, ch01.cuh). Not in place: x and y are __restrict__, a promise to the
  // compiler that they do not overlap.
  return {{.name = "ch01_rmsnorm_thread_per_row",
           .chapter = 1,
           .summary = "one thread per row, serial loops (uncoalesced)",
           .op = Op::rmsnorm,
           .can = {.max_cols = kMostCols},
           .launch = [](const NormCall& c, cudaStream_t s) {
             validate_no_weight_plus_one("ch01_rmsnorm_thread_per_row", c.weight_plus_one);
             rmsnorm_thread_per_row(static_cast<const float*>(c.x), c.x_stride,
                                    static_cast<const float*>(c.weight), static_cast<float*>(c.y),
                                    c.y_stride, c.rows, c.cols, c.eps, s);
           }}};
}

}  // namespace normlab::ch01
