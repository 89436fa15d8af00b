// The tour's table on a small problem: every registered kernel verifies, speed-ups are filled.
#include "normlab_catch.hpp"

#include "normlab/kernel.hpp"
#include "normlab/program.hpp"
#include "registry.hpp"

TEST_CASE("the tour verifies every registered kernel and relates it to the baseline", "[tour]") {
  normlab::ProgramOptions options;
  options.rows = 96;
  options.cols = 1000;
  const auto kernels = normlab::select_kernels(normlab::kernel_registry(), options);
  REQUIRE(kernels.size() == normlab::kernel_registry().size());
  const auto rows = normlab::run_table(kernels, options, {.warmup = 1, .repetitions = 3});
  for (const auto& row : rows) {
    INFO(row.kernel->name << "\n" << row.failure);
    CHECK(row.passed);
    CHECK(row.measurement.gbps > 0.0);
    if (row.kernel->op == normlab::Op::rmsnorm && !row.kernel->baseline) {
      CHECK(row.speedup_vs_baseline.has_value());
    }
  }
}
