// SPDX-License-Identifier: Apache-2.0
// Chapter 09's known-wrong kernel: a narrow RMSNorm that reduces a row over its neighbour's lanes
// too must fail on every case with more than one row, while its twin that reduces over the row's
// own lanes, identical otherwise, passes every case.
#include "normlab_catch.hpp"

#include <cstdint>
#include <iostream>
#include <vector>

#include "grading.hpp"
#include "row_crossing_reduce.hpp"

TEST_CASE("a sub-warp reduction that crosses into the next row's lanes fails",
          "[ch09][known_wrong]") {
  using namespace normlab;
  std::vector<Case> cases;
  std::uint64_t seed = 900;
  for (std::int64_t rows : {1, 2, 31, 33}) {
    for (std::int64_t cols : {1, 7, 8, 9, 31, 32}) {
      Case c = default_case(Op::rmsnorm, rows, cols);
      c.input.seed = seed++;
      cases.push_back(c);
    }
  }
  const grading::Scorecard control = grading::grade(known_wrong::rmsnorm_rows_own_reduce(), cases);
  control.print(std::cout);
  REQUIRE(control.all_passed());  // the kernel is right but for its reduction's width

  const grading::Scorecard wrong =
      grading::grade(known_wrong::rmsnorm_rows_crossing_reduce(), cases);
  wrong.print(std::cout);
  // One row alone has no live neighbour (its partner lanes load zeros), so only the 6 one-row
  // cases may pass; every case with two rows or more mixes two rows' sums.
  CHECK(wrong.total == static_cast<int>(cases.size()));
  CHECK(wrong.passed == 6);
  CHECK_THAT(wrong.failed_cases(), Catch::Contains("2x") && Catch::Contains("33x"));
  for (const CaseResult& failure : wrong.failures) {
    for (const CompareReport& report : failure.reports) {
      CHECK(report.unwritten == 0);
      CHECK(report.guard_overwrites == 0);
    }
  }
}
