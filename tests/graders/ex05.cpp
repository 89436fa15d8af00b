// SPDX-License-Identifier: Apache-2.0
// Grader for exercise 05 (Welford merge): LayerNorm over every shape of the grid, padded,
// misaligned and in-place rows, rows without weight or bias, and rows shifted to means of 1e3
// and 1e4, against the float64 reference; then the speed on 2048 x 8192.
#include "normlab_catch.hpp"

#include <iostream>

#include "ex05.cuh"
#include "grading.hpp"
#include "normlab/arguments.hpp"

namespace {

using namespace normlab;

KernelEntry exercise_kernel() {
  return {.name = "ex05_layernorm_welford_merge",
          .chapter = 5,
          .summary = "LayerNorm, Welford moments merged across warp and block",
          .op = Op::layernorm,
          .can = {.optional_parameters = true,
                  .max_cols = ex05::kMaxCols,
                  .max_rows = kMaxRowsOneBlockPerRow},
          .launch = [](const NormCall& c, cudaStream_t stream) {
            ex05::layernorm(static_cast<const float*>(c.x), c.x_stride,
                            static_cast<const float*>(c.weight), static_cast<const float*>(c.bias),
                            static_cast<float*>(c.y), c.y_stride, c.rows, c.cols, c.eps, stream);
          }};
}

}  // namespace

TEST_CASE("ex05: Welford moments merged across the block match the reference", "[ex05]") {
  const KernelEntry kernel = exercise_kernel();
  std::vector<Case> cases = grading::grid_cases(kernel, grading::kGridRows, grading::kGridCols);
  // Rows whose threads hold different counts (and rows where most threads hold nothing).
  for (const Case& c : grading::grid_cases(kernel, {5}, {2, 3, 100, 513, 5000, 12287})) {
    cases.push_back(c);
  }
  for (std::int64_t cols : {33, 1025}) {
    Case c = default_case(Op::layernorm, 9, cols);
    c.pad = 3;
    c.misalign = 1;
    cases.push_back(c);
    c.in_place = true;
    cases.push_back(c);
    c.shape.weight = false;
    c.shape.bias = false;
    cases.push_back(c);
  }
  // The cases E[x^2] - E[x]^2 cannot pass: a spread of 1 around a mean of 1e3 or 1e4.
  for (double mean : {1e3, 1e4}) {
    for (std::int64_t cols : {31, 1024, 4097}) {
      cases.push_back(grading::shifted_case(Op::layernorm, 64, cols, mean));
    }
  }
  grading::Scorecard card = grading::grade(kernel, cases);
  if (card.all_passed()) grading::add_speed(card, kernel, default_case(Op::layernorm, 2048, 8192));
  card.print(std::cout);
  CHECK(card.all_passed());
}

TEST_CASE("ex05: rows = 0 launches nothing; bad arguments are refused", "[ex05]") {
  CHECK_NOTHROW(verify(exercise_kernel(), default_case(Op::layernorm, 0, 64)));
  float* none = nullptr;
  CHECK_THROWS_WITH(ex05::layernorm(none, 8, none, none, none, 8, 2, 8, 1e-5f, nullptr),
                    Catch::Contains("'x'"));
  CHECK_THROWS_WITH(ex05::layernorm(none, ex05::kMaxCols + 1, none, none, none, ex05::kMaxCols + 1,
                                    1, ex05::kMaxCols + 1, 1e-5f, nullptr),
                    Catch::Contains("'cols'"));
}
