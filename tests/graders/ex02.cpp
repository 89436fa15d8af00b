// Grader for exercise 02 (LayerNorm, block per row, one tree for the sum and the sum of
// squares): every shape of the grid, a padded stride and rows smaller than eps against the
// float64 reference, then the speed. Inputs are centred on zero: this kernel's variance,
// E[x^2] - E[x]^2, is not meant for rows with a large mean (chapter 05's subject).
#include <catch2/catch.hpp>

#include <iostream>
#include <utility>
#include <vector>

#include "ex02.cuh"
#include "grading.hpp"

namespace {

using namespace normlab;

KernelEntry exercise_kernel() {
  return {.name = "ex02_layernorm_block_tree_moments",
          .chapter = 2,
          .summary = "LayerNorm, block per row, sum and sum of squares in one tree",
          .op = Op::layernorm,
          .launch = [](const NormCall& c, cudaStream_t stream) {
            ex02::layernorm(static_cast<const float*>(c.x), c.x_stride,
                            static_cast<const float*>(c.weight), static_cast<const float*>(c.bias),
                            static_cast<float*>(c.y), c.y_stride, c.rows, c.cols, c.eps, stream);
          }};
}

}  // namespace

TEST_CASE("ex02: LayerNorm with one tree for both sums matches the reference", "[ex02]") {
  const KernelEntry kernel = exercise_kernel();
  std::vector<Case> cases = grading::grid_cases(kernel, grading::kGridRows, grading::kGridCols);
  cases.push_back(grading::small_magnitude_case(Op::layernorm, 64, 1000));
  Case padded = default_case(Op::layernorm, 33, 1025);
  padded.pad = 7;
  cases.push_back(padded);
  grading::Scorecard card = grading::grade(kernel, cases);
  if (card.all_passed()) grading::add_speed(card, kernel, default_case(Op::layernorm, 2048, 8192));
  card.print(std::cout);
  CHECK(card.all_passed());
}

TEST_CASE("ex02: rows = 0 launches nothing; bad arguments are refused by name", "[ex02]") {
  CHECK_NOTHROW(verify(exercise_kernel(), default_case(Op::layernorm, 0, 64)));
  const float* none = nullptr;
  float buffer = 0.0f;
  CHECK_THROWS_WITH(ex02::layernorm(&buffer, 8, none, &buffer, &buffer, 8, 1, 8, 1e-5f, nullptr),
                    Catch::Contains("'weight'"));
  CHECK_THROWS_WITH(ex02::layernorm(&buffer, 4, &buffer, &buffer, &buffer, 8, 1, 8, 1e-5f, nullptr),
                    Catch::Contains("'x_stride'"));
}

// A few small odd shapes, run by the compute-sanitizer tests (memcheck, racecheck).
TEST_CASE("ex02: small odd shapes", "[.sanitize]") {
  for (const auto& [rows, cols] : {std::pair{37, 1029}, std::pair{3, 5}}) {
    const CaseResult result = verify(exercise_kernel(), default_case(Op::layernorm, rows, cols));
    INFO(result.describe());
    CHECK(result.passed());
  }
}
