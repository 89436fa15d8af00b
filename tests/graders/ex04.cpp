// SPDX-License-Identifier: Apache-2.0
// Grader for exercise 04 (float4 body, scalar tail): every shape of the grid and widths with
// cols % 4 = 1, 2 and 3, each row padded to a multiple of 4 elements plus a guard of 4, against
// the float64 reference; then the speed on 2048 x 8192 as a share of the copy roof.
#include "normlab_catch.hpp"

#include <iostream>
#include <utility>
#include <vector>

#include "ex04.cuh"
#include "grading.hpp"
#include "normlab/arguments.hpp"

namespace {

using namespace normlab;

KernelEntry exercise_kernel() {
  return {.name = "ex04_rmsnorm_vector_tail",
          .chapter = 4,
          .summary = "RMSNorm, row in registers, float4 body and scalar tail",
          .op = Op::rmsnorm,
          // fp32 with a weight; the launcher requires 16-byte aligned rows; not promised in place.
          .can = {.alignment_bytes = 16,
                  .max_cols = ex04::kMaxCols,
                  .max_rows = kMaxRowsOneBlockPerRow},
          .launch = [](const NormCall& c, cudaStream_t stream) {
            ex04::rmsnorm(static_cast<const float*>(c.x), c.x_stride,
                          static_cast<const float*>(c.weight), static_cast<float*>(c.y), c.y_stride,
                          c.rows, c.cols, c.eps, stream);
          }};
}

// Rows start 16-byte aligned when the stride is a multiple of 4 elements; 4 more elements leave
// every row a guard band, which catches a body vector or a tail element written past cols.
Case with_aligned_stride(Case c) {
  c.pad = (4 - c.shape.cols % 4) % 4 + 4;
  return c;
}

}  // namespace

TEST_CASE("ex04: the float4 body and the scalar tail match the reference", "[ex04]") {
  const KernelEntry kernel = exercise_kernel();
  // The grid, then every remainder cols % 4, rows narrower than one float4, and the widest rows
  // with a tail; each with an aligned stride before the kernel's declared capabilities are
  // asked (grid_cases would ask them of the unpadded case and drop every ragged width).
  std::vector<Case> cases;
  std::uint64_t seed = 400;
  const auto add = [&](std::int64_t rows, std::int64_t cols) {
    Case c = with_aligned_stride(default_case(Op::rmsnorm, rows, cols));
    c.input.seed = seed++;
    if (kernel.supports(c)) cases.push_back(c);
  };
  for (std::int64_t rows : grading::kGridRows) {
    for (std::int64_t cols : grading::kGridCols)
      add(rows, cols);
  }
  for (std::int64_t rows : {7, 1024}) {
    for (std::int64_t cols : {2, 3, 5, 6, 4094, 12285, 12286, 12287})
      add(rows, cols);
  }
  cases.push_back(with_aligned_stride(grading::small_magnitude_case(Op::rmsnorm, 64, 1001)));
  grading::Scorecard card = grading::grade(kernel, cases);
  if (card.all_passed()) grading::add_speed(card, kernel, default_case(Op::rmsnorm, 2048, 8192));
  card.print(std::cout);
  CHECK(card.all_passed());
}

TEST_CASE("ex04: rows = 0 launches nothing; unaligned rows and wide rows are refused", "[ex04]") {
  CHECK_NOTHROW(verify(exercise_kernel(), default_case(Op::rmsnorm, 0, 64)));
  alignas(16) float buffer[8] = {};
  CHECK_THROWS_WITH(ex04::rmsnorm(buffer, 7, buffer, buffer, 8, 2, 7, 1e-5f, nullptr),
                    Catch::Contains("'x_stride'"));
  CHECK_THROWS_WITH(ex04::rmsnorm(buffer + 1, 8, buffer, buffer, 8, 1, 7, 1e-5f, nullptr),
                    Catch::Contains("'x'"));
  CHECK_THROWS_WITH(ex04::rmsnorm(buffer, ex04::kMaxCols + 4, buffer, buffer, ex04::kMaxCols + 4, 1,
                                  ex04::kMaxCols + 1, 1e-5f, nullptr),
                    Catch::Contains("'cols'"));
}

// A few small odd shapes, run by the compute-sanitizer tests (memcheck, racecheck).
TEST_CASE("ex04: small odd shapes", "[.sanitize]") {
  for (const auto& [rows, cols] : {std::pair{37, 1029}, std::pair{3, 5}, std::pair{2, 12287}}) {
    const CaseResult result =
        verify(exercise_kernel(), with_aligned_stride(default_case(Op::rmsnorm, rows, cols)));
    INFO(result.describe());
    CHECK(result.passed());
  }
}
