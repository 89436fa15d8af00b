// SPDX-License-Identifier: Apache-2.0
// Grader for exercise 02 (LayerNorm, block per row, one tree for the sum and the sum of
// squares): every shape of the grid, a padded stride and rows smaller than eps against the
// float64 reference, then the speed. Inputs are centred on zero: this kernel's variance,
// E[x^2] - E[x]^2, is not meant for rows with a large mean (chapter 05's subject).
#include "normlab_catch.hpp"

#include "ex02.cuh"
#include "layernorm_grading.hpp"

namespace {

normlab::KernelEntry exercise_kernel() {
  return normlab::grading::layernorm_entry(
      "ex02_layernorm_block_tree_moments", 2,
      "LayerNorm, block per row, sum and sum of squares in one tree", &normlab::ex02::layernorm);
}

}  // namespace

TEST_CASE("ex02: LayerNorm with one tree for both sums matches the reference", "[ex02]") {
  normlab::grading::require_layernorm_grid_passes(exercise_kernel());
}

TEST_CASE("ex02: rows = 0 launches nothing; bad arguments are refused by name", "[ex02]") {
  normlab::grading::require_layernorm_argument_errors(exercise_kernel(), &normlab::ex02::layernorm);
}

TEST_CASE("ex02: small odd shapes", "[.sanitize]") {
  normlab::grading::require_small_odd_shapes_pass(exercise_kernel());
}
