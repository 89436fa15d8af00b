// SPDX-License-Identifier: Apache-2.0
// Chapter 02 on the GPU: the block-per-row shared-memory tree RMSNorm against the float64
// reference.
#include "normlab_catch.hpp"

#include "ch02.cuh"
#include "ladder_cases.hpp"

TEST_CASE("ch02: the grading grid, eps-sized rows and 16-byte-padded tails", "[ch02]") {
  const auto& kernel = ladder::registered("ch02_rmsnorm_block_tree");
  ladder::require_all_pass(kernel, ladder::grid_and_edges(kernel));
}

TEST_CASE("ch02: heavy tails, guard bands, misaligned bases, no rows", "[ch02]") {
  const auto& kernel = ladder::registered("ch02_rmsnorm_block_tree");
  ladder::require_all_pass(kernel, ladder::heavy_tailed_cases());
  ladder::require_all_pass(kernel, ladder::padded_cases());
  ladder::require_all_pass(kernel, ladder::misaligned_cases());
  ladder::require_empty_ok(kernel);
}

TEST_CASE("ch02: the launcher refuses bad arguments by name", "[ch02]") {
  ladder::require_argument_errors(&normlab::ch02::rmsnorm_block_tree);
}

TEST_CASE("ch02: every block size is correct; other sizes are refused by name", "[ch02]") {
  ladder::require_every_block_size(&normlab::ch02::kernel_with_threads,
                                   &normlab::ch02::rmsnorm_block_tree);
}
