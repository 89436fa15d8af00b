// SPDX-License-Identifier: Apache-2.0
// Chapter 03's registry entry, and the block-size sweep's entries.
#include <string>
#include <vector>

#include "ch03.cuh"
#include "normlab/arguments.hpp"
#include "normlab/kernel.hpp"

namespace normlab::ch03 {

// Both: fp32, a weight, any stride and element alignment, one block per row. Not in place: x and y
// are
// __restrict__.
KernelEntry kernel_with_threads(int threads) {
  validate_block_size("ch03::kernel_with_threads", threads);
  return {.name = "ch03_rmsnorm_warp_shuffle@" + std::to_string(threads),
          .chapter = 3,
          .summary = "block per row, warp-shuffle reduction, fixed block size",
          .op = Op::rmsnorm,
          .can = {.max_rows = kMaxRowsOneBlockPerRow},
          .launch = [threads](const NormCall& c, cudaStream_t s) {
            validate_no_weight_plus_one("ch03_rmsnorm_warp_shuffle", c.weight_plus_one);
            rmsnorm_warp_shuffle(static_cast<const float*>(c.x), c.x_stride,
                                 static_cast<const float*>(c.weight), static_cast<float*>(c.y),
                                 c.y_stride, c.rows, c.cols, c.eps, threads, s);
          }};
}

std::vector<KernelEntry> entries() {
  return {{.name = "ch03_rmsnorm_warp_shuffle",
           .chapter = 3,
           .summary = "block per row sized to the row, warp-shuffle reduction",
           .op = Op::rmsnorm,
           .can = {.max_rows = kMaxRowsOneBlockPerRow},
           .launch = [](const NormCall& c, cudaStream_t s) {
             validate_no_weight_plus_one("ch03_rmsnorm_warp_shuffle", c.weight_plus_one);
             rmsnorm_warp_shuffle(static_cast<const float*>(c.x), c.x_stride,
                                  static_cast<const float*>(c.weight), static_cast<float*>(c.y),
                                  c.y_stride, c.rows, c.cols, c.eps, s);
           }}};
}

}  // namespace normlab::ch03
