// SPDX-License-Identifier: Apache-2.0
// Head views (issue 52, point 3): x's rows in two levels, as q = qkv[:, :H, :] of a fused
// projection. Every registered kernel that declares Capabilities::two_level_rows, and
// normlab::run, against the float64 reference on ragged head views whose gaps are poisoned;
// every one that does not, refused by name.
#include "normlab_catch.hpp"

#include <iostream>
#include <string>

#include "dispatcher.hpp"
#include "grading.hpp"
#include "head_view_cases.hpp"
#include "normlab/normlab.hpp"
#include "normlab/registry.hpp"

namespace {

using namespace normlab;

constexpr Op kOps[] = {Op::rmsnorm, Op::layernorm, Op::rmsnorm_backward, Op::layernorm_backward};

}  // namespace

TEST_CASE("every kernel that declares two-level rows normalises head views right", "[head_views]") {
  for (const KernelEntry& kernel : kernel_registry()) {
    // Add + norm entries share their chapter's capabilities but refuse groups by name (x and the
    // residual one stride a row): nothing of theirs to grade here.
    if (!kernel.can.two_level_rows || is_add(kernel.op)) continue;
    const grading::Scorecard card = grading::grade(kernel, head_view_cases::cases(kernel.op));
    card.print(std::cout);
    INFO(kernel.name << " failed: " << card.failed_cases());
    CHECK(card.passed == card.total);
    // Every kernel the dispatcher names runs some head view (refusing them all would check
    // nothing); chapter 09's configurations each take the widths they hold.
    if (kernel.name.find('@') == std::string::npos) CHECK(card.total > 0);
  }
}

TEST_CASE("normlab::run normalises head views right, through every kernel it picks",
          "[head_views][api]") {
  for (Op op : kOps) {
    for (const Case& c : head_view_cases::cases(op)) {
      const Plan plan = dispatch::plan(c, 0, dispatch::tuned_table_of_current_device());
      KernelEntry through_run{
          .name = "normlab::run (" + plan.kernel->name + ")",
          .op = op,
          .can = {.dtypes = {DType::f32, DType::f16, DType::bf16},
                  .fp32_parameters = true,
                  .other_dy_dtype = true,
                  .optional_parameters = true,
                  .weight_plus_one = true,
                  .two_level_rows = true,
                  .writes_statistics = true,
                  .residual_gradient = true},
          .launch = [](const NormCall& call, cudaStream_t stream) { run(call, stream); },
          .scratch_bytes = [&plan](const Shape&) { return plan.scratch_bytes; }};
      const CaseResult result = verify(through_run, c);
      INFO(result.describe());
      CHECK(result.passed());
    }
  }
}
