// SPDX-License-Identifier: Apache-2.0
// normlab::run on the GPU: a case through every rule of the dispatcher's table, run as a user
// calls it (run() on the Workspace's NormCall) and compared with the float64 reference; a call
// run() refuses launches nothing.
#include "normlab_catch.hpp"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "dispatcher.hpp"
#include "normlab/buffer.hpp"
#include "normlab/device.hpp"
#include "normlab/normlab.hpp"
#include "normlab/runner.hpp"
#include "tuned_table.hpp"

namespace {

using namespace normlab;

int current_device() {
  int device = 0;
  NORMLAB_CHECK(cudaGetDevice(&device));
  return device;
}

// What run() plans for @p c: with this GPU's tuned table, when there is one.
Plan tuned_plan(const Case& c) {
  return dispatch::plan(c, 0, dispatch::tuned_table_of_device(current_device()));
}

// normlab::run as a registry entry, so that the Workspace verifies it like any kernel: it takes
// every variant, and its scratch is what the dispatcher plans for the case.
KernelEntry through_run(const Case& c) {
  return {.name = "normlab::run",
          .summary = "the dispatcher",
          .op = c.op,
          .can = {.dtypes = {DType::f32, DType::f16, DType::bf16},
                  .fp32_parameters = true,
                  .optional_parameters = true,
                  .weight_plus_one = true,
                  .in_place = true,
                  .writes_statistics = true,
                  .residual_gradient = true},
          .launch = [](const NormCall& call, cudaStream_t stream) { run(call, stream); },
          .scratch_bytes = [c](const Shape&) { return tuned_plan(c).scratch_bytes; }};
}

struct Expected {
  Case problem;
  const char* kernel;  // what the dispatcher must choose, so that every rule is run
};

Case with(Case c, std::int64_t misalign, std::int64_t pad, bool in_place) {
  c.misalign = misalign;
  c.pad = pad;
  c.in_place = in_place;
  c.statistics = !is_backward(c.op);
  c.residual_gradient = is_backward(c.op);
  return c;
}

std::vector<Expected> cases() {
  Case narrow = default_case(Op::rmsnorm, 257, 576, DType::bf16);
  narrow.shape.weight_dtype = DType::f32;
  narrow.weight_plus_one = true;
  Case few_wide = default_case(Op::add_layernorm, 3, 8200, DType::f16);
  return {
      {with(narrow, 1, 0, true), "ch09_rmsnorm"},
      {with(default_case(Op::layernorm, 1000, 1024, DType::f32), 0, 4, false), "ch09_layernorm"},
      {with(default_case(Op::add_rmsnorm, 64, 4096, DType::bf16), 0, 0, false), "ch09_add_rmsnorm"},
      {with(few_wide, 3, 5, true), "ch09_add_layernorm"},
      {with(default_case(Op::add_rmsnorm, 65, 4096, DType::bf16), 0, 0, true), "ch09_add_rmsnorm"},
      {with(default_case(Op::add_rmsnorm, 65, 4096, DType::bf16), 1, 0, true), "ch07_add_rmsnorm"},
      {with(default_case(Op::layernorm, 300, 1025, DType::bf16), 2, 3, false), "ch07_layernorm"},
      {with(default_case(Op::rmsnorm, 65, 30000, DType::bf16), 0, 0, false),
       has_clusters() ? "ch10_rmsnorm_cluster" : "ch07_rmsnorm"},
      {with(default_case(Op::add_layernorm, 200, 30000, DType::f16), 0, 8, true),
       has_clusters() ? "ch10_add_layernorm_cluster" : "ch07_add_layernorm"},
      {with(default_case(Op::rmsnorm, 65, 30000, DType::bf16), 1, 0, false), "ch07_rmsnorm"},
      {with(default_case(Op::add_rmsnorm, 65, 262144, DType::f32), 0, 4, true), "ch10_add_rmsnorm"},
      {with(default_case(Op::rmsnorm, 2, 30000, DType::bf16), 0, 0, false), "ch10_rmsnorm"},
      {with(default_case(Op::add_layernorm, 3, 70001, DType::bf16), 1, 3, true),
       "ch10_add_layernorm"},
      {with(default_case(Op::rmsnorm_backward, 300, 1000, DType::bf16), 1, 0, true),
       "ch08_rmsnorm_backward"},
      {with(default_case(Op::layernorm_backward, 100, 2048, DType::f32), 0, 7, false),
       "ch08_layernorm_backward"},
  };
}

// Bytes of @p buffer that are no longer the poison byte.
std::size_t written_bytes(const DeviceBuffer<unsigned char>& buffer) {
  std::vector<unsigned char> bytes(buffer.bytes());
  buffer.download(bytes.data());
  std::size_t written = 0;
  for (unsigned char b : bytes)
    written += b != kPoisonByte;
  return written;
}

}  // namespace

TEST_CASE("run() takes a case through every rule and matches the float64 reference", "[dispatch]") {
  for (const Expected& e : cases()) {
    INFO(e.problem.describe());
    const Plan plan = dispatch::plan(e.problem, 0);
    CHECK(plan.kernel->name == e.kernel);
    const CaseResult result = Workspace(e.problem).verify(through_run(e.problem));
    INFO(result.describe());
    CHECK(result.passed());
  }
}

TEST_CASE("run() with this GPU's tuned table matches float64 on every layout", "[dispatch]") {
  // Off-grid widths and row counts, misaligned (and eps = 0), strided, in place, fp32
  // parameters, (1 + w):
  // whatever the nearest grid point's fastest kernel is, the one that runs must take the call.
  const dispatch::TunedTable* table = dispatch::tuned_table_of_device(current_device());
  INFO((table != nullptr ? table->name : std::string("no tuned table for this GPU")));
  int tuned = 0;
  for (Op op : {Op::rmsnorm, Op::layernorm, Op::add_rmsnorm, Op::add_layernorm}) {
    for (DType dtype : {DType::bf16, DType::f32}) {
      for (std::int64_t cols : {200, 576, 1000, 4096, 4100, 12288, 30000}) {
        for (std::int64_t rows : {1, 3, 300}) {
          for (int layout = 0; layout < 4; ++layout) {
            Case c = default_case(op, rows, cols, dtype);
            c.shape.weight_dtype = layout == 3 ? DType::f32 : dtype;
            c.weight_plus_one = layout == 2;
            c = with(c, layout == 1 ? 1 : 0, layout == 2 ? 5 : 0, layout == 3);
            if (layout == 1) c.eps = 0.0f;  // as PyTorch takes it
            INFO(c.describe());
            const Plan plan = tuned_plan(c);
            INFO(plan.kernel->name << ": " << plan.why);
            tuned += plan.why.starts_with("tuned table");
            const CaseResult result = Workspace(c).verify(through_run(c));
            INFO(result.describe());
            CHECK(result.passed());
          }
        }
      }
    }
  }
  // A GPU with a table: most of these calls are near one of its grid points.
  if (table != nullptr) CHECK(tuned > 0);
}

TEST_CASE("a kept plan's launch, sized once, runs every call of its layout", "[dispatch]") {
  // Two workspaces of one layout are alive at once, so the second and third calls find the plan
  // kept for the first with other tensors: each must match float64.
  for (const Case& c : {default_case(Op::rmsnorm, 8192, 768, DType::bf16),
                        default_case(Op::layernorm, 3, 4096, DType::bf16),
                        with(default_case(Op::add_rmsnorm, 300, 1000, DType::f16), 1, 0, true),
                        default_case(Op::add_layernorm, 64, 2048, DType::f32)}) {
    INFO(c.describe());
    Workspace first(c);
    Workspace second(c);
    for (Workspace* w : {&first, &second, &first}) {
      const CaseResult result = w->verify(through_run(c));
      INFO(result.describe());
      CHECK(result.passed());
    }
  }
}

TEST_CASE("a call run() refuses launches nothing", "[dispatch]") {
  constexpr std::int64_t kRows = 300, kCols = 1000;
  const std::size_t matrix = kRows * kCols * sizeof(float);
  DeviceBuffer<unsigned char> x(matrix), dy(matrix), weight(kCols * sizeof(float)),
      rstd(kRows * sizeof(float)), dx(matrix), dweight(kCols * sizeof(float));
  for (const auto* input : {&x, &dy, &weight, &rstd})
    NORMLAB_CHECK(cudaMemset(input->data(), 0, input->bytes()));
  dx.poison();
  dweight.poison();
  NormCall call{.op = Op::rmsnorm_backward, .rows = kRows, .cols = kCols};
  call.x = x.data();
  call.x_stride = call.dy_stride = call.dx_stride = kCols;
  call.dy = dy.data();
  call.dx = dx.data();
  call.weight = weight.data();
  call.dweight = dweight.data();
  call.saved_rstd = reinterpret_cast<const float*>(rstd.data());
  // Chapter 08's deterministic kernel needs scratch: none, too little, or a malformed call.
  const std::size_t needed = plan(call).scratch_bytes;
  REQUIRE(needed > 0);
  CHECK_THROWS_WITH(run(call), Catch::Contains("'scratch'"));
  DeviceBuffer<unsigned char> scratch(needed);
  call.scratch = scratch.data();
  call.scratch_bytes = needed - 1;
  CHECK_THROWS_WITH(run(call), Catch::Contains("'scratch_bytes'"));
  call.scratch_bytes = needed;
  call.dy = nullptr;
  CHECK_THROWS_WITH(run(call), Catch::Contains("'dy'"));
  NORMLAB_CHECK(cudaDeviceSynchronize());
  CHECK(cudaGetLastError() == cudaSuccess);
  CHECK(written_bytes(dx) == 0);
  CHECK(written_bytes(dweight) == 0);
  // The same call, complete, runs and writes them (zeros from zero inputs).
  call.dy = dy.data();
  run(call);
  NORMLAB_CHECK(cudaDeviceSynchronize());
  CHECK(written_bytes(dx) == dx.bytes());
  CHECK(written_bytes(dweight) == dweight.bytes());
}
