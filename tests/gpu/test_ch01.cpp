// SPDX-License-Identifier: Apache-2.0
// Chapter 01 on the GPU: the one-thread-per-row RMSNorm against the float64 reference.
#include "normlab_catch.hpp"

#include "ch01.cuh"
#include "ladder_cases.hpp"

TEST_CASE("ch01: the grading grid, eps-sized rows and 16-byte-padded tails", "[ch01]") {
  const auto& kernel = ladder::registered("ch01_rmsnorm_thread_per_row");
  ladder::require_all_pass(kernel, ladder::grid_and_edges(kernel));
}

TEST_CASE("ch01: heavy tails, guard bands, misaligned bases, no rows", "[ch01]") {
  const auto& kernel = ladder::registered("ch01_rmsnorm_thread_per_row");
  ladder::require_all_pass(kernel, ladder::heavy_tailed_cases());
  ladder::require_all_pass(kernel, ladder::padded_cases());
  ladder::require_all_pass(kernel, ladder::misaligned_cases());
  ladder::require_empty_ok(kernel);
}

TEST_CASE("ch01: the launcher refuses bad arguments by name", "[ch01]") {
  ladder::require_argument_errors(&normlab::ch01::rmsnorm_thread_per_row);
}

TEST_CASE("ch01: rows up to kMostCols pass; wider ones are refused by name", "[ch01]") {
  const auto& kernel = ladder::registered("ch01_rmsnorm_thread_per_row");
  ladder::require_all_pass(kernel, {ladder::rmsnorm_case(2, normlab::ch01::kMostCols, 262)});
  const normlab::Case wider = ladder::rmsnorm_case(2, normlab::ch01::kMostCols + 1, 263);
  CHECK_THAT(kernel.refusal(wider), Catch::Contains("rows wider than 262144"));
  CHECK_THROWS_WITH(
      normlab::ch01::rmsnorm_thread_per_row(nullptr, 1, nullptr, nullptr, 1, 1,
                                            normlab::ch01::kMostCols + 1, 1e-5f, nullptr),
      Catch::Contains("'cols'") && Catch::Contains("262144"));
}
