// SPDX-License-Identifier: Apache-2.0
// What normlab::run costs the CPU on a repeated call, the case of every layer of a model at
// every token: one row of 4096 bf16 elements. The calls are timed queued behind a hold of the
// stream, so a kernel's time on the GPU does not count, only the CPU's time to check, plan and
// launch it.
//
//   normlab_call_cost [google benchmark flags]
//
// run         normlab::run(call, stream): the checks, the kept plan, the launch
// run_planned normlab::run(call, plan, stream) with the plan in hand: the checks and the launch
// plan       normlab::plan(call): the checks and the kept plan, no launch
// launch     an empty kernel's launch: the floor under any call that launches a kernel; and
//            an empty kernel's that takes the forward kernels' 128-byte argument
// Every op is timed on the same row; the backward's scratch is allocated once, as a framework's
// caching allocator would hand it out. Without a GPU every benchmark says so and skips.
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <thread>

#include "argument_kernel.hpp"
#include "empty_kernel.cuh"
#include "normlab/buffer.hpp"
#include "normlab/check.hpp"
#include "normlab/normlab.hpp"
#include "normlab/op_tensors.hpp"
#include "normlab/ops.hpp"

namespace {

using normlab::DType;
using normlab::NormCall;
using normlab::Op;

constexpr std::int64_t kRows = 1;
constexpr std::int64_t kCols = 4096;

bool have_gpu() {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
}

// Every tensor of @p op in its own device buffer (contents left as they are: the CPU's cost does
// not depend on them), and the scratch the plan asks for.
struct Tensors {
  explicit Tensors(Op op) {
    call = NormCall{
        .op = op, .dtype = DType::bf16, .weight_dtype = DType::bf16, .rows = kRows, .cols = kCols};
    for (const normlab::TensorSpec& spec : normlab::tensors_of(op)) {
      memory[static_cast<int>(spec.tensor)] = normlab::DeviceBuffer<std::byte>(kRows * kCols * 4);
      normlab::bind(call, spec.tensor, memory[static_cast<int>(spec.tensor)].data(), kCols);
    }
    scratch = normlab::DeviceBuffer<std::byte>(normlab::plan(call).scratch_bytes);
    call.scratch = scratch.data();
    call.scratch_bytes = scratch.bytes();
  }
  NormCall call;
  normlab::DeviceBuffer<std::byte> memory[normlab::kTensorCount];
  normlab::DeviceBuffer<std::byte> scratch;
};

// Calls timed between two holds of the stream: fewer than the launch queue takes, so that none
// waits for room in it.
constexpr int kCallsPerHold = 256;

// Keeps the default stream from running anything for a while, from the host: the calls timed
// behind it are queued, not run, so the time measured is the CPU's alone, whatever the kernels
// take on the GPU.
void hold_stream() {
  NORMLAB_CHECK(cudaLaunchHostFunc(
      nullptr, [](void*) { std::this_thread::sleep_for(std::chrono::milliseconds(2)); }, nullptr));
}

// Times @p one_call on the CPU: each iteration is kCallsPerHold calls queued behind a hold of
// the stream (manual time); the counter us_per_call is one call's share. A call that launches
// nothing (@p launches false) needs no hold: without one, an iteration is not the hold's 2 ms
// long, and the benchmark reaches its time in seconds instead of minutes.
template <typename Call>
void time_on_cpu(benchmark::State& state, Call&& one_call, bool launches = true) {
  for (int i = 0; i < 100; ++i)
    one_call();  // plans kept, lazy initialisation done
  NORMLAB_CHECK(cudaDeviceSynchronize());
  double seconds = 0;
  for (auto _ : state) {
    if (launches) hold_stream();
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < kCallsPerHold; ++i)
      one_call();
    const std::chrono::duration<double> taken = std::chrono::steady_clock::now() - start;
    state.SetIterationTime(taken.count());
    seconds += taken.count();
    NORMLAB_CHECK(cudaDeviceSynchronize());
  }
  state.counters["us_per_call"] =
      seconds * 1e6 / static_cast<double>(state.iterations() * kCallsPerHold);
}

void run(benchmark::State& state, Op op) {
  if (!have_gpu()) return state.SkipWithError("no usable CUDA GPU");
  Tensors t(op);
  time_on_cpu(state, [&] { normlab::run(t.call, nullptr); });
  state.SetLabel(normlab::plan(t.call).kernel->name);
}

void run_planned(benchmark::State& state, Op op) {
  if (!have_gpu()) return state.SkipWithError("no usable CUDA GPU");
  Tensors t(op);
  const normlab::Plan plan = normlab::plan(t.call);
  time_on_cpu(state, [&] { normlab::run(t.call, plan, nullptr); });
}

void entry(benchmark::State& state, Op op) {
  if (!have_gpu()) return state.SkipWithError("no usable CUDA GPU");
  Tensors t(op);
  const normlab::Plan plan = normlab::plan(t.call);
  const normlab::KernelEntry& launched = plan.launched != nullptr ? *plan.launched : *plan.kernel;
  const normlab::Launcher& launcher = plan.prepared ? plan.prepared : launched.launch;
  time_on_cpu(state, [&] { launcher(t.call, nullptr); });
}

void plan(benchmark::State& state, Op op) {
  if (!have_gpu()) return state.SkipWithError("no usable CUDA GPU");
  Tensors t(op);
  time_on_cpu(
      state, [&] { benchmark::DoNotOptimize(normlab::plan(t.call)); }, false);
}

// The floor under every run(): the launch of an empty kernel, and nothing else.
void launch_empty_kernel(benchmark::State& state) {
  if (!have_gpu()) return state.SkipWithError("no usable CUDA GPU");
  time_on_cpu(state, [] { normlab::ch09::launch_empty_kernel(nullptr); });
}

// The same floor for a kernel of the forward's: an empty kernel taking their argument.
void launch_empty_kernel_with_tensors(benchmark::State& state) {
  if (!have_gpu()) return state.SkipWithError("no usable CUDA GPU");
  time_on_cpu(state, [] { normlab::bench::launch_empty_kernel_with_tensors(nullptr); });
  state.SetLabel(std::to_string(normlab::bench::tensors_argument_bytes()) + "-byte argument");
}

}  // namespace

int main(int argc, char** argv) {
  for (Op op : {Op::rmsnorm, Op::layernorm, Op::add_rmsnorm, Op::rmsnorm_backward,
                Op::layernorm_backward}) {
    const std::string name = normlab::name_of(op);
    benchmark::RegisterBenchmark(("run/" + name).c_str(), run, op)->UseManualTime();
    benchmark::RegisterBenchmark(("run_planned/" + name).c_str(), run_planned, op)->UseManualTime();
    benchmark::RegisterBenchmark(("plan/" + name).c_str(), plan, op)->UseManualTime();
    benchmark::RegisterBenchmark(("entry/" + name).c_str(), entry, op)->UseManualTime();
  }
  benchmark::RegisterBenchmark("launch/empty_kernel", launch_empty_kernel)->UseManualTime();
  benchmark::RegisterBenchmark("launch/empty_kernel_with_tensors", launch_empty_kernel_with_tensors)
      ->UseManualTime();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
