// SPDX-License-Identifier: Apache-2.0
// Known wrong: a head view read as one stride. Each kernel below is a registered kernel that
// declares two-level rows but is handed x without its groups (x_group_rows dropped), so that it
// reads row r at r * x_stride, as a kernel that ignored the second level would: it must fail
// the head-view cases (their gaps are poisoned) where the same kernel, handed the call as it is,
// passes. The forward families (chapter 07's launcher, chapter 09's group of lanes a row) and
// the backward (chapter 08).
#include "normlab_catch.hpp"

#include <iostream>
#include <string>

#include "grading.hpp"
#include "head_view_cases.hpp"
#include "normlab/registry.hpp"

namespace {

using namespace normlab;

KernelEntry read_as_one_stride(const KernelEntry& right) {
  KernelEntry wrong = right;
  wrong.name = "known_wrong_" + right.name + "_head_view_as_one_stride";
  wrong.launch = [launch = right.launch](const NormCall& call, cudaStream_t stream) {
    NormCall flat = call;
    flat.x_group_rows = 0;  // BUG: the tokens' stride dropped, rows read x_stride apart
    flat.x_group_stride = 0;
    launch(flat, stream);
  };
  return wrong;
}

}  // namespace

TEST_CASE("a head view read as one stride fails where the kernel reading it right passes",
          "[head_views][known_wrong]") {
  for (const char* name : {"ch07_rmsnorm", "ch07_layernorm", "ch09_rmsnorm", "ch09_layernorm",
                           "ch08_rmsnorm_backward", "ch08_layernorm_backward"}) {
    const KernelEntry* right = find_kernel(name);
    REQUIRE(right != nullptr);
    REQUIRE(right->can.two_level_rows);
    const std::vector<Case> cases = head_view_cases::cases(right->op);

    const grading::Scorecard control = grading::grade(*right, cases);
    control.print(std::cout);
    REQUIRE(control.all_passed());

    const grading::Scorecard wrong = grading::grade(read_as_one_stride(*right), cases);
    wrong.print(std::cout);
    INFO(name);
    CHECK(wrong.total == control.total);
    // Every case of more than one group (each has a gap after its groups) must fail; a single
    // group reads alike either way.
    int grouped = 0;
    for (const Case& c : cases)
      grouped += right->refusal(c).empty() && c.shape.rows > c.group_rows ? 1 : 0;
    CHECK(grouped > 0);
    CHECK(wrong.total - wrong.passed == grouped);
  }
}
