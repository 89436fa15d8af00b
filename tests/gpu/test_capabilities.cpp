// SPDX-License-Identifier: Apache-2.0
// Every registered kernel, and the test-only backward kernels, on ragged shapes with each
// awkward variant: the kernel either PASSES or is REFUSED naming what it lacks. None FAILS, and
// a kernel that declares a variant is run on it: a declaration a kernel cannot honour fails
// here. Refusals are printed as SKIP lines and counted.
#include "normlab_catch.hpp"

#include <algorithm>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "backward_kernels.hpp"
#include "normlab/registry.hpp"
#include "normlab/runner.hpp"

using namespace normlab;

namespace {

struct Variant {
  std::string name;
  Case c;
};

// The kernel's own first dtype on a ragged shape it can take: 37 rows of 1031 columns, or the
// nearest width its alignment and widest row allow.
Case base_case(const KernelEntry& kernel) {
  const DType dtype = kernel.can.dtypes.front();
  std::int64_t cols = 1031;
  if (kernel.can.max_cols != 0) cols = std::min(cols, kernel.can.max_cols);
  const auto element = static_cast<std::int64_t>(size_of(dtype));
  if (kernel.can.max_row_bytes != 0) cols = std::min(cols, kernel.can.max_row_bytes / element);
  if (kernel.can.alignment_bytes > element) {
    const std::int64_t unit = kernel.can.alignment_bytes / element;  // elements per aligned unit
    cols = std::max(unit, cols / unit * unit);
  }
  std::int64_t rows = 37;
  if (kernel.can.max_rows != 0) rows = std::min(rows, kernel.can.max_rows);
  Case c = default_case(kernel.op, rows, cols, dtype);
  c.input.seed = 41;
  return c;
}

std::vector<Variant> variants_of(const KernelEntry& kernel) {
  const Case base = base_case(kernel);
  std::vector<Variant> out{{"base", base}};
  Case gemma = base;
  gemma.weight_plus_one = true;
  out.push_back({"(1 + w)", gemma});
  Case in_place = base;
  in_place.in_place = true;
  out.push_back({"in place", in_place});
  Case misaligned = base;
  misaligned.misalign = 1;
  out.push_back({"misalign 1", misaligned});
  Case strided = base;
  strided.pad = 3;
  out.push_back({"row stride cols + 3", strided});
  Case fp32_weights = base;  // refused with "no bf16 tensors" by a kernel without bf16
  fp32_weights.shape.dtype = DType::bf16;
  fp32_weights.shape.weight_dtype = DType::f32;
  out.push_back({"fp32 weights with bf16 x", fp32_weights});
  Case narrow_weights = base;  // refused with "no fp32 tensors" by a kernel without fp32
  narrow_weights.shape.dtype = DType::f32;
  narrow_weights.shape.weight_dtype = DType::bf16;
  out.push_back({"bf16 weights with fp32 x", narrow_weights});
  if (kernel.op != Op::copy && !takes_bias(kernel.op)) {
    Case bias = base;
    bias.shape.bias = true;
    out.push_back({"RMSNorm with a bias", bias});
  }
  if (kernel.op != Op::copy) {
    Case head_view = base;  // x's rows in groups of 5, a gap after each (poisoned)
    head_view.group_rows = 5;
    head_view.group_gap = 2 * base.shape.cols;
    out.push_back({"head view (two-level rows of x)", head_view});
  }
  if (is_backward(kernel.op)) {
    Case fused = base;
    fused.residual_gradient = true;
    out.push_back({"dresidual", fused});
    Case other_dy = base;
    other_dy.shape.dy_dtype = base.shape.dtype == DType::f32 ? DType::bf16 : DType::f32;
    out.push_back({"dy of another dtype", other_dy});
  } else if (kernel.op != Op::copy) {
    Case statistics = base;
    statistics.statistics = true;
    out.push_back({"statistics", statistics});
  }
  return out;
}

struct Tally {
  int passed = 0, refused = 0, failed = 0;
};

void run_every_variant(const KernelEntry& kernel, Tally& tally) {
  for (const Variant& v : variants_of(kernel)) {
    const std::string refusal = kernel.refusal(v.c);
    INFO(kernel.name << " / " << v.name);
    if (!refusal.empty()) {
      std::cout << "SKIP " << kernel.name << " / " << v.name << ": refused: " << refusal << "\n";
      ++tally.refused;
      // The kernel's own dtype on a shape it declares must always run.
      CHECK(v.name != "base");
      continue;
    }
    // A launcher that throws on a case its entry accepts has declared what it cannot do: a
    // failure like a wrong answer, reported and counted without stopping the other kernels.
    std::string failure;
    try {
      const CaseResult result = verify(kernel, v.c);
      if (!result.passed()) failure = result.describe();
    } catch (const std::exception& e) {
      failure = std::string("threw: ") + e.what() + "\n";
    }
    if (failure.empty()) {
      std::cout << "PASS " << kernel.name << " / " << v.name << "\n";
      ++tally.passed;
    } else {
      std::cout << "FAIL " << kernel.name << " / " << v.name << " (accepted, then wrong)\n"
                << failure;
      ++tally.failed;
    }
    CHECK(failure.empty());
  }
}

}  // namespace

TEST_CASE("every kernel passes each variant it declares and is refused by name otherwise",
          "[capabilities]") {
  Tally tally;
  std::vector<KernelEntry> kernels = kernel_registry();
  bool registered_backward[2] = {false, false};
  for (const KernelEntry& kernel : kernels) {
    if (kernel.op == Op::rmsnorm_backward) registered_backward[0] = true;
    if (kernel.op == Op::layernorm_backward) registered_backward[1] = true;
  }
  // Until a chapter registers a backward kernel, the test-only ones carry the backward cases.
  if (!registered_backward[0]) kernels.push_back(test_backward::entry(Op::rmsnorm_backward));
  if (!registered_backward[1]) kernels.push_back(test_backward::entry(Op::layernorm_backward));
  for (const KernelEntry& kernel : kernels)
    run_every_variant(kernel, tally);
  std::cout << "capabilities: " << tally.passed << " variants passed, " << tally.refused
            << " refused (SKIP above, with the reason), " << tally.failed << " failed, over "
            << kernels.size() << " kernels\n";
  CHECK(tally.failed == 0);
  CHECK(tally.passed >= static_cast<int>(kernels.size()));  // at least every base case ran
}
