// SPDX-License-Identifier: Apache-2.0
/// @file grading.hpp
/// @brief Grading: run a kernel over a grid of cases and print a scorecard. Shared by the
/// chapter tests, the exercise graders and the known-wrong kernel tests.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "normlab/kernel.hpp"
#include "normlab/runner.hpp"

namespace normlab::grading {

/// The rows and cols every ladder grader covers (cols capped by the kernel's max_cols).
inline const std::vector<std::int64_t> kGridRows{1, 7, 1024, 4097};
inline const std::vector<std::int64_t> kGridCols{1,    31,   32,   33,   1023,
                                                 1024, 1025, 4096, 8192, 12288};

/// Every rows x cols pair with normal inputs (seed varies per case), skipping the cases the
/// kernel refuses (printed as SKIP lines with the reason and their count).
std::vector<Case> grid_cases(const KernelEntry& kernel, const std::vector<std::int64_t>& rows,
                             const std::vector<std::int64_t>& cols);

/// Rows of magnitude 1e-3, so that mean(x^2) ~ 1e-6 is smaller than eps = 1e-5: a kernel that
/// puts eps outside the square root, or adds it to the sum instead of the mean, fails here.
Case small_magnitude_case(Op op, std::int64_t rows, std::int64_t cols);

/// Rows near @p mean with standard deviation 1 (LayerNorm's hard case: E[x^2] - E[x]^2).
Case shifted_case(Op op, std::int64_t rows, std::int64_t cols, double mean);

/// What grading found.
struct Scorecard {
  std::string kernel;
  int total = 0;  ///< cases run
  int passed = 0;
  std::map<std::string, int> refused;  ///< cases the kernel refused, by reason (not run)
  std::vector<CaseResult> failures;    ///< every failed case (the first few are printed)
  std::optional<Measurement> speed;    ///< % of copy roof on a reference shape, when timed
  std::string speed_case;

  bool all_passed() const noexcept { return total > 0 && passed == total; }
  /// Counts @p result among the cases run: passed, or kept among the failures.
  void record(CaseResult result);
  /// The failures' case descriptions, one per line (for checking which case caught a bug).
  std::string failed_cases() const;
  void print(std::ostream& out) const;
};

/// Verifies @p kernel on every case of @p cases it takes; a case it refuses is not run but
/// counted by reason, and printed as a SKIP line by Scorecard::print.
Scorecard grade(const KernelEntry& kernel, const std::vector<Case>& cases);

/// A scorecard named @p kernel of @p grade_case(c) (a CaseResult) for every c of @p cases: for
/// graders whose cases are their own, not the registry's (ex11, ex12).
template <typename Cases, typename Grade>
Scorecard grade_each(std::string kernel, const Cases& cases, Grade&& grade_case) {
  Scorecard card;
  card.kernel = std::move(kernel);
  for (const auto& c : cases)
    card.record(grade_case(c));
  return card;
}
/// Times @p kernel on @p timed_case and records its % of the copy roof on @p card.
void add_speed(Scorecard& card, const KernelEntry& kernel, const Case& timed_case);
/// How many operations @p enqueue puts on a stream: it runs once under a CUDA graph capture,
/// and the graph's nodes are counted (a call with rows = 0 must launch nothing).
std::size_t operations_enqueued(const std::function<void(cudaStream_t)>& enqueue);

}  // namespace normlab::grading
