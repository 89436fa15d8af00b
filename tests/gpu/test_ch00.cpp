// SPDX-License-Identifier: Apache-2.0
// Chapter 00 on the GPU: both copies and the eager RMSNorm against the float64 reference.
#include "normlab_catch.hpp"

#include <iostream>

#include "ch00.cuh"
#include "grading.hpp"
#include "norm_cases.hpp"
#include "normlab/kernel.hpp"

namespace {
using normlab::norm_cases::registered;
}  // namespace

TEST_CASE("chapter 00 kernels match the reference over the grid", "[ch00]") {
  for (const char* name : {"ch00_copy_memcpy", "ch00_copy_kernel", "ch00_rmsnorm_eager"}) {
    const auto& kernel = registered(name);
    auto cases = normlab::grading::grid_cases(kernel, {1, 7, 1024}, normlab::grading::kGridCols);
    if (kernel.op == normlab::Op::rmsnorm) {
      cases.push_back(normlab::grading::small_magnitude_case(kernel.op, 64, 1000));
    }
    const auto card = normlab::grading::grade(kernel, cases);
    card.print(std::cout);
    CHECK(card.all_passed());
  }
}

TEST_CASE("strided rows keep their guard bands; rows = 0 launches nothing", "[ch00]") {
  for (const char* name : {"ch00_copy_memcpy", "ch00_rmsnorm_eager"}) {
    const auto& kernel = registered(name);
    normlab::Case c = normlab::default_case(kernel.op, 33, 1025);
    c.pad = 7;
    const auto result = normlab::verify(kernel, c);
    INFO(result.describe());
    CHECK(result.passed());
    normlab::Case empty = normlab::default_case(kernel.op, 0, 64);
    CHECK_NOTHROW(normlab::verify(kernel, empty));
  }
}

TEST_CASE("chapter 00 launchers refuse bad arguments by name", "[ch00]") {
  float* none = nullptr;
  CHECK_THROWS_WITH(normlab::ch00::rmsnorm_eager(none, 8, none, none, 8, 4, 8, 1e-5f, nullptr),
                    Catch::Contains("'x' is null"));
  CHECK_THROWS_WITH(normlab::ch00::copy_memcpy(none, 8, none, 8, 4, 0, nullptr),
                    Catch::Contains("'cols'"));
  CHECK_THROWS_WITH(normlab::ch00::rmsnorm_eager(none, 4, none, none, 8, 0, 8, 1e-5f, nullptr),
                    Catch::Contains("'x_stride'"));
}
