// SPDX-License-Identifier: Apache-2.0
// The host side of `normlab check` at scale, without a GPU: makes the inputs of a case, then
// compares results with the float64 reference (streamed by row blocks on every core), and
// prints the seconds of each step and the bytes it held. The results are the inputs' x, so
// the comparison finds mismatches everywhere: the work is the same as for a correct kernel.
//
//   host_scale [rows] [cols]      default 20000 x 12288, add_rmsnorm fp16 in place
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <thread>

#include "normlab/op_tensors.hpp"
#include "normlab/runner.hpp"

int main(int argc, char** argv) {
  using namespace normlab;
  using Clock = std::chrono::steady_clock;
  const std::int64_t rows = argc > 1 ? std::atoll(argv[1]) : 20000;
  const std::int64_t cols = argc > 2 ? std::atoll(argv[2]) : 12288;
  Case c = default_case(Op::add_rmsnorm, rows, cols, DType::f16);
  c.in_place = true;
  auto seconds = [](Clock::time_point since) {
    return std::chrono::duration<double>(Clock::now() - since).count();
  };
  // Processor seconds of every thread: on a shared machine, what the step costs.
  auto cpu_seconds = [] { return static_cast<double>(std::clock()) / CLOCKS_PER_SEC; };
  std::printf("%s on %u threads\n", c.describe().c_str(), std::thread::hardware_concurrency());

  Clock::time_point start = Clock::now();
  double cpu = cpu_seconds();
  const HostTensors inputs = make_inputs(c);
  const double make_s = seconds(start), make_cpu = cpu_seconds() - cpu;

  start = Clock::now();
  HostTensors results = make_results(c);
  at(results, Tensor::y) = at(inputs, Tensor::x);
  at(results, Tensor::residual_out) = at(inputs, Tensor::residual);
  const double results_s = seconds(start);

  start = Clock::now();
  cpu = cpu_seconds();
  const auto reports = compare_results(c, inputs, results);
  const double compare_s = seconds(start), compare_cpu = cpu_seconds() - cpu;

  std::size_t bytes = 0;
  for (const HostMatrix& m : inputs)
    bytes += m.bytes();
  for (const HostMatrix& m : results)
    bytes += m.bytes();
  const double elements = static_cast<double>(rows) * static_cast<double>(cols);
  std::printf(
      "inputs %.2f s, results %.2f s, reference + comparison %.2f s; host tensors %.2f GB\n",
      make_s, results_s, compare_s, static_cast<double>(bytes) / 1e9);
  std::printf(
      "processor time per element (rows x cols): inputs %.1f ns, reference + comparison "
      "%.1f ns\n",
      make_cpu * 1e9 / elements, compare_cpu * 1e9 / elements);
  for (const CompareReport& r : reports)
    std::printf("  %s: %lld elements checked\n", r.what.c_str(), static_cast<long long>(r.checked));
  return 0;
}
