// SPDX-License-Identifier: Apache-2.0
// Chapter 07's known-wrong kernel: statistics accumulated in bf16 must fail the bf16 grader on
// 4096-wide rows, while its twin with an fp32 sum, identical otherwise, passes every case.
#include "normlab_catch.hpp"

#include <iostream>

#include "ch07_cases.hpp"
#include "grading.hpp"
#include "half_statistics.hpp"

TEST_CASE("statistics accumulated in bf16 fail the bf16 grader on a 4096-wide row",
          "[ch07][known_wrong]") {
  using namespace normlab;
  const std::vector<Case> cases = ch07_cases::bf16_grader(Op::rmsnorm);

  const grading::Scorecard control = grading::grade(known_wrong::rmsnorm_fp32_statistics(), cases);
  control.print(std::cout);
  REQUIRE(control.all_passed());  // the kernel is right but for its accumulator

  const grading::Scorecard wrong = grading::grade(known_wrong::rmsnorm_bf16_statistics(), cases);
  wrong.print(std::cout);
  CHECK_FALSE(wrong.all_passed());
  CHECK_THAT(wrong.failed_cases(), Catch::Contains("x4096"));
  // Wrong values, not a broken kernel: everything written, nothing past a row.
  for (const CaseResult& failure : wrong.failures) {
    for (const CompareReport& report : failure.reports) {
      CHECK(report.unwritten == 0);
      CHECK(report.guard_overwrites == 0);
    }
  }
}
