// SPDX-License-Identifier: Apache-2.0
// Chapter 08's known-wrong backward steps on top of chapter 10's wide backward: on rows past
// chapter 08's widest, the registry's ch10_<op> passes each case, and the same kernel followed
// by one step done wrongly fails exactly the outputs that step rewrites, with everything written
// and nothing past a row. Needs sm_90 (the cluster); skipped, saying so, on an older GPU.
#include "normlab_catch.hpp"

#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

#include "backward_wrong.hpp"
#include "normlab/device.hpp"
#include "normlab/registry.hpp"
#include "normlab/runner.hpp"

namespace {

using namespace normlab;
using known_wrong::BackwardBug;

constexpr Op kOps[] = {Op::rmsnorm_backward, Op::layernorm_backward};

// Rows chapter 08 refuses (RMSNorm past 12288 columns, LayerNorm past 8192), up to the widest
// fp32 row a cluster holds (512 KiB), with enough rows that every cluster of the grid walks
// several of them.
std::vector<Case> wide_cases() {
  return {default_case(Op::rmsnorm_backward, 512, 32768, DType::bf16),
          default_case(Op::layernorm_backward, 256, 65536, DType::bf16),
          default_case(Op::rmsnorm_backward, 64, 131072, DType::f32)};
}

const KernelEntry& ch10_backward(Op op) {
  const KernelEntry* kernel = find_kernel(std::string("ch10_") + name_of(op));
  REQUIRE(kernel != nullptr);
  return *kernel;
}

// What @p kernel says to @p c on an sm_90 GPU, whatever GPU runs the test.
std::string refusal_on_sm90(const KernelEntry& kernel, const Case& c) {
  Requirements needs = requirements_of(c);
  needs.compute_capability = 90;
  return kernel.refusal(needs);
}

// On every wide case: the control passes; after @p bug's step every output it rewrites (of
// @p rewritten, those the case has) fails and every other output passes.
void check_fails(BackwardBug bug, const std::vector<std::string>& rewritten) {
  if (!has_clusters()) {
    WARN("SKIPPED: chapter 10's wide backward needs sm_90, this GPU is sm_"
         << compute_capability());
    std::cout << "SKIPPED: chapter 10's wide backward needs sm_90, this GPU is sm_"
              << compute_capability() << std::endl;
    return;
  }
  for (const Case& c : wide_cases()) {
    Workspace work(c);
    const CaseResult control = work.verify(ch10_backward(c.op));
    INFO(control.describe());
    REQUIRE(control.passed());  // chapter 10's kernel is right on this very case
    const CaseResult result = work.verify(known_wrong::cluster_backward(c.op, bug));
    std::cout << result.describe();
    INFO(result.describe());
    CHECK_FALSE(result.passed());
    int rewritten_seen = 0;
    for (const CompareReport& report : result.reports) {
      const bool wrong = std::ranges::find(rewritten, report.what) != rewritten.end();
      rewritten_seen += wrong ? 1 : 0;
      INFO(report.what);
      CHECK(report.passed() != wrong);
      // Wrong values, not a broken kernel: everything written, nothing past a row.
      CHECK(report.unwritten == 0);
      CHECK(report.guard_overwrites == 0);
    }
    CHECK(rewritten_seen > 0);
  }
}

}  // namespace

// Why a bf16 running sum must fail here. Each term of dweight[c] (dy * x_hat) and of dbias[c] (dy)
// has variance 1 here (unit-normal dy and rows), so after r rows a column's sum S is about sqrt(r).
// The harness's bar for a sum over R rows (tolerance_for, common/src/compare.cpp) is
// 1e-5 * R + rel * |S|, rel 1e-2 for bf16 parameters and 1e-4 for fp32. A bf16 running sum is
// rounded to 8 significant bits at every row: an error of up to 2^-8 of the sum, about
// 0.0016 * sqrt(r) RMS at row r, so about 1.1e-3 * R in all (RMS, the roundings independent).
// bf16 512 rows: 0.58 against a bar of 0.23 at |S| = sqrt(512); bf16 256 rows (dweight and dbias
// alike): 0.29 against 0.16. Most of the 32768 or 65536 columns fail, one suffices. fp32 64 rows:
// the result is a bf16 number, at least 2^-7 from the next where |S| >= 1 (most columns, S ~ 8),
// against a bar of about 1.4e-3: even the last rounding alone fails most of the 131072 columns.
TEST_CASE("chapter 10's wide backward with dweight accumulated in bf16 fails",
          "[ch10][known_wrong]") {
  check_fails(BackwardBug::bf16_dweight, {"dweight", "dbias"});
}

// The cluster kernel leaves one partial row a cluster; cluster 0's alone misses the rows of every
// other: a sum of about R * (1 - 1 / clusters) unit terms, off by sqrt(R / 2) or more, far past
// the bar above, wherever the grid has two clusters or more: each case has 64 rows or more, and
// the GPU holds several clusters at once (of 8 blocks of 256 threads, two an SM, for the bf16
// cases; of 16 blocks of 512, one an SM, for fp32).
TEST_CASE("chapter 10's wide backward with dweight from one cluster's partial row fails",
          "[ch10][known_wrong]") {
  check_fails(BackwardBug::one_partial, {"dweight"});
}

// dx without its x_hat * mean(g * x_hat) term: on a row of unit-normal g and x_hat that mean is
// about 1 / sqrt(cols) (0.006 to 0.003 here), so a row's largest x_hat (about 4.5 among 32768
// columns or more) lose 0.012 to 0.025 where the mean is typical, twice that where it is twice as
// large: past bf16's bar of 1e-2 + 1e-2 * |dx| on a good share of the hundreds of rows, and some
// 60 times past fp32's 1e-4 + 1e-4 * |dx| on all but the rare row whose mean nearly vanishes. One
// element suffices.
TEST_CASE("chapter 10's wide backward with dx lacking the projection fails",
          "[ch10][known_wrong]") {
  check_fails(BackwardBug::no_projection, {"dx"});
}

TEST_CASE("chapter 10's wrong backward takes its base's calls but for what its steps cannot",
          "[ch10][known_wrong]") {
  for (Op op : kOps) {
    const KernelEntry& base = ch10_backward(op);
    CHECK_THROWS_WITH(known_wrong::cluster_backward(op, BackwardBug::racy_atomicless),
                      Catch::Contains("'bug'"));
    for (BackwardBug bug :
         {BackwardBug::no_projection, BackwardBug::bf16_dweight, BackwardBug::one_partial}) {
      const KernelEntry wrong = known_wrong::cluster_backward(op, bug);
      CHECK(wrong.can.min_compute_capability == 90);
      for (const Case& c : wide_cases()) {
        if (c.op != op) continue;
        CHECK(refusal_on_sm90(wrong, c).empty());
        CHECK(wrong.scratch_bytes(c.shape) == base.scratch_bytes(c.shape));
      }
      const DType bf16 = DType::bf16;
      CHECK(refusal_on_sm90(wrong, default_case(op, 2, 262144, bf16)).empty());
      CHECK(refusal_on_sm90(wrong, default_case(op, 2, 262152, bf16)) ==
            "rows wider than 524288 bytes");
      CHECK(refusal_on_sm90(wrong, default_case(op, 2, 32768, DType::f16)) == "no fp16 tensors");
      Case fp32_parameters = default_case(op, 2, 32768, bf16);
      fp32_parameters.shape.weight_dtype = DType::f32;
      CHECK(refusal_on_sm90(wrong, fp32_parameters) == "no fp32 parameters with bf16 tensors");
      Case in_place = default_case(op, 2, 32768, bf16);
      in_place.in_place = true;
      CHECK(refusal_on_sm90(wrong, in_place) == "not in place");
      Requirements older = requirements_of(default_case(op, 2, 32768, bf16));
      older.compute_capability = 80;
      CHECK(wrong.refusal(older) == "needs sm_90 or newer, this GPU is sm_80");
      // Called directly, its launcher refuses the same by name, before anything is launched.
      NormCall call{.op = op, .dtype = DType::f16, .weight_dtype = DType::f16, .rows = 2};
      CHECK_THROWS_WITH(wrong.launch(call, nullptr), Catch::Contains("'dtype'"));
      call.dtype = bf16;
      CHECK_THROWS_WITH(wrong.launch(call, nullptr), Catch::Contains("'weight_dtype'"));
      call.weight_dtype = bf16;
      float row[1];
      call.dy = row;
      call.dx = row;
      CHECK_THROWS_WITH(wrong.launch(call, nullptr), Catch::Contains("'dx'"));
    }
  }
}
