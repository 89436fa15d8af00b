// SPDX-License-Identifier: Apache-2.0
// Chapter 02's registry entry, and the block-size sweep's entries.
#include <string>
#include <utility>
#include <vector>

#include "ch02.cuh"
#include "normlab/arguments.hpp"
#include "normlab/kernel.hpp"

namespace normlab::ch02 {

namespace {

// fp32, a weight, any stride and element alignment, one block per row. Not in place: x and y are
// __restrict__.
KernelEntry block_tree_entry(std::string name, int threads) {
  return {.name = std::move(name),
          .chapter = 2,
          .summary = "block per row, coalesced, shared-memory tree reduction",
          .op = Op::rmsnorm,
          .can = {.max_rows = kMaxRowsOneBlockPerRow},
          .launch = [threads](const NormCall& c, cudaStream_t s) {
            validate_no_weight_plus_one("ch02_rmsnorm_block_tree", c.weight_plus_one);
            rmsnorm_block_tree(static_cast<const float*>(c.x), c.x_stride,
                               static_cast<const float*>(c.weight), static_cast<float*>(c.y),
                               c.y_stride, c.rows, c.cols, c.eps, threads, s);
          }};
}

}  // namespace

KernelEntry kernel_with_threads(int threads) {
  validate_block_size("ch02::kernel_with_threads", threads);
  return block_tree_entry("ch02_rmsnorm_block_tree@" + std::to_string(threads), threads);
}

std::vector<KernelEntry> entries() {
  return {block_tree_entry("ch02_rmsnorm_block_tree", kThreads)};
}

}  // namespace normlab::ch02
