// SPDX-License-Identifier: Apache-2.0
// Grader for exercise 09 (a group of lanes per row, for narrow rows): bf16 RMSNorm of rows 1 to
// 1024 wide, 1 to 4097 of them, each row padded to a multiple of 8 elements plus a guard band,
// against the float64 reference at the bf16 tolerance (ex09_cases.hpp); then the speed on
// 8192 x 576.
#include "normlab_catch.hpp"

#include <iostream>
#include <utility>

#include "ex09_cases.hpp"
#include "grading.hpp"

namespace {

using namespace normlab;
using ex09_grader::exercise_kernel;
using ex09_grader::padded_case;

}  // namespace

TEST_CASE("ex09: narrow bf16 rows, a group of lanes each, match the reference", "[ex09]") {
  const KernelEntry kernel = exercise_kernel();
  grading::Scorecard card = grading::grade(kernel, ex09_grader::correctness_cases());
  if (card.all_passed())
    grading::add_speed(card, kernel, default_case(Op::rmsnorm, 8192, 576, DType::bf16));
  card.print(std::cout);
  CHECK(card.all_passed());
}

TEST_CASE("ex09: rows = 0 launches nothing; misaligned or too wide rows are refused", "[ex09]") {
  CHECK(verify(exercise_kernel(), default_case(Op::rmsnorm, 0, 64, DType::bf16)).passed());
  Case odd = default_case(Op::rmsnorm, 4, 64, DType::bf16);
  odd.pad = 3;  // stride 67: rows no longer 16-byte aligned
  // Refused by the declared capabilities, and by the launcher itself when called directly.
  CHECK_THROWS_WITH(verify(exercise_kernel(), odd), Catch::Contains("aligned to 16 bytes"));
  alignas(16) __nv_bfloat16 buffer[2 * 1032] = {};
  CHECK_THROWS_WITH(ex09::rmsnorm(buffer, 67, buffer, buffer, 67, 2, 64, 1e-5f, nullptr),
                    Catch::Contains("'x_stride'"));
  CHECK_THROWS_WITH(ex09::rmsnorm(buffer, 1032, buffer, buffer, 1032, 2, 1025, 1e-5f, nullptr),
                    Catch::Contains("'cols'"));
}

// A few small odd shapes, one per group width, run by the compute-sanitizer tests (memcheck,
// racecheck).
TEST_CASE("ex09: small odd shapes", "[.sanitize]") {
  for (const auto& [rows, cols] :
       {std::pair{37, 1021}, std::pair{3, 5}, std::pair{33, 129}, std::pair{2, 576}}) {
    const CaseResult result = verify(exercise_kernel(), padded_case(rows, cols, 5));
    INFO(result.describe());
    CHECK(result.passed());
  }
}
