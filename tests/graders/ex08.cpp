// SPDX-License-Identifier: Apache-2.0
// Grader for exercise 08 (dx of RMSNorm from the saved rstd): fp32 RMSNorm backward over ragged,
// padded and misaligned rows against the float64 reference; then the speed on 4096 x 4096.
#include "normlab_catch.hpp"

#include <iostream>
#include <utility>

#include "ex08.cuh"
#include "grading.hpp"
#include "normlab/arguments.hpp"

namespace {

using namespace normlab;

KernelEntry exercise_kernel() {
  return {.name = "ex08_rmsnorm_dx",
          .chapter = 8,
          .summary = "RMSNorm backward: dx from the saved rstd, dweight by columns",
          .op = Op::rmsnorm_backward,
          // fp32 with a weight; one block per row.
          .can = {.dtypes = {DType::f32}, .max_rows = kMaxRowsOneBlockPerRow},
          .launch = [](const NormCall& c, cudaStream_t stream) {
            ex08::rmsnorm_backward(static_cast<const float*>(c.x), c.x_stride,
                                   static_cast<const float*>(c.dy), c.dy_stride,
                                   static_cast<const float*>(c.weight), c.saved_rstd,
                                   static_cast<float*>(c.dx), c.dx_stride,
                                   static_cast<float*>(c.dweight), c.rows, c.cols, stream);
          }};
}

Case ragged_case(std::int64_t rows, std::int64_t cols, std::uint64_t seed) {
  Case c = default_case(Op::rmsnorm_backward, rows, cols, DType::f32);
  c.input.seed = seed;
  return c;
}

}  // namespace

TEST_CASE("ex08: dx of RMSNorm matches the reference at every width", "[ex08]") {
  const KernelEntry kernel = exercise_kernel();
  std::vector<Case> cases;
  std::uint64_t seed = 88;
  for (std::int64_t rows : {1, 7, 300}) {
    for (std::int64_t cols : {1, 2, 31, 32, 33, 255, 256, 257, 1025, 4096, 5000}) {
      cases.push_back(ragged_case(rows, cols, seed++));
    }
  }
  Case padded = ragged_case(37, 1029, seed++);
  padded.pad = 3;
  padded.misalign = 1;
  cases.push_back(padded);
  cases.push_back(ragged_case(0, 64, seed++));  // rows = 0: dweight is 0, written
  grading::Scorecard card = grading::grade(kernel, cases);
  if (card.all_passed())
    grading::add_speed(card, kernel, default_case(Op::rmsnorm_backward, 4096, 4096, DType::f32));
  card.print(std::cout);
  CHECK(card.all_passed());
}

// A few small odd shapes, run by the compute-sanitizer tests (memcheck, racecheck).
TEST_CASE("ex08: small odd shapes", "[.sanitize]") {
  for (const auto& [rows, cols] : {std::pair{37, 1029}, std::pair{3, 5}, std::pair{2, 4103}}) {
    const CaseResult result = verify(exercise_kernel(), ragged_case(rows, cols, 5));
    INFO(result.describe());
    CHECK(result.passed());
  }
}
