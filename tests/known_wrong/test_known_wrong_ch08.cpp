// SPDX-License-Identifier: Apache-2.0
// Chapter 08's known-wrong kernels: each runs the chapter's default kernel and then redoes one
// step wrongly; the harness must fail exactly the output that step writes, on a problem where
// the chapter's kernel itself passes.
#include "normlab_catch.hpp"

#include <iostream>
#include <string>

#include "backward_wrong.hpp"
#include "normlab/registry.hpp"
#include "normlab/runner.hpp"

namespace {

using namespace normlab;
using known_wrong::BackwardBug;

bool passed(const CaseResult& result, const std::string& what) {
  for (const CompareReport& r : result.reports) {
    if (r.what == what) return r.passed();
  }
  FAIL("no report for " << what);
  return false;
}

// 4097 rows: many rows per block of the persistent grid, and thousands of blocks racing.
void check_fails(BackwardBug bug, const std::string& wrong_output) {
  for (Op op : {Op::rmsnorm_backward, Op::layernorm_backward}) {
    for (DType dtype : {DType::f32, DType::bf16}) {
      const Case c = default_case(op, 4097, 1024, dtype);
      const CaseResult control = verify(*default_kernel(op), c);
      INFO(control.describe());
      REQUIRE(control.passed());  // the chapter's kernel is right on this very case
      const CaseResult result = verify(known_wrong::backward(op, bug), c);
      std::cout << result.describe();
      CHECK_FALSE(result.passed());
      CHECK_FALSE(passed(result, wrong_output));
      // Wrong values, not a broken kernel: everything written, nothing past a row.
      for (const CompareReport& report : result.reports) {
        CHECK(report.unwritten == 0);
        CHECK(report.guard_overwrites == 0);
      }
    }
  }
}

}  // namespace

TEST_CASE("dx without the x_hat * mean(g * x_hat) term fails", "[ch08][known_wrong]") {
  check_fails(BackwardBug::no_projection, "dx");
}

TEST_CASE("dweight accumulated in bf16 fails", "[ch08][known_wrong]") {
  check_fails(BackwardBug::bf16_dweight, "dweight");
}

TEST_CASE("dweight from the partial row of one block only fails", "[ch08][known_wrong]") {
  check_fails(BackwardBug::one_partial, "dweight");
}

TEST_CASE("a non-atomic += across blocks fails", "[ch08][known_wrong]") {
  check_fails(BackwardBug::racy_atomicless, "dweight");
}
