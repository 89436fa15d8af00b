// SPDX-License-Identifier: Apache-2.0
// Exercise 09's grader must catch the classic bug of a group-per-row kernel: a reduction over
// the whole warp (device::warp_sum) where the row has only kLanes of its lanes, so each row's
// sum of squares takes in the other rows of its warp. tests/exercises.cmake builds this test
// against the solution with that one call changed (group_sum<kLanes> -> warp_sum); it runs the
// grader's own cases (ex09_cases.hpp) and requires exactly the cases that can show the bug to
// fail: those with 2 rows or more whose groups are narrower than a warp. Where the group is the
// whole warp (rows wider than 256) the two sums are the same, and one row alone has only idle
// groups beside it: those cases must pass, which shows the planted kernel is otherwise right.
#include "normlab_catch.hpp"

#include <cstdint>

#include "ex09_cases.hpp"

TEST_CASE("ex09's grader rejects a reduction that crosses into the neighbouring rows' lanes",
          "[ex09][known_wrong]") {
  using namespace normlab;
  // The widest row that the launcher gives fewer than 32 lanes (16 lanes x 2 chunks x 8).
  constexpr std::int64_t kWidestSubWarpRow = 256;
  const KernelEntry kernel = ex09_grader::exercise_kernel();
  int mixed = 0;
  for (const Case& c : ex09_grader::correctness_cases()) {
    const bool mixes_rows = c.shape.rows >= 2 && c.shape.cols <= kWidestSubWarpRow;
    const CaseResult result = verify(kernel, c);
    INFO(result.describe());
    CHECK(result.passed() == !mixes_rows);
    for (const CompareReport& report : result.reports) {
      CHECK(report.unwritten == 0);  // it fails by its values alone
      CHECK(report.guard_overwrites == 0);
    }
    mixed += mixes_rows ? 1 : 0;
  }
  CHECK(mixed > 0);  // the grader has cases that can catch it
}
