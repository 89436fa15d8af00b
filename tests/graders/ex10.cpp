// SPDX-License-Identifier: Apache-2.0
// Grader for exercise 10 (the DSMEM exchange): fp32 RMSNorm of rows 1 to 32768 wide, split over
// a cluster of four blocks, 1 to 512 rows, each row padded to a multiple of 4 elements plus a
// guard band, against the float64 reference (ex10_cases.hpp); then the speed on 1024 x 32768.
#include "normlab_catch.hpp"

#include <algorithm>
#include <cstdint>
#include <iostream>
#include <utility>
#include <vector>

#include "ex10_cases.hpp"
#include "grading.hpp"
#include "normlab/buffer.hpp"
#include "normlab/check.hpp"

namespace {

using namespace normlab;
using ex10_grader::exercise_kernel;
using ex10_grader::padded_case;

}  // namespace

TEST_CASE("ex10: rows split over a cluster match the reference", "[ex10]") {
  const KernelEntry kernel = exercise_kernel();
  grading::Scorecard card = grading::grade(kernel, ex10_grader::correctness_cases());
  if (card.all_passed())
    grading::add_speed(card, kernel, default_case(Op::rmsnorm, 1024, ex10::kMostCols));
  card.print(std::cout);
  CHECK(card.all_passed());
}

TEST_CASE("ex10: rows = 0 launches nothing; bad arguments and older GPUs are refused by name",
          "[ex10]") {
  const KernelEntry kernel = exercise_kernel();
  CHECK(verify(kernel, default_case(Op::rmsnorm, 0, 64)).passed());
  Case odd = default_case(Op::rmsnorm, 4, 64);
  odd.pad = 3;  // stride 67: rows no longer 16-byte aligned
  // Refused by the declared capabilities, and by the launcher itself when called directly.
  CHECK_THROWS_WITH(verify(kernel, odd), Catch::Contains("aligned to 16 bytes"));
  DeviceBuffer<float> buffer(2 * (ex10::kMostCols + 4));
  buffer.poison();
  float* d = buffer.data();
  const std::int64_t wide = ex10::kMostCols + 4;
  CHECK_THROWS_WITH(ex10::rmsnorm(d, 67, d, d, 68, 2, 64, 1e-5f, nullptr),
                    Catch::Contains("'x_stride'"));
  CHECK_THROWS_WITH(ex10::rmsnorm(d, 68, d + 1, d, 68, 2, 64, 1e-5f, nullptr),
                    Catch::Contains("'weight'"));
  CHECK_THROWS_WITH(ex10::rmsnorm(d, wide, d, d, wide, 2, ex10::kMostCols + 1, 1e-5f, nullptr),
                    Catch::Contains("'cols'"));
  CHECK_THROWS_WITH(ex10::rmsnorm(nullptr, 68, d, d, 68, 2, 64, 1e-5f, nullptr),
                    Catch::Contains("'x'"));
  CHECK_THROWS_WITH(ex10::rmsnorm(d, 68, d, d, 68, -1, 64, 1e-5f, nullptr),
                    Catch::Contains("'rows'"));
  CHECK_THROWS_WITH(ex10::rmsnorm(d, 68, d, d, 68, 2, 64, -1.0f, nullptr),
                    Catch::Contains("'eps'"));
  NORMLAB_CHECK(cudaDeviceSynchronize());
  std::vector<unsigned char> bytes(buffer.bytes());
  buffer.download(bytes.data());
  CHECK(std::count(bytes.begin(), bytes.end(), kPoisonByte) == std::ssize(bytes));  // untouched

  // What an sm_80 GPU is told, asked of the declared capabilities (this GPU is sm_90 or newer).
  Requirements on_ampere = requirements_of(padded_case(3, 100, 1));
  on_ampere.compute_capability = 80;
  CHECK_THAT(kernel.refusal(on_ampere), Catch::Contains("needs sm_90 or newer"));
}

// A few small odd shapes, one row spanning each count of blocks, run by the compute-sanitizer
// tests (memcheck, racecheck).
TEST_CASE("ex10: small odd shapes", "[.sanitize]") {
  for (const auto& [rows, cols] :
       {std::pair{3, 1000}, std::pair{37, 8193}, std::pair{2, 16387}, std::pair{5, 32765}}) {
    const CaseResult result = verify(exercise_kernel(), padded_case(rows, cols, 5));
    INFO(result.describe());
    CHECK(result.passed());
  }
}
