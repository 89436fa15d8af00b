// SPDX-License-Identifier: Apache-2.0
#include "grading.hpp"

#include <cstdio>
#include <iostream>
#include <map>
#include <sstream>

#include "normlab/check.hpp"

namespace normlab::grading {

std::vector<Case> grid_cases(const KernelEntry& kernel, const std::vector<std::int64_t>& rows,
                             const std::vector<std::int64_t>& cols) {
  std::vector<Case> cases;
  std::map<std::string, int> refused;  // reason -> cases
  std::uint64_t seed = 100;
  for (std::int64_t m : rows) {
    for (std::int64_t n : cols) {
      Case c = default_case(kernel.op, m, n, kernel.can.dtypes.front());
      if (const std::string refusal = kernel.refusal(c); !refusal.empty()) {
        ++refused[refusal];
        continue;
      }
      c.input.seed = seed++;
      cases.push_back(c);
    }
  }
  // The project's skip convention: a refused case is said, with its reason, never dropped
  // silently (and a grade with no case left fails: Scorecard::all_passed needs one).
  for (const auto& [reason, count] : refused)
    std::cout << "SKIP " << kernel.name << ": " << count << " grid cases refused: " << reason
              << "\n";
  return cases;
}

Case small_magnitude_case(Op op, std::int64_t rows, std::int64_t cols) {
  Case c = default_case(op, rows, cols);
  c.input = {.distribution = Distribution::normal, .mean = 0.0, .scale = 1e-3, .seed = 7};
  return c;
}

Case shifted_case(Op op, std::int64_t rows, std::int64_t cols, double mean) {
  Case c = default_case(op, rows, cols);
  c.input = {.distribution = Distribution::shifted, .mean = mean, .scale = 1.0, .seed = 11};
  return c;
}

std::string Scorecard::failed_cases() const {
  std::string out;
  for (const CaseResult& f : failures)
    out += f.case_description + "\n";
  return out;
}

void Scorecard::print(std::ostream& out) const {
  constexpr std::size_t kShown = 3;
  out << "== scorecard: " << kernel << " ==\n";
  out << "correctness: " << passed << " / " << total << " cases passed\n";
  for (const auto& [reason, count] : refused)
    out << "SKIP " << count << " cases refused: " << reason << "\n";
  for (std::size_t i = 0; i < failures.size() && i < kShown; ++i)
    out << failures[i].describe();
  if (failures.size() > kShown)
    out << "  ... and " << failures.size() - kShown << " more failed cases\n";
  if (speed) {
    char line[200];
    std::snprintf(line, sizeof line, "speed: %.1f us, %.1f GB/s, %.1f%% of the copy roof on %s\n",
                  speed->timing.median_ms * 1e3, speed->gbps, speed->percent_of_roof,
                  speed_case.c_str());
    out << line;
  }
}

Scorecard grade(const KernelEntry& kernel, const std::vector<Case>& cases) {
  Scorecard card;
  card.kernel = kernel.name;
  for (const Case& c : cases) {
    if (const std::string refusal = kernel.refusal(c); !refusal.empty()) {
      ++card.refused[refusal];
      continue;
    }
    card.record(verify(kernel, c));
  }
  return card;
}

void Scorecard::record(CaseResult result) {
  ++total;
  if (result.passed()) {
    ++passed;
  } else {
    failures.push_back(std::move(result));
  }
}

void add_speed(Scorecard& card, const KernelEntry& kernel, const Case& timed_case) {
  card.speed = measure(kernel, timed_case);
  card.speed_case = timed_case.describe();
}

std::size_t operations_enqueued(const std::function<void(cudaStream_t)>& enqueue) {
  cudaStream_t stream = nullptr;
  NORMLAB_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaGraph_t graph = nullptr;
  NORMLAB_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  enqueue(stream);
  NORMLAB_CHECK(cudaStreamEndCapture(stream, &graph));
  std::size_t nodes = 0;
  NORMLAB_CHECK(cudaGraphGetNodes(graph, nullptr, &nodes));
  NORMLAB_CHECK(cudaGraphDestroy(graph));
  NORMLAB_CHECK(cudaStreamDestroy(stream));
  return nodes;
}

}  // namespace normlab::grading
