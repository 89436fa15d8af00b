// SPDX-License-Identifier: Apache-2.0
// Exercise 12's grader must catch the bugs of partial statistics and their merge.
// tests/exercises.cmake builds this file once for each bug, against the solution with that bug
// planted, and each of those test programs runs only the test case tagged with its bug. Every
// case is one of the grader's own (ex12_cases.hpp), and each test also checks that the cases the
// bug leaves right still pass: the failures are the bug's, not the harness's.
#include "normlab_catch.hpp"

#include "ex12_cases.hpp"

namespace {

using namespace normlab;
using namespace normlab::ex12_grader;

// The planted code writes every statistic and nothing past the last row: it fails by its
// values alone.
void check_values_alone(const CaseResult& result) {
  for (const CompareReport& report : result.reports) {
    CHECK(report.unwritten == 0);
    CHECK(report.guard_overwrites == 0);
  }
}

// Grades every case of the grader; @p must_pass and @p must_fail say which cases the bug leaves
// right and which it must break. Checks that there are some of each.
template <typename MustPass, typename MustFail>
void check_bug(MustPass&& must_pass, MustFail&& must_fail) {
  int passing = 0, failing = 0;
  for (const SplitCase& c : correctness_cases()) {
    const CaseResult result = grade_on_one_gpu(c);
    INFO(result.describe());
    if (must_pass(c)) {
      CHECK(result.passed());
      ++passing;
    }
    if (must_fail(c)) {
      CHECK_FALSE(result.passed());
      ++failing;
    }
    check_values_alone(result);
  }
  CHECK(passing > 0);
  CHECK(failing > 0);
}

}  // namespace

// Each rank's mean weighed 1 / (rank + 1) instead of by its share of the count. With an even
// split the shares are those very numbers, bit for bit: such cases pass. On a ragged split the
// shares differ by about 1 / cols, which moves a drifting row's mean (its slices' means 8 / ranks
// apart) by several times the tolerance. On shifted rows the slices' means differ by noise only:
// those may go either way.
TEST_CASE("ex12's grader rejects a merge that weighs the ranks' means equally", "[equal_weights]") {
  check_bug([](const SplitCase& c) { return !c.ragged(); },
            [](const SplitCase& c) { return c.ragged() && c.data == Rows::drifting; });
}

// M2 merged as the sum of the ranks' M2, without the spread between their means. One rank has
// nothing to merge and passes; a drifting row's slices differ in mean by 8 / ranks, whose spread
// is most of the row's variance, so every case of several ranks fails. On shifted rows the
// spread is noise, a share of about (ranks - 1) / cols of M2: the narrow rows fail, the wide
// ones may go either way.
TEST_CASE("ex12's grader rejects a merge without the spread between the ranks' means",
          "[no_delta_squared]") {
  check_bug([](const SplitCase& c) { return c.ranks == 1; },
            [](const SplitCase& c) { return c.ranks > 1 && c.data == Rows::drifting; });
}

// Each slice's M2 as the sum of squares minus the square of the sum over the count, in fp32. On
// drifting rows (means within 4 of 0) nothing large cancels, and they pass; on rows shifted to
// 1e3 both terms are about 1e6 per value, 0.06 apart in fp32, and every slice of two values or
// more loses its variance. A slice of one value is exact (x^2 - x^2 = 0), so 2 columns over 2
// ranks may pass.
TEST_CASE("ex12's grader rejects slice moments from E[x^2] - E[x]^2 in fp32", "[sum_of_squares]") {
  check_bug([](const SplitCase& c) { return c.data == Rows::drifting; },
            [](const SplitCase& c) {
              return c.data == Rows::shifted && split_of(c.cols, c.ranks, c.ranks - 1).count >= 2;
            });
}
