// SPDX-License-Identifier: Apache-2.0
// The tour's table on a small problem: every registered kernel verifies, speed-ups are filled,
// and "x previous chapter" relates each kernel to the fastest passing kernel of its op from an
// earlier chapter.
#include "normlab_catch.hpp"

#include <algorithm>
#include <optional>

#include "normlab/kernel.hpp"
#include "normlab/program.hpp"
#include "normlab/registry.hpp"

TEST_CASE("the tour verifies every registered kernel and relates it to the baseline", "[tour]") {
  normlab::ProgramOptions options;
  options.rows = 96;
  options.cols = 1000;
  const auto selection = normlab::select_kernels(normlab::kernel_registry(), options);
  REQUIRE(selection.refused.empty());
  REQUIRE(selection.runnable.size() == normlab::kernel_registry().size());
  const auto rows =
      normlab::run_table(selection.runnable, options, {.warmup = 1, .repetitions = 3});
  for (const auto& row : rows) {
    INFO(row.kernel->name << "\n" << row.failure);
    CHECK(row.passed);
    CHECK(row.measurement.gbps > 0.0);
    if (row.kernel->op == normlab::Op::rmsnorm && !row.kernel->baseline) {
      CHECK(row.speedup_vs_baseline.has_value());
    }
    // The fastest passing kernel of the op from an earlier chapter, found here by hand.
    std::optional<double> fastest_earlier_ms;
    for (const auto& other : rows) {
      if (other.passed && other.kernel->op == row.kernel->op &&
          other.kernel->chapter < row.kernel->chapter) {
        fastest_earlier_ms =
            std::min(fastest_earlier_ms.value_or(other.measurement.timing.median_ms),
                     other.measurement.timing.median_ms);
      }
    }
    REQUIRE(row.speedup_vs_previous.has_value() == fastest_earlier_ms.has_value());
    if (fastest_earlier_ms) {
      CHECK(*row.speedup_vs_previous ==
            Approx(*fastest_earlier_ms / row.measurement.timing.median_ms));
    }
  }
}

TEST_CASE("the tour with --op runs only that op's kernels", "[tour]") {
  normlab::ProgramOptions options;
  options.rows = 64;
  options.cols = 4096;
  options.op = normlab::Op::layernorm;
  const auto selection = normlab::select_kernels(normlab::kernel_registry(), options);
  REQUIRE(selection.runnable.size() >= 3);  // chapter 05's two and chapter 07's
  const auto rows =
      normlab::run_table(selection.runnable, options, {.warmup = 0, .repetitions = 1});
  for (const auto& row : rows) {
    INFO(row.kernel->name << "\n" << row.failure);
    CHECK(row.kernel->op == normlab::Op::layernorm);
    CHECK(row.passed);  // normal inputs: even the sum of squares passes
  }
}
