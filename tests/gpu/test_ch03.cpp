// SPDX-License-Identifier: Apache-2.0
// Chapter 03 on the GPU: the warp-shuffle RMSNorm against the float64 reference.
#include "normlab_catch.hpp"

#include "ch03.cuh"
#include "ladder_cases.hpp"

TEST_CASE("ch03: the grading grid, eps-sized rows and 16-byte-padded tails", "[ch03]") {
  const auto& kernel = ladder::registered("ch03_rmsnorm_warp_shuffle");
  ladder::require_all_pass(kernel, ladder::grid_and_edges(kernel));
}

TEST_CASE("ch03: heavy tails, guard bands, misaligned bases, no rows", "[ch03]") {
  const auto& kernel = ladder::registered("ch03_rmsnorm_warp_shuffle");
  ladder::require_all_pass(kernel, ladder::heavy_tailed_cases());
  ladder::require_all_pass(kernel, ladder::padded_cases());
  ladder::require_all_pass(kernel, ladder::misaligned_cases());
  ladder::require_empty_ok(kernel);
}

TEST_CASE("ch03: the launcher refuses bad arguments by name", "[ch03]") {
  ladder::require_argument_errors(&normlab::ch03::rmsnorm_warp_shuffle);
}

TEST_CASE("ch03: every block size is correct; other sizes are refused by name", "[ch03]") {
  ladder::require_every_block_size(&normlab::ch03::kernel_with_threads,
                                   &normlab::ch03::rmsnorm_warp_shuffle);
}

TEST_CASE("ch03: the block grows with the row, from 256 to 1024 threads", "[ch03]") {
  using normlab::ch03::threads_for;
  CHECK(threads_for(1) == 256);
  CHECK(threads_for(2048) == 256);
  CHECK(threads_for(4095) == 256);
  CHECK(threads_for(4096) == 512);
  CHECK(threads_for(8192) == 1024);
  CHECK(threads_for(1 << 20) == 1024);
}
