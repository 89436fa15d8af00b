// SPDX-License-Identifier: Apache-2.0
// Grader for exercise 06 (fused add + RMSNorm): y and the updated residual h over every shape
// of the grid, padded, misaligned and small-magnitude rows, each with h written to its own
// buffer and over the residual, against the float64 reference; then the speed on 16384 x 4096.
#include "normlab_catch.hpp"

#include <iostream>

#include "ex06.cuh"
#include "grading.hpp"
#include "normlab/arguments.hpp"

namespace {

using namespace normlab;

KernelEntry exercise_kernel() {
  return {.name = "ex06_add_rmsnorm_fused",
          .chapter = 6,
          .summary = "h = x + r and RMSNorm in one pass, h written over r",
          .op = Op::add_rmsnorm,
          // In place (residual_out over residual) is the exercise: every load of a row comes
          // before the block-wide sum, every store after it.
          .can = {.in_place = true, .max_cols = ex06::kMaxCols, .max_rows = kMaxRowsOneBlockPerRow},
          .launch = [](const NormCall& c, cudaStream_t stream) {
            ex06::add_rmsnorm(static_cast<const float*>(c.x), c.x_stride,
                              static_cast<const float*>(c.residual), c.residual_stride,
                              static_cast<float*>(c.residual_out), c.residual_out_stride,
                              static_cast<const float*>(c.weight), static_cast<float*>(c.y),
                              c.y_stride, c.rows, c.cols, c.eps, stream);
          }};
}

}  // namespace

TEST_CASE("ex06: fused add + RMSNorm matches the reference, in place and not", "[ex06]") {
  const KernelEntry kernel = exercise_kernel();
  std::vector<Case> cases = grading::grid_cases(kernel, grading::kGridRows, grading::kGridCols);
  for (std::int64_t cols : {5, 33, 1025, 12287}) {
    Case c = default_case(Op::add_rmsnorm, 9, cols);
    c.pad = 3;
    c.misalign = 1;
    cases.push_back(c);
  }
  cases.push_back(grading::small_magnitude_case(Op::add_rmsnorm, 64, 1000));
  // Every case twice: h to its own buffer, then h over the residual.
  const std::size_t out_of_place = cases.size();
  for (std::size_t i = 0; i < out_of_place; ++i) {
    Case c = cases[i];
    c.in_place = true;
    cases.push_back(c);
  }
  grading::Scorecard card = grading::grade(kernel, cases);
  if (card.all_passed()) {
    Case timed = default_case(Op::add_rmsnorm, 16384, 4096);
    timed.in_place = true;
    grading::add_speed(card, kernel, timed);
  }
  card.print(std::cout);
  CHECK(card.all_passed());
}

TEST_CASE("ex06: rows = 0 launches nothing; bad arguments are refused", "[ex06]") {
  CHECK_NOTHROW(verify(exercise_kernel(), default_case(Op::add_rmsnorm, 0, 64)));
  float* none = nullptr;
  CHECK_THROWS_WITH(
      ex06::add_rmsnorm(none, 8, none, 8, none, 8, none, none, 8, 2, 8, 1e-5f, nullptr),
      Catch::Contains("'x'"));
  CHECK_THROWS_WITH(ex06::add_rmsnorm(none, 8, none, 8, none, 8, none, none, 8, 2,
                                      ex06::kMaxCols + 1, 1e-5f, nullptr),
                    Catch::Contains("'cols'"));
}
