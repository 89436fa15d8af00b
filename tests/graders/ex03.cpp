// SPDX-License-Identifier: Apache-2.0
// Grader for exercise 03 (warp_sum and block_sum): the two reductions run directly on known
// values with blocks of 32 to 1024 threads, then the RMSNorm built on them against the float64
// reference over the grid, then its speed.
#include "normlab_catch.hpp"

#include <iostream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "ex03.cuh"
#include "ex03_probes.hpp"
#include "grading.hpp"

namespace {

using namespace normlab;

constexpr int kWarpSize = 32;
const int kBlockSizes[] = {32, 64, 96, 256, 1024};

KernelEntry exercise_kernel() {
  return {.name = "ex03_rmsnorm_warp_shuffle",
          .chapter = 3,
          .summary = "RMSNorm, block per row, block_sum from warp shuffles",
          .op = Op::rmsnorm,
          .launch = [](const NormCall& c, cudaStream_t stream) {
            ex03::rmsnorm(static_cast<const float*>(c.x), c.x_stride,
                          static_cast<const float*>(c.weight), static_cast<float*>(c.y), c.y_stride,
                          c.rows, c.cols, c.eps, stream);
          }};
}

// Sum of the probe values of threads [first, first + count) in call @p call (exact: integers).
double expected_sum(int first, int count, int call) {
  double sum = 0.0;
  for (int t = first; t < first + count; ++t)
    sum += ex03_probes::probe_value(t, call);
  return sum;
}

// Counts the threads whose answer is not @p want(thread) and describes the first one.
template <typename Want>
int count_wrong(const std::vector<float>& got, int offset, int threads, Want want,
                std::string& first) {
  int wrong = 0;
  for (int t = 0; t < threads; ++t) {
    const double expected = want(t);
    const float value = got[static_cast<std::size_t>(offset + t)];
    if (value == expected) continue;
    if (wrong++ == 0) {
      std::ostringstream out;
      out << "thread " << t << " got " << value << ", want " << expected;
      first = out.str();
    }
  }
  return wrong;
}

}  // namespace

TEST_CASE("ex03: warp_sum returns its warp's total to every lane", "[ex03]") {
  for (int threads : kBlockSizes) {
    const std::vector<float> got = ex03_probes::run_warp_sum(threads);
    std::string first;
    const int wrong = count_wrong(
        got, 0, threads,
        [](int t) { return expected_sum(t / kWarpSize * kWarpSize, kWarpSize, 0); }, first);
    std::cout << "warp_sum, " << threads << " threads: " << threads - wrong << " / " << threads
              << " threads right" << (wrong ? " (first wrong: " + first + ")" : "") << "\n";
    CHECK(wrong == 0);
  }
}

TEST_CASE("ex03: block_sum returns the block's total to every thread, call after call", "[ex03]") {
  constexpr int kCalls = 3;
  for (int threads : kBlockSizes) {
    const std::vector<float> got = ex03_probes::run_block_sum(threads, kCalls);
    for (int call = 0; call < kCalls; ++call) {
      std::string first;
      const double total = expected_sum(0, threads, call);
      const int wrong = count_wrong(
          got, call * threads, threads, [total](int) { return total; }, first);
      std::cout << "block_sum, " << threads << " threads, call " << call + 1 << ": "
                << threads - wrong << " / " << threads << " threads right"
                << (wrong ? " (first wrong: " + first + ")" : "") << "\n";
      CHECK(wrong == 0);
    }
  }
}

TEST_CASE("ex03: RMSNorm built on block_sum matches the reference", "[ex03]") {
  const KernelEntry kernel = exercise_kernel();
  std::vector<Case> cases = grading::grid_cases(kernel, grading::kGridRows, grading::kGridCols);
  cases.push_back(grading::small_magnitude_case(Op::rmsnorm, 64, 1000));
  Case padded = default_case(Op::rmsnorm, 33, 1025);
  padded.pad = 7;
  cases.push_back(padded);
  grading::Scorecard card = grading::grade(kernel, cases);
  if (card.all_passed()) grading::add_speed(card, kernel, default_case(Op::rmsnorm, 2048, 8192));
  card.print(std::cout);
  CHECK(card.all_passed());
}

TEST_CASE("ex03: rows = 0 launches nothing", "[ex03]") {
  CHECK_NOTHROW(verify(exercise_kernel(), default_case(Op::rmsnorm, 0, 64)));
}

// A few small odd shapes and the reductions on 96 threads, run by the compute-sanitizer tests
// (memcheck, racecheck: block_sum called back to back must not race on its slots).
TEST_CASE("ex03: small odd shapes and back-to-back block sums", "[.sanitize]") {
  for (const auto& [rows, cols] : {std::pair{37, 1029}, std::pair{3, 5}}) {
    const CaseResult result = verify(exercise_kernel(), default_case(Op::rmsnorm, rows, cols));
    INFO(result.describe());
    CHECK(result.passed());
  }
  const std::vector<float> got = ex03_probes::run_block_sum(96, 3);
  std::string first;
  CHECK(count_wrong(
            got, 2 * 96, 96, [](int) { return expected_sum(0, 96, 2); }, first) == 0);
}
