// SPDX-License-Identifier: Apache-2.0
// Every known-wrong ladder kernel must be rejected by the grading that chapters 01-04 pass, and
// by the case written to catch its mistake.
#include "normlab_catch.hpp"

#include <iostream>
#include <string>

#include "known_wrong_ladder.hpp"
#include "ladder_cases.hpp"

namespace {

normlab::KernelEntry local_entry(const std::string& name, normlab::Launcher launch) {
  return {.name = name,
          .chapter = 0,
          .summary = "known wrong",
          .op = normlab::Op::rmsnorm,
          .launch = std::move(launch)};
}

// Grades @p kernel on the ladder's grid and edges; requires a rejection that includes @p culprit.
void require_rejected(const normlab::KernelEntry& kernel, const normlab::Case& culprit,
                      const std::vector<normlab::Case>& cases) {
  const normlab::grading::Scorecard card = normlab::grading::grade(kernel, cases);
  card.print(std::cout);
  REQUIRE_FALSE(card.all_passed());
  INFO("expected to fail: " << culprit.describe() << "\nfailed:\n" << card.failed_cases());
  CHECK(card.failed_cases().find(culprit.describe() + "\n") != std::string::npos);
}

}  // namespace

TEST_CASE("eps outside the square root is caught by rows of scale 1e-3", "[known_wrong]") {
  const auto kernel =
      local_entry("eps_outside_sqrt", normlab::known_wrong::rmsnorm_eps_outside_sqrt);
  const auto cases = ladder::grid_and_edges(kernel);
  require_rejected(kernel, ladder::find_case(cases, 64, 1000), cases);
}

TEST_CASE("eps on the sum instead of the mean is caught by rows of scale 1e-3", "[known_wrong]") {
  const auto kernel = local_entry("eps_on_sum", normlab::known_wrong::rmsnorm_eps_on_sum);
  const auto cases = ladder::grid_and_edges(kernel);
  require_rejected(kernel, ladder::find_case(cases, 64, 1000), cases);
}

TEST_CASE("the tree without barriers is caught on long rows", "[known_wrong]") {
  const auto kernel =
      local_entry("tree_without_barriers", normlab::known_wrong::rmsnorm_tree_without_barriers);
  const auto cases = ladder::grid_and_edges(kernel);
  require_rejected(kernel, ladder::find_case(cases, 4097, 8192), cases);
}

TEST_CASE("float4 without its tail is caught by 16-byte rows with cols % 4 != 0", "[known_wrong]") {
  auto kernel =
      local_entry("float4_without_tail", normlab::known_wrong::rmsnorm_float4_without_tail);
  kernel.can.max_cols = 12288;
  const auto cases = ladder::grid_and_edges(kernel);
  require_rejected(kernel, ladder::find_case(cases, 33, 31, ladder::pad_to_16_bytes(31)), cases);
}
