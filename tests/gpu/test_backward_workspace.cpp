// SPDX-License-Identifier: Apache-2.0
// The workspace's backward path, proved on the test-only backward kernels before any chapter
// has one: a correct kernel PASSES every variant (dtypes, fp32 weights, (1 + w), no weight, in
// place, strides, misalignment, dresidual), and each deliberately wrong kernel FAILS on the
// output it gets wrong.
#include "normlab_catch.hpp"

#include <iostream>
#include <string>
#include <vector>

#include "backward_kernels.hpp"
#include "normlab/runner.hpp"

using namespace normlab;
using test_backward::Bug;

namespace {

// Ragged rows and columns: neither a multiple of the block size nor of a vector width.
std::vector<Case> variants(Op op, DType dtype) {
  std::vector<Case> cases;
  Case plain = default_case(op, 301, 1031, dtype);
  plain.input.seed = 21;
  cases.push_back(plain);
  Case fp32_weights = plain;
  fp32_weights.shape.weight_dtype = DType::f32;
  cases.push_back(fp32_weights);
  Case gemma = plain;
  gemma.weight_plus_one = true;
  cases.push_back(gemma);
  Case no_parameters = plain;
  no_parameters.shape.weight = false;
  no_parameters.shape.bias = false;
  cases.push_back(no_parameters);
  Case in_place = plain;
  in_place.in_place = true;
  cases.push_back(in_place);
  Case padded = plain;
  padded.pad = 3;
  padded.misalign = 1;
  cases.push_back(padded);
  Case fused = plain;
  fused.residual_gradient = true;
  cases.push_back(fused);
  Case one_row = default_case(op, 1, 4097, dtype);
  cases.push_back(one_row);
  return cases;
}

bool report_passed(const CaseResult& result, const std::string& what) {
  for (const CompareReport& r : result.reports) {
    if (r.what == what) return r.passed();
  }
  FAIL("no report for " << what);
  return false;
}

}  // namespace

TEST_CASE("the workspace passes a correct backward kernel on every variant", "[backward]") {
  for (Op op : {Op::rmsnorm_backward, Op::layernorm_backward}) {
    const KernelEntry kernel = test_backward::entry(op);
    for (DType dtype : {DType::f32, DType::bf16}) {
      for (const Case& c : variants(op, dtype)) {
        REQUIRE(kernel.supports(c));
        const CaseResult result = verify(kernel, c);
        INFO(result.describe());
        CHECK(result.passed());
        // Every gradient the case has was compared.
        const std::size_t expected =
            1 + (c.shape.weight ? 1 : 0) + (c.shape.bias ? 1 : 0);  // dx, dweight, dbias
        CHECK(result.reports.size() == expected);
      }
    }
  }
}

TEST_CASE("the workspace fails a dweight that drops the last row", "[backward]") {
  for (Op op : {Op::rmsnorm_backward, Op::layernorm_backward}) {
    for (DType dtype : {DType::f32, DType::bf16}) {
      const CaseResult result = verify(test_backward::entry(op, Bug::last_row_dropped),
                                       default_case(op, 301, 1031, dtype));
      std::cout << result.describe();
      CHECK_FALSE(result.passed());
      CHECK_FALSE(report_passed(result, "dweight"));
      CHECK(report_passed(result, "dx"));
      if (op == Op::layernorm_backward) CHECK_FALSE(report_passed(result, "dbias"));
    }
  }
}

TEST_CASE("the workspace fails a dx without the x_hat projection term", "[backward]") {
  for (Op op : {Op::rmsnorm_backward, Op::layernorm_backward}) {
    for (DType dtype : {DType::f32, DType::bf16}) {
      const CaseResult result = verify(test_backward::entry(op, Bug::projection_dropped),
                                       default_case(op, 301, 1031, dtype));
      std::cout << result.describe();
      CHECK_FALSE(report_passed(result, "dx"));
      CHECK(report_passed(result, "dweight"));
    }
  }
}

TEST_CASE("a backward case a kernel cannot take is refused by name", "[backward]") {
  Case c = default_case(Op::rmsnorm_backward, 4, 64, DType::f16);
  CHECK_THROWS_WITH(verify(test_backward::entry(Op::rmsnorm_backward), c),
                    Catch::Contains("no fp16 tensors"));
  c.shape.dtype = c.shape.weight_dtype = DType::f32;
  c.statistics = true;
  CHECK_THROWS_WITH(verify(test_backward::entry(Op::rmsnorm_backward), c),
                    Catch::Contains("statistics"));
}
