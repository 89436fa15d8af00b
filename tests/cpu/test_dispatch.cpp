// SPDX-License-Identifier: Apache-2.0
// The dispatcher without a GPU: each rule of its table on both sides of its boundary, the
// fallback when a rule's kernel refuses, malformed calls refused by the argument's name, and a
// Case planned as the NormCall the Workspace makes of it; the kept plans' key and cache. Calls hold
// stand-in addresses: plan() reads them, never dereferences them.
#include "normlab_catch.hpp"

#include <cmath>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "candidates.hpp"
#include "configs.hpp"
#include "configured_entries.hpp"
#include "dispatcher.hpp"
#include "normlab/normlab.hpp"
#include "normlab/op_tensors.hpp"
#include "normlab/registry.hpp"
#include "plan_cache.hpp"

namespace {

using normlab::Case;
using normlab::DType;
using normlab::KernelEntry;
using normlab::NormCall;
using normlab::Op;
using normlab::Tensor;
namespace dispatch = normlab::dispatch;

constexpr int kHopper = 90;

// A stand-in device address: tensor @p tensor's own 1 MiB region, @p offset bytes in.
void* address(Tensor tensor, std::int64_t offset = 0) {
  const auto base = (static_cast<std::uintptr_t>(tensor) + 1) << 20;
  return reinterpret_cast<void*>(base + static_cast<std::uintptr_t>(offset));
}

// A well-formed call: every tensor of @p op given (weight, LayerNorm's bias, statistics,
// dresidual included; not the RMSNorm ops' optional bias), rows cols elements apart.
NormCall full_call(Op op, std::int64_t rows, std::int64_t cols, DType dtype = DType::bf16) {
  NormCall call{.op = op, .dtype = dtype, .weight_dtype = dtype, .rows = rows, .cols = cols};
  for (const normlab::TensorSpec& spec : normlab::tensors_of(op)) {
    if (spec.presence == normlab::Presence::bias && !normlab::takes_bias(op)) continue;
    normlab::bind(call, spec.tensor, address(spec.tensor), cols);
  }
  return call;
}

// The call the Workspace makes of @p c: every activation misalign elements past its own
// 256-byte allocation, rows cols + pad apart, in place over its input when the case is;
// parameters and statistics at the start of theirs.
NormCall workspace_call(const Case& c) {
  NormCall call = full_call(c.op, c.shape.rows, c.shape.cols, c.shape.dtype);
  const auto element = static_cast<std::int64_t>(normlab::size_of(c.shape.dtype));
  for (const normlab::TensorSpec& spec : normlab::tensors_of(c.op)) {
    if (spec.extent != normlab::Extent::matrix) continue;
    const Tensor home = c.in_place && spec.in_place_over ? *spec.in_place_over : spec.tensor;
    normlab::bind(call, spec.tensor, address(home, c.misalign * element),
                  normlab::activation_stride(c));
  }
  return call;
}

// The decision for @p call on sm_90 without its scratch (chapter 08's needs a GPU to size).
normlab::Plan decided(const NormCall& call,
                      const std::vector<KernelEntry>& kernels = normlab::kernel_registry()) {
  dispatch::validate(call);
  return dispatch::decide(dispatch::facts_of(call, kHopper), kernels);
}

// The entry run() launches for @p plan: chapter 09's dispatcher entry chooses a configuration
// at every launch, so its plan launches the configuration chosen when planning (the one its
// launch text names; chapter 07's launcher for rows wider than the table); any other kernel
// launches itself.
void check_launched(const normlab::Plan& plan, Op op) {
  REQUIRE(plan.launched != nullptr);
  const std::string& name = plan.kernel->name;
  if (name.rfind("ch09_", 0) != 0 || name.find('@') != std::string::npos) {
    CHECK(plan.launched == plan.kernel);
  } else if (plan.launch.find("chapter 07's launcher") != std::string::npos) {
    CHECK(plan.launched->name == std::string("ch07_") + normlab::name_of(op));
  } else {
    CHECK(plan.launched->name == name + "@" + plan.launch.substr(0, plan.launch.find(':')));
  }
}

std::string kernel_for(const NormCall& call) {
  const normlab::Plan plan = decided(call);
  INFO(plan.why << " | " << plan.launch);
  REQUIRE(plan.kernel != nullptr);
  CHECK_FALSE(plan.why.empty());
  check_launched(plan, call.op);
  return plan.kernel->name;
}

void require_refused(const NormCall& call, const std::string& argument) {
  INFO("expecting '" << argument << "' to be named");
  CHECK_THROWS_AS(normlab::plan(call, kHopper), std::invalid_argument);
  CHECK_THROWS_WITH(normlab::plan(call, kHopper), Catch::Contains("'" + argument + "'"));
}

}  // namespace

TEST_CASE("narrow rows go to chapter 09 while its table picks a narrow kernel", "[dispatch]") {
  NormCall call = full_call(Op::rmsnorm, 8192, 768);
  CHECK(kernel_for(call) == "ch09_rmsnorm");
  CHECK_THAT(decided(call).launch,
             Catch::StartsWith("narrow32x3: 256 threads a block, 1024 blocks"));
  CHECK_THAT(decided(call).why, Catch::Contains("narrow rows"));
  // 1024 bf16 columns (128 aligned chunks) are wider than a narrow kernel's group keeps well:
  // chapter 09's block per row, 2 vectors a thread.
  call = full_call(Op::rmsnorm, 8192, 1024);
  CHECK(kernel_for(call) == "ch09_rmsnorm");
  CHECK_THAT(decided(call).launch, Catch::StartsWith("block2_256x4: 64 threads a block"));
  CHECK_THAT(decided(call).why, Catch::Contains("many rows"));
  call.cols = call.x_stride = call.y_stride = 1025;
  CHECK(kernel_for(call) == "ch07_rmsnorm");
  CHECK_THAT(decided(call).why, Catch::Contains("off the 16-byte grid"));
  call.cols = call.x_stride = call.y_stride = 1032;
  CHECK(kernel_for(call) == "ch09_rmsnorm");
  CHECK_THAT(decided(call).launch, Catch::StartsWith("block4_128x6: 64 threads a block"));
  CHECK_THAT(decided(call).why, Catch::Contains("many rows"));
  // Misaligned by one element: a bf16 row of 1024 spans 129 chunks, which narrow32x8_any holds;
  // an fp32 one 257, which no narrow kernel holds, so it is a row for chapter 07.
  call = full_call(Op::layernorm, 8192, 1024);
  call.x = address(Tensor::x, 2);
  call.y = address(Tensor::y, 2);
  CHECK(kernel_for(call) == "ch09_layernorm");
  CHECK_THAT(decided(call).launch, Catch::StartsWith("narrow32x8_any"));
  // Rows that do not all start on the 16-byte grid span one chunk more (chapter 07's count):
  // 1024 bf16 columns 1027 apart, 129 chunks.
  call = full_call(Op::layernorm, 8192, 1024);
  call.x_stride = call.y_stride = 1027;
  CHECK_THAT(decided(call).launch, Catch::StartsWith("narrow32x8_any"));
  call = full_call(Op::layernorm, 8192, 1024, DType::f32);
  CHECK(kernel_for(call) == "ch09_layernorm");
  call.x = address(Tensor::x, 4);
  CHECK(kernel_for(call) == "ch07_layernorm");
}

TEST_CASE("a plan of chapter 09's dispatcher launches the configuration chosen when planning",
          "[dispatch]") {
  // Not chapter 09's dispatcher entry, which would choose again at every launch.
  const normlab::Plan plan = decided(full_call(Op::rmsnorm, 8192, 768));
  REQUIRE(plan.kernel->name == "ch09_rmsnorm");
  REQUIRE(plan.launched != nullptr);
  CHECK(plan.launched->name == "ch09_rmsnorm@narrow32x3");
  // The backward's, chapter 07's and chapter 10's plans launch their own kernel.
  for (const NormCall& call :
       {full_call(Op::rmsnorm_backward, 64, 1024), full_call(Op::layernorm, 8192, 1025),
        full_call(Op::rmsnorm, 1, 65536)}) {
    const normlab::Plan other = decided(call);
    CHECK(other.launched == other.kernel);
  }
}

TEST_CASE("kept plans of a chapter 09 configuration carry its launch, sized once", "[dispatch]") {
  // run() launches a kept plan of a configuration without checking and sizing the call again;
  // a plan that runs chapter 07's or chapter 10's kernel launches its entry.
  const NormCall narrow = full_call(Op::rmsnorm, 8192, 768);
  REQUIRE(dispatch::planned(narrow)->launched->name.find('@') != std::string::npos);
  CHECK(dispatch::planned(narrow)->prepared);
  for (const NormCall& call :
       {full_call(Op::layernorm, 8192, 1025), full_call(Op::rmsnorm, 1, 65536)}) {
    CHECK_FALSE(dispatch::planned(call)->prepared);
  }
  // A configuration whose table refuses the call (block1 holds a vector a thread, up to 1024
  // threads) is never prepared: its entry's launch refuses it by name.
  const int block1 = normlab::kernels::configured::index_of("block1");
  CHECK(normlab::kernels::configured::configured_launcher(full_call(Op::rmsnorm, 4, 4096), block1));
  CHECK_FALSE(
      normlab::kernels::configured::configured_launcher(full_call(Op::rmsnorm, 4, 65536), block1));
}

TEST_CASE("few rows (<= 64) of wide rows go to chapter 09's block, more to its capped blocks",
          "[dispatch]") {
  NormCall call = full_call(Op::add_rmsnorm, 64, 4096);
  CHECK(kernel_for(call) == "ch09_add_rmsnorm");
  CHECK_THAT(decided(call).launch, Catch::StartsWith("block1: 512 threads a block, 64 blocks"));
  CHECK_THAT(decided(call).why, Catch::Contains("few rows"));
  call.rows = 65;
  CHECK(kernel_for(call) == "ch09_add_rmsnorm");
  CHECK_THAT(decided(call).launch, Catch::StartsWith("block2_256x4: 256 threads a block, 65"));
  CHECK_THAT(decided(call).why, Catch::Contains("many rows"));
  call.cols = call.x_stride = call.y_stride = call.residual_stride = call.residual_out_stride =
      8200;
  CHECK(kernel_for(call) == "ch07_add_rmsnorm");
  // 16-bit LayerNorm rows of 1025 to 2048 chunks that whole warps of block4 fill: chapter 09
  // (its table's rule 7); RMSNorm, fp32 and partly filled warps: chapter 07.
  call = full_call(Op::layernorm, 2048, 12288);
  CHECK(kernel_for(call) == "ch09_layernorm");
  CHECK_THAT(decided(call).launch, Catch::StartsWith("block4: 384 threads a block, 2048"));
  CHECK_THAT(decided(call).why, Catch::Contains("many rows"));
  call = full_call(Op::add_layernorm, 2048, 16384, DType::f16);  // rule 6 there: block2
  CHECK(kernel_for(call) == "ch09_add_layernorm");
  call = full_call(Op::layernorm, 2048, 12000);
  CHECK(kernel_for(call) == "ch07_layernorm");
  call = full_call(Op::rmsnorm, 2048, 12288);
  CHECK(kernel_for(call) == "ch07_rmsnorm");
  // 16-bit rows where a 4-vector block fits an SM once: block8_256x2, two an SM (rule 5).
  call = full_call(Op::rmsnorm, 4096, 16384);
  CHECK(kernel_for(call) == "ch09_rmsnorm");
  CHECK_THAT(decided(call).launch, Catch::StartsWith("block8_256x2: 256 threads a block, 4096"));
  call = full_call(Op::add_rmsnorm, 4096, 16384);  // add + norm at 2048 chunks: block2 (rule 6)
  CHECK(kernel_for(call) == "ch09_add_rmsnorm");
  CHECK_THAT(decided(call).launch, Catch::StartsWith("block2: 1024 threads a block, 4096"));
  call = full_call(Op::add_rmsnorm, 4096, 15360);
  CHECK(kernel_for(call) == "ch07_add_rmsnorm");
  call = full_call(Op::layernorm, 8192, 8192, DType::f32);
  CHECK(kernel_for(call) == "ch07_layernorm");
  // Wider than chapter 09's blocks (and chapter 07's registers) hold: chapter 10.
  call = full_call(Op::rmsnorm, 1, 65536);
  CHECK(kernel_for(call) == "ch10_rmsnorm");
  call.rows = 65;
  CHECK(kernel_for(call) == "ch10_rmsnorm_cluster");
  // No rows: nothing to run, still planned (the kernel returns at once).
  call = full_call(Op::layernorm, 0, 4096);
  CHECK(kernel_for(call) == "ch09_layernorm");
}

TEST_CASE("few rows wider than chapter 07's registers hold go to chapter 10", "[dispatch]") {
  // bf16: 3072 chunks of 8 columns on the 16-byte grid, 2048 off it.
  NormCall call = full_call(Op::rmsnorm, 64, 24584);
  CHECK(kernel_for(call) == "ch10_rmsnorm");
  CHECK_THAT(decided(call).why, Catch::Contains("chapter 10"));
  call.rows = 65;  // many such rows: chapter 10's cluster (rows on the grid)
  CHECK(kernel_for(call) == "ch10_rmsnorm_cluster");
  call = full_call(Op::rmsnorm, 64, 24576);  // chapter 09's block holds it
  CHECK(kernel_for(call) == "ch09_rmsnorm");
  call = full_call(Op::add_layernorm, 2, 65536);
  CHECK(kernel_for(call) == "ch10_add_layernorm");
  call = full_call(Op::layernorm, 16, 16384);  // 2048 chunks: chapter 09's block
  CHECK(kernel_for(call) == "ch09_layernorm");
  call.x = address(Tensor::x, 2);  // 2049 off the grid, more than 2048
  CHECK(kernel_for(call) == "ch10_layernorm");
  // fp32: 4 columns a chunk.
  call = full_call(Op::layernorm, 16, 4194304, DType::f32);
  CHECK(kernel_for(call) == "ch10_layernorm");
  call = full_call(Op::layernorm, 512, 65536, DType::f32);  // many rows: the cluster entry
  CHECK(kernel_for(call) == "ch10_layernorm_cluster");
  // Backward keeps to chapter 08, however wide.
  call = full_call(Op::rmsnorm_backward, 4, 12288, DType::f32);
  CHECK(kernel_for(call) == "ch08_rmsnorm_backward");
}

TEST_CASE("many wide rows on the 16-byte grid go to chapter 10's cluster", "[dispatch]") {
  // Wider than chapter 07's registers hold (3072 chunks: 24576 bf16 or 12288 fp32 columns),
  // more than 64 rows.
  for (Op op : {Op::rmsnorm, Op::layernorm, Op::add_rmsnorm, Op::add_layernorm}) {
    NormCall call = full_call(op, 512, 65536);
    CHECK(kernel_for(call) == std::string("ch10_") + normlab::name_of(op) + "_cluster");
    CHECK_THAT(decided(call).why, Catch::Contains("chapter 10's cluster"));
    call = full_call(op, 512, 65536, DType::f16);
    CHECK(kernel_for(call) == std::string("ch10_") + normlab::name_of(op) + "_cluster");
    call = full_call(op, 256, 65536, DType::f32);
    CHECK(kernel_for(call) == std::string("ch10_") + normlab::name_of(op) + "_cluster");
  }
  // fp32 at the boundary: 12289 columns need 3073 chunks, 12288 fit chapter 07's registers.
  NormCall fp32 = full_call(Op::layernorm, 65, 12292, DType::f32);
  CHECK(kernel_for(fp32) == "ch10_layernorm_cluster");
  fp32 = full_call(Op::layernorm, 65, 12288, DType::f32);
  CHECK(kernel_for(fp32) == "ch07_layernorm");
  NormCall call = full_call(Op::rmsnorm, 65, 24584);  // 3073 chunks: the first past chapter 07
  CHECK(kernel_for(call) == "ch10_rmsnorm_cluster");
  call = full_call(Op::rmsnorm, 65, 24576);  // 3072: chapter 07's registers hold it
  CHECK(kernel_for(call) == "ch07_rmsnorm");
  // Off the 16-byte grid: chapter 07.
  call = full_call(Op::rmsnorm, 512, 65536);
  call.x = address(Tensor::x, 2);
  CHECK(kernel_for(call) == "ch07_rmsnorm");
  // The widest rows the cluster entry takes: 512 KiB, 262144 16-bit or 131072 fp32 columns.
  call = full_call(Op::rmsnorm, 128, 262144);
  CHECK(kernel_for(call) == "ch10_rmsnorm_cluster");
  call = full_call(Op::rmsnorm, 128, 131072, DType::f32);
  CHECK(kernel_for(call) == "ch10_rmsnorm_cluster");
  // Wider: it refuses, chapter 07 runs it.
  call = full_call(Op::rmsnorm, 128, 262152);
  CHECK(kernel_for(call) == "ch07_rmsnorm");
  CHECK_THAT(decided(call).why, Catch::Contains("refuses the call"));
  call = full_call(Op::rmsnorm, 128, 131076, DType::f32);
  CHECK(kernel_for(call) == "ch07_rmsnorm");
  // From a MiB a row (65536 chunks), chapter 10's own choice, for every forward op.
  for (Op op : {Op::rmsnorm, Op::layernorm, Op::add_rmsnorm, Op::add_layernorm}) {
    call = full_call(op, 128, 524288);
    CHECK(kernel_for(call) == std::string("ch10_") + normlab::name_of(op));
    CHECK_THAT(decided(call).why, Catch::Contains("a MiB or more"));
    call = full_call(op, 65, 262144, DType::f32);
    CHECK(kernel_for(call) == std::string("ch10_") + normlab::name_of(op));
  }
  call = full_call(Op::rmsnorm, 128, 524280);  // 65535 chunks: the cluster entry refuses
  CHECK(kernel_for(call) == "ch07_rmsnorm");
  call = full_call(Op::rmsnorm, 128, 524288);  // off the 16-byte grid: chapter 07
  call.x = address(Tensor::x, 2);
  CHECK(kernel_for(call) == "ch07_rmsnorm");
  // A GPU without clusters (sm_80): the cluster entry refuses, chapter 07 runs it.
  call = full_call(Op::rmsnorm, 512, 65536);
  dispatch::validate(call);
  const normlab::Plan ampere =
      dispatch::decide(dispatch::facts_of(call, 80), normlab::kernel_registry());
  REQUIRE(ampere.kernel != nullptr);
  CHECK(ampere.kernel->name == "ch07_rmsnorm");
}

TEST_CASE("fp32 parameters, in place, Gemma and statistics stay with the rule's kernel",
          "[dispatch]") {
  NormCall call = full_call(Op::rmsnorm, 8192, 576);
  call.weight_dtype = DType::f32;
  CHECK(kernel_for(call) == "ch09_rmsnorm");
  call.weight_plus_one = true;
  call.y = const_cast<void*>(call.x);
  CHECK(kernel_for(call) == "ch09_rmsnorm");
  const dispatch::Facts facts = dispatch::facts_of(call, kHopper);
  CHECK(facts.needs.in_place);
  CHECK(facts.needs.statistics);
  CHECK(facts.needs.weight_plus_one);
}

TEST_CASE(
    "backward goes to chapter 08's deterministic kernel as wide as it holds, then to "
    "chapter 10's cluster",
    "[dispatch]") {
  NormCall call = full_call(Op::layernorm_backward, 4096, 8192);
  CHECK(kernel_for(call) == "ch08_layernorm_backward");
  CHECK(decided(call).launch == normlab::find_kernel("ch08_layernorm_backward")->summary);
  call.cols = call.x_stride = call.dy_stride = call.dx_stride = call.dresidual_stride = 8193;
  CHECK(kernel_for(call) == "ch10_layernorm_backward");
  CHECK_THAT(decided(call).why, Catch::Contains("ch08_layernorm_backward, which refuses the call: "
                                                "rows wider than 8192"));
  // Without clusters (sm_80) nothing takes it, and the refusal says why for each kernel.
  dispatch::Facts ampere = dispatch::facts_of(call, 80);
  CHECK_THROWS_WITH(dispatch::decide(ampere, normlab::kernel_registry()),
                    Catch::Contains("ch08_layernorm_backward: rows wider than 8192") &&
                        Catch::Contains("ch08_layernorm_backward_atomic: rows wider than 8192") &&
                        Catch::Contains("ch10_layernorm_backward: needs sm_90"));
  // Past what a cluster holds (512 KiB), refused on sm_90 too.
  call.cols = call.x_stride = call.dy_stride = call.dx_stride = call.dresidual_stride = 262152;
  CHECK_THROWS_WITH(decided(call),
                    Catch::Contains("ch10_layernorm_backward: rows wider than 524288 bytes"));
  call = full_call(Op::rmsnorm_backward, 1, 12288);
  CHECK(kernel_for(call) == "ch08_rmsnorm_backward");
  CHECK(dispatch::facts_of(call, kHopper).needs.residual_gradient);
  call = full_call(Op::rmsnorm_backward, 512, 32768);
  CHECK(kernel_for(call) == "ch10_rmsnorm_backward");
}

TEST_CASE("a rule's kernel that refuses the call hands it to the newest kernel that takes it",
          "[dispatch]") {
  const std::vector<KernelEntry>& registry = normlab::kernel_registry();
  std::vector<KernelEntry> no_gemma_in_ch09 = registry;
  for (KernelEntry& kernel : no_gemma_in_ch09) {
    if (kernel.chapter == 9) kernel.can.weight_plus_one = false;
  }
  NormCall call = full_call(Op::rmsnorm, 8192, 576);
  call.weight_plus_one = true;
  normlab::Plan plan = decided(call, no_gemma_in_ch09);
  CHECK(plan.kernel->name == "ch07_rmsnorm");
  CHECK_THAT(plan.why, Catch::Contains("ch09_rmsnorm, which refuses the call: no (1 + w)"));
  CHECK(plan.launch == plan.kernel->summary);

  std::vector<KernelEntry> ch07_needs_sm100 = registry;
  for (KernelEntry& kernel : ch07_needs_sm100) {
    if (kernel.chapter == 7) kernel.can.min_compute_capability = 100;
  }
  call = full_call(Op::rmsnorm, 4096, 8200);  // 1025 chunks: chapter 07's rule
  plan = decided(call, ch07_needs_sm100);
  CHECK(plan.kernel->name == "ch10_rmsnorm");  // the default refuses too: the newest takes it
  CHECK_THAT(plan.why, Catch::Contains("needs sm_100 or newer, this GPU is sm_90"));
  CHECK(dispatch::decide(dispatch::facts_of(call, 100), ch07_needs_sm100).kernel->name ==
        "ch07_rmsnorm");

  std::vector<KernelEntry> without_ch09 = registry;
  std::erase_if(without_ch09, [](const KernelEntry& k) { return k.chapter == 9; });
  call = full_call(Op::rmsnorm, 8192, 576);
  plan = decided(call, without_ch09);
  CHECK(plan.kernel->name == "ch07_rmsnorm");
  CHECK_THAT(plan.why, Catch::Contains("names chapter 9, which has no kernel for rmsnorm"));

  std::erase_if(without_ch09, [](const KernelEntry& k) { return k.op == Op::rmsnorm; });
  CHECK_THROWS_WITH(decided(call, without_ch09), Catch::Contains("none is registered"));
}

// A call spoiled in one argument, which plan() must name.
struct Spoiled {
  const char* argument;
  void (*spoil)(NormCall&);
};

void require_each_refused(const NormCall& good, std::initializer_list<Spoiled> spoiled) {
  CHECK_NOTHROW(dispatch::validate(good));
  for (const Spoiled& s : spoiled) {
    NormCall call = good;
    s.spoil(call);
    require_refused(call, s.argument);
  }
}

TEST_CASE("malformed calls are refused by the argument's name", "[dispatch]") {
  require_each_refused(
      full_call(Op::add_layernorm, 16, 1000),
      {
          {"op", [](NormCall& c) { c.op = Op::copy; }},
          {"op", [](NormCall& c) { c.op = static_cast<Op>(42); }},
          {"dtype", [](NormCall& c) { c.dtype = static_cast<DType>(7); }},
          // bf16 activations: fp16 parameters are neither their dtype nor fp32.
          {"weight_dtype", [](NormCall& c) { c.weight_dtype = DType::f16; }},
          {"rows", [](NormCall& c) { c.rows = -1; }},
          {"cols", [](NormCall& c) { c.cols = 0; }},
          {"eps", [](NormCall& c) { c.eps = -1e-5f; }},
          {"eps", [](NormCall& c) { c.eps = -0.0f - 1e-30f; }},
          {"eps", [](NormCall& c) { c.eps = std::nanf(""); }},
          {"eps", [](NormCall& c) { c.eps = std::numeric_limits<float>::infinity(); }},
          {"residual", [](NormCall& c) { c.residual = nullptr; }},
          {"residual_out_stride", [](NormCall& c) { c.residual_out_stride = 999; }},
          // Half a bf16 element in; a statistic half an fp32 one.
          {"y", [](NormCall& c) { c.y = address(Tensor::y, 1); }},
          {"mean", [](NormCall& c) { c.mean = static_cast<float*>(address(Tensor::mean, 2)); }},
          // In place, but over other rows.
          {"residual_out_stride",
           [](NormCall& c) {
             c.residual_out = const_cast<void*>(c.residual);
             c.residual_out_stride = 1024;
           }},
          // (1 + w) with no w.
          {"weight_plus_one",
           [](NormCall& c) {
             c.weight = nullptr;
             c.weight_plus_one = true;
           }},
      });
  // Backward: the saved statistics, and the gradient of every parameter given.
  require_each_refused(full_call(Op::layernorm_backward, 16, 1000),
                       {
                           {"saved_mean", [](NormCall& c) { c.saved_mean = nullptr; }},
                           {"dbias", [](NormCall& c) { c.dbias = address(Tensor::dbias, 1); }},
                           {"dweight", [](NormCall& c) { c.dweight = nullptr; }},
                           {"dx_stride", [](NormCall& c) { c.dx_stride = 10; }},
                       });
  CHECK_THROWS_WITH(normlab::plan(full_call(Op::rmsnorm, 4, 64), -1),
                    Catch::Contains("'compute_capability'"));
}

TEST_CASE("what an op does not read is ignored; no rows need no tensors", "[dispatch]") {
  // Backward: no dbias, no bias gradient (the backward ops do not read the bias).
  NormCall grad = full_call(Op::layernorm_backward, 16, 1000);
  grad.dbias = nullptr;
  CHECK_NOTHROW(dispatch::validate(grad));
  CHECK_FALSE(dispatch::facts_of(grad, kHopper).needs.shape.bias);
  NormCall call = full_call(Op::rmsnorm, 8, 4096);
  call.residual = nullptr;
  call.dy = address(Tensor::dy, 1);       // misaligned, but rmsnorm has no dy
  call.dy_dtype = static_cast<DType>(7);  // nor its dtype
  CHECK_NOTHROW(normlab::plan(call, kHopper));
  NormCall empty{.op = Op::add_rmsnorm, .dtype = DType::f16, .rows = 0, .cols = 8};
  empty.x_stride = empty.residual_stride = empty.y_stride = empty.residual_out_stride = 8;
  empty.weight_dtype = DType::f32;
  CHECK_NOTHROW(normlab::plan(empty, kHopper));
  empty.rows = 1;
  require_refused(empty, "x");
}

// The kernels of @p op in the registry that take @p call on sm_90, by name.
std::vector<std::string> takers(const NormCall& call) {
  const dispatch::Facts facts = dispatch::facts_of(call, kHopper);
  std::vector<std::string> names;
  for (const KernelEntry& kernel : normlab::kernel_registry()) {
    if (kernel.op == call.op && kernel.refusal(facts.needs).empty()) names.push_back(kernel.name);
  }
  return names;
}

// The candidates of the tuned chooser (chapters 07 to 10) that take @p call, by key.
std::vector<std::string> tuned_takers(const NormCall& call) {
  const dispatch::Facts facts = dispatch::facts_of(call, kHopper);
  std::vector<std::string> keys;
  for (const dispatch::Candidate& candidate : dispatch::candidates()) {
    if (candidate.kernel->op == call.op && dispatch::refusal_of(candidate, facts).empty())
      keys.push_back(candidate.key);
  }
  return keys;
}

TEST_CASE("fp32 x with 16-bit parameters: chapter 07's launcher and the backward kernels only",
          "[dispatch]") {
  using Names = std::vector<std::string>;
  for (DType parameters : {DType::bf16, DType::f16}) {
    INFO(normlab::name_of(parameters));
    for (Op op : {Op::rmsnorm, Op::layernorm, Op::add_rmsnorm, Op::add_layernorm}) {
      INFO(normlab::name_of(op));
      // 576 columns, 8192 rows: chapter 09's narrow rows with fp32 parameters.
      NormCall call = full_call(op, 8192, 576, DType::f32);
      call.weight_dtype = parameters;
      const std::string general = std::string("ch07_") + normlab::name_of(op);
      CHECK(kernel_for(call) == general);
      CHECK_THAT(decided(call).why,
                 Catch::Contains(std::string("no ") + normlab::name_of(parameters) +
                                 " parameters with fp32 tensors"));
      CHECK(takers(call) == Names{general});
      CHECK(tuned_takers(call) == Names{"general/default"});
      call.weight_dtype = DType::f32;  // the same call with fp32 parameters stays with chapter 09
      CHECK(kernel_for(call) != general);
    }
    for (Op op : {Op::rmsnorm_backward, Op::layernorm_backward}) {
      NormCall call = full_call(op, 4096, 1000, DType::f32);
      call.weight_dtype = parameters;
      const std::string backward = std::string("ch08_") + normlab::name_of(op);
      CHECK(kernel_for(call) == backward);
      const std::string cluster = std::string("ch10_") + normlab::name_of(op);
      CHECK(takers(call) == Names{backward + "_atomic", backward, cluster,
                                  cluster + "_cluster@256x2", cluster + "_cluster@256x4",
                                  cluster + "_cluster@512x4", cluster + "_cluster@256x2s2",
                                  cluster + "_cluster@256x2sm3"});
      CHECK(tuned_takers(call) == Names{"persistent/default", "cluster/256x2", "cluster/256x4",
                                        "cluster/512x4", "cluster/256x2s2", "cluster/256x2sm3"});
    }
  }
  // 16-bit x with the other 16-bit dtype's parameters stays refused, by the argument's name.
  NormCall call = full_call(Op::layernorm_backward, 16, 1000, DType::f16);
  call.weight_dtype = DType::bf16;
  require_refused(call, "weight_dtype");
}

TEST_CASE("RMSNorm with a bias: planned only to the kernels that declare it", "[dispatch]") {
  using Names = std::vector<std::string>;
  for (Op op : {Op::rmsnorm, Op::add_rmsnorm}) {
    INFO(normlab::name_of(op));
    NormCall call = full_call(op, 8192, 576);
    call.bias = address(Tensor::bias);
    CHECK(dispatch::facts_of(call, kHopper).needs.shape.bias);
    const std::string general = std::string("ch07_") + normlab::name_of(op);
    CHECK(kernel_for(call) == general);
    CHECK_THAT(decided(call).why,
               Catch::Contains(std::string("no bias with ") + normlab::name_of(op)));
    CHECK(takers(call) == Names{general});
    CHECK(tuned_takers(call) == Names{"general/default"});
    call.bias = address(Tensor::bias, 1);  // half a bf16 element in
    require_refused(call, "bias");
  }
  NormCall grad = full_call(Op::rmsnorm_backward, 4096, 1000);
  grad.dbias = address(Tensor::dbias);
  CHECK(dispatch::facts_of(grad, kHopper).needs.shape.bias);
  CHECK(kernel_for(grad) == "ch08_rmsnorm_backward");
  CHECK(takers(grad) ==
        Names{"ch08_rmsnorm_backward_atomic", "ch08_rmsnorm_backward", "ch10_rmsnorm_backward",
              "ch10_rmsnorm_backward_cluster@256x2", "ch10_rmsnorm_backward_cluster@256x4",
              "ch10_rmsnorm_backward_cluster@512x4", "ch10_rmsnorm_backward_cluster@256x2s2",
              "ch10_rmsnorm_backward_cluster@256x2sm3"});
  // A kernel without it refuses by name, and plan() lists the refusal when none takes it.
  std::vector<KernelEntry> without = normlab::kernel_registry();
  for (KernelEntry& kernel : without)
    kernel.can.rmsnorm_bias = false;
  CHECK_THROWS_WITH(
      decided(grad, without),
      Catch::Contains("no kernel takes rmsnorm_backward bf16 4096x1000 with a bias") &&
          Catch::Contains("ch08_rmsnorm_backward: no bias with rmsnorm_backward"));
}

TEST_CASE("a dy of another dtype than x: chapter 08's backward, never in place", "[dispatch]") {
  for (DType x : {DType::f32, DType::f16, DType::bf16}) {
    for (DType dy : {DType::f32, DType::f16, DType::bf16}) {
      INFO(normlab::name_of(x) << " x, " << normlab::name_of(dy) << " dy");
      NormCall call = full_call(Op::layernorm_backward, 64, 1000, x);
      call.dy_dtype = dy;
      CHECK(kernel_for(call) == "ch08_layernorm_backward");
      CHECK(dispatch::facts_of(call, kHopper).needs.shape.dy_dtype == dy);
      if (x == dy) continue;
      // dx over dy: their elements differ in size (or would be read as another dtype).
      call.dx = const_cast<void*>(call.dy);
      CHECK_THROWS_WITH(decided(call),
                        Catch::Contains(std::string("with ") + normlab::name_of(dy) + " dy") &&
                            Catch::Contains("dx over dy only when dy is in x's dtype"));
    }
  }
  NormCall call = full_call(Op::rmsnorm_backward, 64, 1000, DType::bf16);
  call.dy_dtype = DType::f32;
  call.dy = address(Tensor::dy, 2);  // a bf16 element in, half an fp32 one
  require_refused(call, "dy");
  call.dy = address(Tensor::dy);
  call.dy_dtype = static_cast<DType>(7);
  require_refused(call, "dy_dtype");
  std::vector<KernelEntry> without = normlab::kernel_registry();
  for (KernelEntry& kernel : without)
    kernel.can.other_dy_dtype = false;
  call.dy_dtype = DType::f32;
  CHECK_THROWS_WITH(decided(call, without),
                    Catch::Contains("ch08_rmsnorm_backward: no fp32 dy with bf16 x"));
}

TEST_CASE(
    "a dy of another dtype past chapter 08's rows: chapter 10's cluster, the copies in its "
    "scratch, and past the fp32 row a cluster holds dy_dtype refused",
    "[dispatch]") {
  NormCall call = full_call(Op::rmsnorm_backward, 64, 65536, DType::f32);
  call.dy_dtype = DType::bf16;
  CHECK(kernel_for(call) == "ch10_rmsnorm_backward");
  CHECK_THAT(decided(call).why, Catch::Contains("ch08_rmsnorm_backward, which refuses the call: "
                                                "rows wider than 12288"));
  // The scratch: the cluster's one partial row of fp32 column sums (a call of one row: sized
  // without a GPU), then one fp32 copy a row (dy's with fp32 x; x's, dresidual's and dx's with
  // 16-bit x), each on a 256-byte boundary.
  const std::size_t row = 4 * 65536;
  for (Op op : {Op::rmsnorm_backward, Op::layernorm_backward}) {
    const std::size_t sums = op == Op::layernorm_backward ? 2 * row : row;
    const std::string name = std::string("ch10_") + normlab::name_of(op);
    NormCall one = full_call(op, 1, 65536, DType::f32);
    CHECK(normlab::plan(one, kHopper).scratch_bytes == sums);
    one.dy_dtype = DType::bf16;
    const normlab::Plan widened_dy = normlab::plan(one, kHopper);
    CHECK(widened_dy.kernel->name == name);
    CHECK(widened_dy.scratch_bytes == sums + row);
    one = full_call(op, 1, 65536, DType::bf16);
    CHECK(normlab::plan(one, kHopper).scratch_bytes == sums);
    one.dy_dtype = DType::f32;
    CHECK(normlab::plan(one, kHopper).scratch_bytes == sums + 3 * row);
  }
  // A 16-bit row runs widened to fp32, so it holds as many columns as an fp32 row: 131072 (512
  // KiB). One more is refused naming dy_dtype, though the same row with dy in x's dtype fits.
  call = full_call(Op::layernorm_backward, 64, 131072, DType::bf16);
  call.dy_dtype = DType::f32;
  CHECK(kernel_for(call) == "ch10_layernorm_backward");
  call.cols = call.x_stride = call.dy_stride = call.dx_stride = call.dresidual_stride = 131080;
  CHECK_THROWS_WITH(
      decided(call),
      Catch::Contains("no kernel takes layernorm_backward bf16 64x131080 with fp32 dy") &&
          Catch::Contains("ch10_layernorm_backward: dy_dtype fp32 with bf16 x runs the row "
                          "widened to fp32: rows wider than 131072 columns (524288 bytes)"));
  call.dy_dtype = DType::bf16;
  CHECK(kernel_for(call) == "ch10_layernorm_backward");
}

TEST_CASE("eps = 0 is planned, as PyTorch takes it", "[dispatch]") {
  for (Op op : {Op::rmsnorm, Op::add_layernorm, Op::layernorm_backward}) {
    NormCall call = full_call(op, 16, 1000);
    call.eps = 0.0f;
    INFO(normlab::name_of(op));
    CHECK_NOTHROW(dispatch::validate(call));
    CHECK_NOTHROW(dispatch::validate_eps(0.0f));
  }
  CHECK_THROWS_WITH(dispatch::validate_eps(-0.0f - 1e-30f), Catch::Contains("must be >= 0"));
}

TEST_CASE("run with a plan refuses an empty plan and a short scratch before launching",
          "[dispatch]") {
  const NormCall call = full_call(Op::rmsnorm, 8, 4096);
  CHECK_THROWS_WITH(normlab::run(call, normlab::Plan{}, nullptr), Catch::Contains("'planned'"));
  normlab::Plan needs_scratch = normlab::plan(call, kHopper);
  needs_scratch.scratch_bytes = 1024;  // as chapter 08's plans ask; this call has none
  CHECK_THROWS_WITH(normlab::run(call, needs_scratch, nullptr), Catch::Contains("'scratch'"));
}

TEST_CASE("a Case is planned as the NormCall the Workspace makes of it", "[dispatch]") {
  // The Workspace's layout: every activation misalign elements past its own 256-byte
  // allocation, rows cols + pad apart; outputs in place over their inputs; parameters aligned.
  int compared = 0;
  for (Op op : {Op::rmsnorm, Op::layernorm, Op::add_rmsnorm, Op::add_layernorm,
                Op::rmsnorm_backward, Op::layernorm_backward}) {
    for (DType dtype : {DType::f32, DType::bf16}) {
      for (std::int64_t misalign : {0, 1, 3}) {
        for (std::int64_t pad : {0, 5, 8}) {
          for (bool in_place : {false, true}) {
            for (auto [rows, cols] : {std::pair<std::int64_t, std::int64_t>{8192, 1000},
                                      {8192, 1024},
                                      {33, 4096},
                                      {4096, 4096},
                                      {1, 20000}}) {
              if (normlab::is_backward(op) && cols > 8192) continue;  // wider than ch08's
              Case c = normlab::default_case(op, rows, cols, dtype);
              c.misalign = misalign;
              c.pad = pad;
              c.in_place = in_place;
              c.statistics = !normlab::is_backward(op);
              c.residual_gradient = normlab::is_backward(op);
              const NormCall call = workspace_call(c);
              INFO(c.describe());
              const dispatch::Facts from_case = dispatch::facts_of(c, kHopper);
              const dispatch::Facts from_call = dispatch::facts_of(call, kHopper);
              const normlab::Requirements& a = from_case.needs;
              const normlab::Requirements& b = from_call.needs;
              CHECK(a.in_place == b.in_place);
              CHECK(a.strided == b.strided);
              CHECK(a.base_alignment == b.base_alignment);
              CHECK(a.pitch_alignment == b.pitch_alignment);
              CHECK(a.statistics == b.statistics);
              CHECK(a.residual_gradient == b.residual_gradient);
              CHECK(a.shape.weight == b.shape.weight);
              CHECK(a.shape.bias == b.shape.bias);
              CHECK(from_case.problem.aligned == from_call.problem.aligned);
              CHECK(from_case.problem.chunks == from_call.problem.chunks);
              const normlab::Plan by_case = dispatch::decide(from_case, normlab::kernel_registry());
              const normlab::Plan by_call = dispatch::decide(from_call, normlab::kernel_registry());
              CHECK(by_case.kernel == by_call.kernel);
              CHECK(by_case.launch == by_call.launch);
              ++compared;
            }
          }
        }
      }
    }
  }
  CHECK(compared == (4 * 5 + 2 * 4) * 2 * 3 * 3 * 2);
}

namespace {

// @p call with every address moved by @p bytes.
NormCall moved(NormCall call, std::int64_t bytes) {
  for (const normlab::TensorSpec& spec : normlab::tensors_of(call.op)) {
    const normlab::TensorField field = normlab::field_of(call, spec.tensor);
    if (field.data == nullptr) continue;
    normlab::bind(call, spec.tensor, static_cast<char*>(const_cast<void*>(field.data)) + bytes,
                  field.stride);
  }
  return call;
}

using Change = std::pair<const char*, std::function<void(NormCall&, int&)>>;

// Every change in @p changes gives @p base another key; moving every tensor by a multiple of 256
// bytes does not.
void require_keyed(const NormCall& base, const std::vector<Change>& changes) {
  const dispatch::PlanKey key(base, 0);
  CHECK(dispatch::PlanKey(moved(base, 256 * 4096), 0) == key);
  for (const auto& [what, change] : changes) {
    NormCall call = base;
    int device = 0;
    change(call, device);
    INFO("changed: " << what);
    CHECK_FALSE(dispatch::PlanKey(call, device) == key);
  }
}

// Moves the tensor @p tensor of @p call by @p bytes.
void shift(NormCall& call, Tensor tensor, std::int64_t bytes) {
  const normlab::TensorField field = normlab::field_of(call, tensor);
  normlab::bind(call, tensor, static_cast<char*>(const_cast<void*>(field.data)) + bytes,
                field.stride);
}

// Sets the stride of @p tensor of @p call to @p stride.
void restride(NormCall& call, Tensor tensor, std::int64_t stride) {
  normlab::bind(call, tensor, const_cast<void*>(normlab::field_of(call, tensor).data), stride);
}

}  // namespace

TEST_CASE("an fp32 residual stream with 16-bit x: chapter 07's launcher only", "[dispatch]") {
  using Names = std::vector<std::string>;
  for (DType x : {DType::f16, DType::bf16}) {
    for (Op op : {Op::add_rmsnorm, Op::add_layernorm}) {
      INFO(normlab::name_of(x) << " " << normlab::name_of(op));
      // 8192 rows of 576 columns: chapter 09's narrow rows with one dtype.
      NormCall call = full_call(op, 8192, 576, x);
      call.residual_dtype = DType::f32;
      CHECK(dispatch::facts_of(call, kHopper).needs.shape.residual_dtype == DType::f32);
      const std::string general = std::string("ch07_") + normlab::name_of(op);
      CHECK(kernel_for(call) == general);
      CHECK_THAT(decided(call).why, Catch::Contains(std::string("no fp32 residual with ") +
                                                    normlab::name_of(x) + " x"));
      CHECK(takers(call) == Names{general});
      CHECK(tuned_takers(call) == Names{"general/default"});
      call.residual_dtype = x;  // the residual in x's dtype, named or not, as before
      CHECK(kernel_for(call) != general);
      call.residual_dtype = x == DType::f16 ? DType::bf16 : DType::f16;
      require_refused(call, "residual_dtype");
    }
  }
  // An fp32 residual's elements are 4 bytes: one 2 bytes off is refused by the tensor's name.
  NormCall call = full_call(Op::add_rmsnorm, 64, 1000, DType::bf16);
  call.residual_dtype = DType::f32;
  call.residual = address(Tensor::residual, 2);
  require_refused(call, "residual");
  // Ops without a residual ignore its dtype, as they ignore the residual.
  NormCall norm = full_call(Op::rmsnorm, 64, 1000, DType::bf16);
  norm.residual_dtype = DType::f16;
  CHECK_NOTHROW(normlab::plan(norm, kHopper));
  std::vector<KernelEntry> without = normlab::kernel_registry();
  for (KernelEntry& kernel : without)
    kernel.can.fp32_residual = false;
  call.residual = address(Tensor::residual);
  CHECK_THROWS_WITH(decided(call, without),
                    Catch::Contains("ch07_add_rmsnorm: no fp32 residual with bf16 x"));
}

TEST_CASE("a plan's key holds everything the plan is made from", "[plan_cache]") {
  // Each change below can change the plan or its validity; a key that left one out would hand a
  // call another layout's plan.
  const NormCall forward = full_call(Op::add_layernorm, 64, 4096);
  require_keyed(
      forward,
      {{"op", [](NormCall& c, int&) { c.op = Op::add_rmsnorm; }},
       {"dtype", [](NormCall& c, int&) { c.dtype = DType::f16; }},
       {"weight_dtype", [](NormCall& c, int&) { c.weight_dtype = DType::f32; }},
       {"residual_dtype", [](NormCall& c, int&) { c.residual_dtype = DType::f32; }},
       {"weight_plus_one", [](NormCall& c, int&) { c.weight_plus_one = true; }},
       {"rows", [](NormCall& c, int&) { c.rows = 65; }},
       {"cols", [](NormCall& c, int&) { c.cols = 4088; }},
       {"eps", [](NormCall& c, int&) { c.eps = 1e-6f; }},
       {"device", [](NormCall&, int& device) { device = 1; }},
       {"x_stride", [](NormCall& c, int&) { restride(c, Tensor::x, 4104); }},
       {"residual_stride", [](NormCall& c, int&) { restride(c, Tensor::residual, 4104); }},
       {"y_stride", [](NormCall& c, int&) { restride(c, Tensor::y, 4104); }},
       {"residual_out_stride", [](NormCall& c, int&) { restride(c, Tensor::residual_out, 4104); }},
       {"x's alignment", [](NormCall& c, int&) { shift(c, Tensor::x, 2); }},
       {"x's alignment past 16 bytes", [](NormCall& c, int&) { shift(c, Tensor::x, 32); }},
       {"residual's alignment", [](NormCall& c, int&) { shift(c, Tensor::residual, 8); }},
       {"y's alignment", [](NormCall& c, int&) { shift(c, Tensor::y, 128); }},
       {"residual_out's alignment", [](NormCall& c, int&) { shift(c, Tensor::residual_out, 4); }},
       {"weight's alignment", [](NormCall& c, int&) { shift(c, Tensor::weight, 2); }},
       {"bias's alignment", [](NormCall& c, int&) { shift(c, Tensor::bias, 64); }},
       {"mean's alignment", [](NormCall& c, int&) { shift(c, Tensor::mean, 4); }},
       {"rstd's alignment", [](NormCall& c, int&) { shift(c, Tensor::rstd, 4); }},
       {"no weight", [](NormCall& c, int&) { c.weight = nullptr; }},
       {"no bias", [](NormCall& c, int&) { c.bias = nullptr; }},
       {"no mean", [](NormCall& c, int&) { c.mean = nullptr; }},
       {"no rstd", [](NormCall& c, int&) { c.rstd = nullptr; }},
       {"y over x", [](NormCall& c, int&) { c.y = const_cast<void*>(c.x); }},
       {"residual_out over residual",
        [](NormCall& c, int&) { c.residual_out = const_cast<void*>(c.residual); }}});

  const NormCall backward = full_call(Op::layernorm_backward, 64, 4096);
  require_keyed(
      backward,
      {{"dy_stride", [](NormCall& c, int&) { restride(c, Tensor::dy, 4104); }},
       {"dy_dtype", [](NormCall& c, int&) { c.dy_dtype = DType::f32; }},
       {"dresidual_stride", [](NormCall& c, int&) { restride(c, Tensor::dresidual, 4104); }},
       {"dx_stride", [](NormCall& c, int&) { restride(c, Tensor::dx, 4104); }},
       {"dy's alignment", [](NormCall& c, int&) { shift(c, Tensor::dy, 2); }},
       {"dresidual's alignment", [](NormCall& c, int&) { shift(c, Tensor::dresidual, 2); }},
       {"dx's alignment", [](NormCall& c, int&) { shift(c, Tensor::dx, 2); }},
       {"dweight's alignment", [](NormCall& c, int&) { shift(c, Tensor::dweight, 2); }},
       {"dbias's alignment", [](NormCall& c, int&) { shift(c, Tensor::dbias, 2); }},
       {"saved_mean's alignment", [](NormCall& c, int&) { shift(c, Tensor::saved_mean, 4); }},
       {"saved_rstd's alignment", [](NormCall& c, int&) { shift(c, Tensor::saved_rstd, 4); }},
       {"no dresidual", [](NormCall& c, int&) { c.dresidual = nullptr; }},
       {"no dweight", [](NormCall& c, int&) { c.dweight = nullptr; }},
       {"no dbias", [](NormCall& c, int&) { c.dbias = nullptr; }},
       {"dx over dy", [](NormCall& c, int&) { c.dx = const_cast<void*>(c.dy); }}});

  // x's two-level rows (a head view): the group size and the group stride each decide the rows'
  // alignment, and so the kernel and its vectors.
  NormCall head_view = full_call(Op::rmsnorm, 693, 128);
  head_view.x_group_rows = 7;
  head_view.x_group_stride = 14 * 128;
  require_keyed(head_view, {{"x_group_rows", [](NormCall& c, int&) { c.x_group_rows = 9; }},
                            {"one level", [](NormCall& c, int&) { c.x_group_rows = 0; }},
                            {"x_group_stride", [](NormCall& c, int&) { c.x_group_stride += 4; }}});
}

TEST_CASE("the cache plans a layout once, again after any change, and drops the oldest",
          "[plan_cache]") {
  int planned = 0;
  const dispatch::PlanCache::Planner count = [&](const NormCall&) {
    ++planned;
    return normlab::Plan{.why = std::to_string(planned)};
  };
  dispatch::PlanCache cache(2);
  const NormCall a = full_call(Op::rmsnorm, 8, 4096);
  const auto first = cache.find_or_plan(a, 0, count);
  CHECK(cache.find_or_plan(moved(a, 1 << 20), 0, count) == first);  // new tensors, same layout
  CHECK(planned == 1);

  NormCall b = a;
  restride(b, Tensor::x, 4160);
  CHECK(cache.find_or_plan(b, 0, count)->why == "2");
  CHECK(cache.find_or_plan(a, 0, count) == first);  // a is now the most recent, b the oldest
  NormCall c = a;
  c.eps = 1e-6f;
  CHECK(cache.find_or_plan(c, 0, count)->why == "3");
  CHECK(cache.size() == 2);
  CHECK(cache.find_or_plan(a, 0, count) == first);
  CHECK(cache.find_or_plan(b, 0, count)->why == "4");  // dropped, planned again
  CHECK(planned == 4);

  // A refusal is not kept: the next call is planned, and refused, again.
  const dispatch::PlanCache::Planner refuse = [&](const NormCall&) -> normlab::Plan {
    ++planned;
    throw std::invalid_argument("refused");
  };
  NormCall d = a;
  d.rows = 9;
  CHECK_THROWS_WITH(cache.find_or_plan(d, 0, refuse), "refused");
  CHECK_THROWS_WITH(cache.find_or_plan(d, 0, refuse), "refused");
  CHECK(planned == 6);
}

TEST_CASE("a thread's last plan is its cache's own, however caches come and go", "[plan_cache]") {
  const NormCall a = full_call(Op::rmsnorm, 8, 4096);
  const auto planner = [](const char* name) {
    return [name](const NormCall&) { return normlab::Plan{.why = name}; };
  };
  dispatch::PlanCache one(4), two(4);
  CHECK(one.find_or_plan(a, 0, planner("one"))->why == "one");
  CHECK(two.find_or_plan(a, 0, planner("two"))->why == "two");  // the same key, another cache
  CHECK(one.find_or_plan(a, 0, planner("again"))->why == "one");
  for (const char* name : {"first", "second"}) {  // likely one address after the other
    auto cache = std::make_unique<dispatch::PlanCache>(4);
    CHECK(cache->find_or_plan(a, 0, planner(name))->why == name);
  }
}

TEST_CASE("threads share the cache, each call given its own layout's plan", "[plan_cache]") {
  dispatch::PlanCache cache(3);  // fewer than the layouts: plans are dropped while others read
  const dispatch::PlanCache::Planner describe = [](const NormCall& call) {
    return normlab::Plan{.why = std::to_string(call.cols)};
  };
  std::vector<int> wrong(4, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 2000; ++i) {
        const NormCall call = full_call(Op::rmsnorm, 8, 1024 + 8 * ((i + t) % 7));
        if (cache.find_or_plan(call, 0, describe)->why != std::to_string(call.cols)) ++wrong[t];
      }
    });
  }
  for (std::thread& thread : threads)
    thread.join();
  CHECK(wrong == std::vector<int>(4, 0));
  CHECK(cache.size() == 3);
}

TEST_CASE("kept plans are the dispatcher's: a call unlike the last is planned afresh",
          "[plan_cache]") {
  // Chapter 09's block kernels need whole 16-byte chunks; x two bytes off the grid goes to
  // chapter 07. Planned one after the other, neither may be handed the other's plan. The
  // dispatcher plans for the current device: by its tuned table where it has one, else (no GPU
  // here) by the rules.
  const NormCall aligned = full_call(Op::rmsnorm, 4096, 4096);
  NormCall misaligned = aligned;
  shift(misaligned, Tensor::x, 2);
  const auto afresh = [](const NormCall& call) {
    return dispatch::plan(call, 0, normlab::kernel_registry(),
                          dispatch::tuned_table_of_current_device());
  };
  for (int round = 0; round < 2; ++round) {
    CHECK(normlab::plan(aligned).why == afresh(aligned).why);
    CHECK(normlab::plan(misaligned).why == afresh(misaligned).why);
  }
  CHECK(kernel_for(aligned) != kernel_for(misaligned));
  CHECK(dispatch::planned(aligned) == dispatch::planned(moved(aligned, 4096)));
}

TEST_CASE("a kept plan never lets a refused call through: each refusal changes the key",
          "[plan_cache]") {
  // The checks run only when a layout is planned, so each way a call can be refused must give it
  // another key than the well-formed call kept just before it (and than itself a moment ago).
  const NormCall good = full_call(Op::add_rmsnorm, 64, 4096);
  const std::vector<std::pair<std::string, std::function<void(NormCall&)>>> refusals = {
      {"'op'", [](NormCall& c) { c.op = static_cast<Op>(99); }},
      {"'dtype'", [](NormCall& c) { c.dtype = static_cast<DType>(99); }},
      {"'weight_dtype'", [](NormCall& c) { c.weight_dtype = DType::f16; }},
      {"'residual_dtype'", [](NormCall& c) { c.residual_dtype = DType::f16; }},
      {"'rows'", [](NormCall& c) { c.rows = -1; }},
      {"'cols'", [](NormCall& c) { c.cols = 0; }},
      {"'eps'", [](NormCall& c) { c.eps = -1.0f; }},
      {"'eps'", [](NormCall& c) { c.eps = std::numeric_limits<float>::quiet_NaN(); }},
      {"'weight_plus_one'",
       [](NormCall& c) {
         c.weight = nullptr;
         c.weight_plus_one = true;
       }},
      {"'x'", [](NormCall& c) { c.x = nullptr; }},
      {"'x'", [](NormCall& c) { shift(c, Tensor::x, 1); }},
      {"'x_stride'", [](NormCall& c) { restride(c, Tensor::x, 4095); }},
      {"'x_group_rows'", [](NormCall& c) { c.x_group_rows = -1; }},
      {"'x_group_rows'",  // two-level rows for an add + norm
       [](NormCall& c) {
         c.x_group_rows = 2;
         c.x_group_stride = 3 * 4096;
       }},
      {"'x_group_stride'",
       [](NormCall& c) {
         c.x_group_rows = 2;
         c.x_group_stride = 100;
       }},
      {"'residual'", [](NormCall& c) { shift(c, Tensor::residual, 257); }},
      {"'rstd'", [](NormCall& c) { shift(c, Tensor::rstd, 2); }},
      {"'residual_out_stride'",
       [](NormCall& c) {
         c.residual_out = const_cast<void*>(c.residual);
         restride(c, Tensor::residual_out, 4104);
       }},
  };
  for (const auto& [argument, refuse] : refusals) {
    INFO(argument);
    NormCall bad = good;
    refuse(bad);
    for (int round = 0; round < 2; ++round) {
      CHECK_NOTHROW(normlab::plan(good));
      CHECK_THROWS_WITH(normlab::plan(bad), Catch::Contains(argument));
      CHECK_THROWS_WITH(normlab::plan(bad), Catch::Contains(argument));
    }
  }
}

TEST_CASE("run says that no usable GPU is present, before planning, naming no source file",
          "[dispatch]") {
  // A call of no rows launches nothing where a GPU is present; without one, run() must refuse
  // it for that reason alone (the first launch would otherwise fail inside a chapter's
  // launcher with CUDA's message about the driver).
  NormCall call = full_call(Op::rmsnorm, 0, 4096);
  int count = 0;
  if (cudaGetDeviceCount(&count) == cudaSuccess && count > 0) {
    CHECK_NOTHROW(normlab::run(call, nullptr));
    return;
  }
  cudaGetLastError();
  CHECK_THROWS_AS(normlab::run(call, nullptr), std::runtime_error);
  CHECK_THROWS_WITH(normlab::run(call, nullptr), Catch::Contains("no usable CUDA GPU"));
  CHECK_THROWS_WITH(normlab::run(call, nullptr), !Catch::Contains(".cu:"));
  call.eps = -1.0f;  // a malformed call is still refused by its argument first
  CHECK_THROWS_WITH(normlab::run(call, nullptr), Catch::Contains("'eps'"));
}

namespace {

// A head view: q = qkv[:, :heads, :] of a [tokens, heads + gap_heads, head_dim] buffer, as
// rows of x in groups of heads rows head_dim apart, the tokens (heads + gap_heads) x head_dim
// apart; y contiguous.
NormCall head_view_call(Op op, std::int64_t tokens, std::int64_t heads, std::int64_t gap_heads,
                        std::int64_t head_dim, DType dtype = DType::bf16) {
  NormCall call = full_call(op, tokens * heads, head_dim, dtype);
  call.x_group_rows = heads;
  call.x_group_stride = (heads + gap_heads) * head_dim;
  return call;
}

}  // namespace

TEST_CASE("head views: two-level rows of x planned for the norms and their backward",
          "[dispatch][head_views]") {
  for (Op op : {Op::rmsnorm, Op::layernorm, Op::rmsnorm_backward, Op::layernorm_backward}) {
    for (std::int64_t head_dim : {64, 100, 128, 4096}) {
      const NormCall call = head_view_call(op, 99, 7, 3, head_dim);
      const normlab::Plan plan = decided(call);
      INFO(normlab::name_of(op) << " head_dim " << head_dim << ": " << plan.kernel->name);
      CHECK(plan.kernel->can.two_level_rows);
      CHECK(plan.launched->can.two_level_rows);
    }
  }
  // The rows' alignment is both strides': a group stride off the 16-byte grid takes the
  // misaligned path, whatever the row stride.
  NormCall aligned = head_view_call(Op::rmsnorm, 8192, 32, 16, 128);
  CHECK(dispatch::facts_of(aligned, kHopper).problem.aligned);
  CHECK(dispatch::facts_of(aligned, kHopper).needs.two_level_rows);
  aligned.x_group_stride += 1;
  CHECK_FALSE(dispatch::facts_of(aligned, kHopper).problem.aligned);
  CHECK(dispatch::facts_of(aligned, kHopper).needs.pitch_alignment == 2);
}

TEST_CASE("head views: what cannot take them is refused by name", "[dispatch][head_views]") {
  NormCall add = full_call(Op::add_rmsnorm, 693, 128);
  add.x_group_rows = 7;
  add.x_group_stride = 14 * 128;
  require_refused(add, "x_group_rows");
  NormCall under_y = head_view_call(Op::layernorm, 99, 7, 3, 64);
  under_y.y = const_cast<void*>(under_y.x);
  require_refused(under_y, "y");
  NormCall close = head_view_call(Op::rmsnorm, 99, 7, 3, 64);
  close.x_group_stride = 63;
  require_refused(close, "x_group_stride");
  NormCall negative = head_view_call(Op::rmsnorm_backward, 99, 7, 3, 64);
  negative.x_group_rows = -1;
  require_refused(negative, "x_group_rows");
  NormCall past = head_view_call(Op::rmsnorm, 99, 7, 3, 64);
  past.x_group_stride = std::numeric_limits<std::int64_t>::max() / 8;
  require_refused(past, "x_group_stride");
  // One group, or groups of one row, is one level: nothing to refuse.
  NormCall one = full_call(Op::add_layernorm, 5, 64);
  one.x_group_rows = 1;
  one.x_group_stride = 3;
  CHECK_NOTHROW(decided(one));

  // Every kernel that takes the rows one stride apart but does not declare two-level rows
  // refuses them by name; add + norm refuses them whatever a kernel declares.
  int refused = 0, declared = 0;
  for (const KernelEntry& kernel : normlab::kernel_registry()) {
    if (kernel.op == Op::copy) continue;
    Case flat = normlab::default_case(kernel.op, 693, 128, DType::f32);
    flat.pad = 8;
    if (!kernel.refusal(flat).empty()) continue;
    Case c = flat;
    c.group_rows = 7;
    c.group_gap = 7 * 136;
    const std::string refusal = kernel.refusal(c);
    INFO(kernel.name << ": " << refusal);
    if (normlab::is_add(kernel.op)) {
      CHECK(refusal == "add + norm reads x one stride a row, not in groups");
    } else if (!kernel.can.two_level_rows) {
      CHECK(refusal == "no two-level rows of x (x's rows in groups)");
      ++refused;
    } else {
      CHECK(refusal.empty());
      ++declared;
    }
  }
  CHECK(refused > 0);
  CHECK(declared > 0);
}

TEST_CASE("head views: a Case in groups is planned as the NormCall the Workspace makes of it",
          "[dispatch][head_views]") {
  Case c = normlab::default_case(Op::rmsnorm, 8192 * 32, 128, DType::bf16);
  c.group_rows = 32;
  c.group_gap = 16 * 128;
  NormCall call = workspace_call(c);
  call.x_group_rows = c.group_rows;
  call.x_group_stride = normlab::group_stride(c);
  CHECK(normlab::group_stride(c) == 48 * 128);
  const normlab::Requirements needs = normlab::requirements_of(c);
  CHECK(needs.two_level_rows);
  CHECK(needs.strided);
  const dispatch::Facts from_case = dispatch::facts_of(c, kHopper);
  const dispatch::Facts from_call = dispatch::facts_of(call, kHopper);
  CHECK(from_case.problem.aligned == from_call.problem.aligned);
  CHECK(from_case.problem.chunks == from_call.problem.chunks);
  CHECK(from_case.needs.pitch_alignment == from_call.needs.pitch_alignment);
  CHECK(dispatch::plan(c, kHopper).kernel->name == decided(call).kernel->name);
  c.group_gap = 3;  // the group stride off the grid: so the Case and the call
  call.x_group_stride = normlab::group_stride(c);
  CHECK(dispatch::facts_of(c, kHopper).needs.pitch_alignment ==
        dispatch::facts_of(call, kHopper).needs.pitch_alignment);
  CHECK_FALSE(dispatch::facts_of(c, kHopper).problem.aligned);
}
