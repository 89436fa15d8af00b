// SPDX-License-Identifier: Apache-2.0
// Chapter 10's known-wrong kernel: a cluster RMSNorm whose blocks read each other's partial sums
// through DSMEM without the cluster.sync() before the reads must fail, while its twin with the
// sync, identical otherwise, passes every case.
#include "normlab_catch.hpp"

#include <cstdint>
#include <iostream>
#include <vector>

#include "cluster_without_sync.hpp"
#include "grading.hpp"

// The missing sync is a race, so which cases fail, and on which run, is not fixed; that at least
// one does is all but certain, for three reasons. The kernel runs 16 clusters at most, so on
// the 512-row cases each cluster goes through 32 rows; a row spans all four blocks from 1537
// columns on. On each row every block reads three neighbours' partials and its own, and the
// row comes out right only if every neighbour has written its partial before the read: but the
// four blocks start the row together (the sync after the reads of the previous row lines them
// up) and get there when their own loads return, in an order that memory latency decides.
// And a block's own partial, written by its thread 0, is read by its other warps with no
// barrier between. A read that comes early finds the previous row's partial, and random rows
// make that a different number. Up to kPasses passes over the cases make a pass that loses no
// race rarer still; a test that sees none fails, so this can only err towards a false alarm.
TEST_CASE("a cluster that reads its blocks' partials before the cluster.sync() fails",
          "[ch10][known_wrong]") {
  using namespace normlab;
  constexpr int kPasses = 3;
  std::vector<Case> cases;
  std::uint64_t seed = 1000;
  for (std::int64_t rows : {1, 7, 512}) {
    for (std::int64_t cols : {1, 500, 513, 1025, 1537, 2048}) {
      Case c = default_case(Op::rmsnorm, rows, cols);
      c.input.seed = seed++;
      cases.push_back(c);
    }
  }
  const grading::Scorecard control =
      grading::grade(known_wrong::rmsnorm_cluster_with_sync(), cases);
  control.print(std::cout);
  REQUIRE(control.all_passed());  // the kernel is right but for the missing sync

  int failed = 0;
  for (int pass = 0; pass < kPasses && failed == 0; ++pass) {
    const grading::Scorecard wrong =
        grading::grade(known_wrong::rmsnorm_cluster_without_sync(), cases);
    wrong.print(std::cout);
    REQUIRE(wrong.total == static_cast<int>(cases.size()));
    failed = wrong.total - wrong.passed;
    for (const CaseResult& failure : wrong.failures) {
      for (const CompareReport& report : failure.reports) {
        CHECK(report.unwritten == 0);  // it fails by its values alone
        CHECK(report.guard_overwrites == 0);
      }
    }
  }
  CHECK(failed > 0);
}
