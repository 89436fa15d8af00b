// SPDX-License-Identifier: Apache-2.0
// Grader for exercise 01 (LayerNorm, one thread per row): every shape of the grid, a padded
// stride and rows smaller than eps against the float64 reference, then the speed.
#include "normlab_catch.hpp"

#include "ex01.cuh"
#include "layernorm_grading.hpp"

namespace {

normlab::KernelEntry exercise_kernel() {
  return normlab::grading::layernorm_entry("ex01_layernorm_thread_per_row", 1,
                                           "LayerNorm, one thread per row",
                                           &normlab::ex01::layernorm);
}

}  // namespace

TEST_CASE("ex01: LayerNorm with one thread per row matches the reference", "[ex01]") {
  normlab::grading::require_layernorm_grid_passes(exercise_kernel());
}

TEST_CASE("ex01: rows = 0 launches nothing; bad arguments are refused by name", "[ex01]") {
  normlab::grading::require_layernorm_argument_errors(exercise_kernel(), &normlab::ex01::layernorm);
}

TEST_CASE("ex01: small odd shapes", "[.sanitize]") {
  normlab::grading::require_small_odd_shapes_pass(exercise_kernel());
}
