// SPDX-License-Identifier: Apache-2.0
// Google Benchmark over every registered kernel and a grid of shapes.
//
//   normlab_bench [--shapes ladder|all] [google benchmark flags, e.g. --benchmark_filter=ch04
//                 --benchmark_out=results.json --benchmark_out_format=json]
//
// Each iteration is one launch timed with CUDA events after an L2 flush (manual time);
// counters: GB/s by the kernel's bytes model, and % of the copy roof measured in this process.
// After the registry: chapter 02's and 03's kernels at every block size (block_sweep/...).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "ch02.cuh"
#include "ch03.cuh"
#include "normlab/block_size.hpp"
#include "normlab/device.hpp"
#include "normlab/kernel.hpp"
#include "normlab/registry.hpp"
#include "normlab/roofline.hpp"
#include "normlab/runner.hpp"
#include "normlab/timing.hpp"

namespace {

struct BenchShape {
  std::int64_t rows, cols;
  normlab::DType dtype;
};

// The shapes the book quotes. 4096 x 12288 and 4096 x 16384 sit on either side of chapter 04's
// register-resident limit.
const std::vector<BenchShape> kShapes{
    {2048, 8192, normlab::DType::f32},  {16384, 4096, normlab::DType::f32},
    {4096, 12288, normlab::DType::f32}, {4096, 16384, normlab::DType::f32},
    {1024, 1024, normlab::DType::f32},  {16384, 4096, normlab::DType::bf16},
    {4096, 8192, normlab::DType::bf16}, {16384, 5000, normlab::DType::bf16},
    {8192, 576, normlab::DType::bf16},  {32, 4096, normlab::DType::bf16},
    {1, 4096, normlab::DType::bf16},
};

// Chapter 03's question: how does each reduction's cost grow with the block? Chapters 02 and 03
// at every block size, on rows where the block-size rule of chapter 03 picks 256, 512 and 1024.
const std::vector<BenchShape> kBlockSweepShapes{
    {1024, 1024, normlab::DType::f32},
    {16384, 4096, normlab::DType::f32},
    {2048, 8192, normlab::DType::f32},
};

// Benchmarks are registered shape by shape and, within a shape, op by op, so consecutive ones
// share one workspace (inputs and reference, which take seconds to build on large shapes);
// only the latest is kept.
normlab::Workspace& workspace_for(const normlab::Case& c) {
  static std::unique_ptr<normlab::Workspace> cached;
  if (!cached || cached->problem().describe() != c.describe()) {
    cached.reset();
    cached = std::make_unique<normlab::Workspace>(c);
  }
  return *cached;
}

// Google Benchmark calls a benchmark more than once (first to size its iteration count); the
// kernel is verified on the first call only.
const normlab::CaseResult& verified(normlab::Workspace& workspace,
                                    const normlab::KernelEntry& kernel) {
  static std::map<std::string, normlab::CaseResult> results;
  const std::string key = kernel.name + " " + workspace.problem().describe();
  auto found = results.find(key);
  if (found == results.end()) found = results.emplace(key, workspace.verify(kernel)).first;
  return found->second;
}

void run(benchmark::State& state, const normlab::KernelEntry* kernel, normlab::Case c) {
  normlab::Workspace& workspace = workspace_for(c);
  const normlab::CaseResult& result = verified(workspace, *kernel);
  if (!result.passed()) {
    state.SkipWithError(("verification failed: " + result.describe()).c_str());
    return;
  }
  double total_ms = 0.0;
  for (auto _ : state) {
    const double ms =
        workspace.time(*kernel, {.warmup = 0, .repetitions = 1, .flush_l2 = true}).timing.median_ms;
    state.SetIterationTime(ms * 1e-3);
    total_ms += ms;
  }
  const double bytes = normlab::bytes_moved(kernel->op, c.shape);
  const double mean_ms = total_ms / static_cast<double>(state.iterations());
  const double gbps = normlab::gigabytes_per_second(bytes, mean_ms);
  state.counters["GB/s"] = gbps;
  state.counters["pct_copy_roof"] = normlab::percent_of_copy_roof(gbps);
  state.counters["copy_roof_GB/s"] = normlab::copy_roof().gbps;
}

void register_benchmark(const std::string& name, const normlab::KernelEntry* kernel,
                        const normlab::Case& c) {
  benchmark::RegisterBenchmark(name.c_str(), run, kernel, c)
      ->UseManualTime()
      ->Unit(benchmark::kMicrosecond)
      ->MinTime(0.05);
}

std::string shape_name(const BenchShape& s) {
  return std::string(normlab::name_of(s.dtype)) + "/" + std::to_string(s.rows) + "x" +
         std::to_string(s.cols);
}

// Named block_sweep/<kernel>@<threads>/<dtype>/<rows>x<cols>.
void register_block_sweep() {
  static std::vector<normlab::KernelEntry> sized;
  sized.reserve(2 * normlab::kBlockSizes.size());
  for (int threads : normlab::kBlockSizes) {
    sized.push_back(normlab::ch02::kernel_with_threads(threads));
    sized.push_back(normlab::ch03::kernel_with_threads(threads));
  }
  for (const BenchShape& s : kBlockSweepShapes) {
    for (const normlab::KernelEntry& kernel : sized) {
      const normlab::Case c = normlab::default_case(kernel.op, s.rows, s.cols, s.dtype);
      register_benchmark("block_sweep/" + kernel.name + "/" + shape_name(s), &kernel, c);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (const std::string reason = normlab::gpu_unavailable_reason(); !reason.empty()) {
    std::fprintf(stderr, "normlab_bench: %s; the benchmarks need a CUDA GPU.\n", reason.c_str());
    return normlab::kNoGpuExitCode;
  }
  benchmark::Initialize(&argc, argv);
  benchmark::AddCustomContext("gpu", normlab::device_name());
  benchmark::AddCustomContext("copy_roof_gbps", std::to_string(normlab::copy_roof().gbps));
  std::vector<const normlab::KernelEntry*> by_op;
  for (const normlab::KernelEntry& kernel : normlab::kernel_registry())
    by_op.push_back(&kernel);
  std::stable_sort(by_op.begin(), by_op.end(),
                   [](const auto* a, const auto* b) { return a->op < b->op; });
  // A refused kernel is skipped with its reason, said once per kernel and reason.
  std::set<std::pair<std::string, std::string>> refusals_said;
  for (const BenchShape& s : kShapes) {
    for (const normlab::KernelEntry* kernel : by_op) {
      const normlab::Case c = normlab::default_case(kernel->op, s.rows, s.cols, s.dtype);
      if (const std::string refusal = kernel->refusal(c); !refusal.empty()) {
        if (refusals_said.emplace(kernel->name, refusal).second)
          std::fprintf(
              stderr,
              "normlab_bench: skipping %s on %s (and wherever it is refused for this): %s\n",
              kernel->name.c_str(), shape_name(s).c_str(), refusal.c_str());
        continue;
      }
      register_benchmark(kernel->name + "/" + shape_name(s), kernel, c);
    }
  }
  register_block_sweep();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
