// SPDX-License-Identifier: Apache-2.0
// Chapter 12's measurements (measure.hpp).
#include "measure.hpp"

#include <algorithm>
#include <sstream>

#include "normlab/buffer.hpp"
#include "normlab/check.hpp"
#include "normlab/device.hpp"
#include "normlab/op_tensors.hpp"
#include "normlab/roofline.hpp"
#include "reference.hpp"
#include "slices.hpp"

namespace normlab::ch12 {

namespace {

double median(std::vector<double> values) {
  std::nth_element(values.begin(), values.begin() + values.size() / 2, values.end());
  return values[values.size() / 2];
}

}  // namespace

double time_group_us(const Group& group, const std::function<void()>& enqueue,
                     const TimingPlan& plan) {
  const int gpus = group.size();
  std::vector<cudaEvent_t> start(gpus), stop(gpus);
  std::vector<DeviceBuffer<unsigned char>> flush;
  for (int rank = 0; rank < gpus; ++rank) {
    group.use(rank);
    NORMLAB_CHECK(cudaEventCreate(&start[rank]));
    NORMLAB_CHECK(cudaEventCreate(&stop[rank]));
    flush.emplace_back(2 * static_cast<std::size_t>(l2_cache_bytes()));
  }
  enqueue();  // warm-up: cuBLASLt and NCCL set up on their first call
  group.synchronize();
  std::vector<double> samples;
  for (int s = 0; s < plan.samples; ++s) {
    for (int rank = 0; rank < gpus; ++rank) {
      group.use(rank);
      flush[rank].poison(group.stream(rank));
      NORMLAB_CHECK(cudaEventRecord(start[rank], group.stream(rank)));
    }
    for (int step = 0; step < plan.steps; ++step)
      enqueue();
    double slowest = 0.0;
    for (int rank = 0; rank < gpus; ++rank) {
      group.use(rank);
      NORMLAB_CHECK(cudaEventRecord(stop[rank], group.stream(rank)));
    }
    for (int rank = 0; rank < gpus; ++rank) {
      group.use(rank);
      NORMLAB_CHECK(cudaEventSynchronize(stop[rank]));
      float ms = 0.0f;
      NORMLAB_CHECK(cudaEventElapsedTime(&ms, start[rank], stop[rank]));
      slowest = std::max(slowest, 1000.0 * ms / plan.steps);
    }
    samples.push_back(slowest);
  }
  for (int rank = 0; rank < gpus; ++rank) {
    group.use(rank);
    NORMLAB_CHECK(cudaEventDestroy(start[rank]));
    NORMLAB_CHECK(cudaEventDestroy(stop[rank]));
    flush[rank] = {};
  }
  return median(samples);
}

NormResult measure_norm(const Group& group, const Case& problem, const KernelEntry& one_gpu,
                        const TimingPlan& plan) {
  const char* fn = "ch12::measure_norm";
  check_argument(problem.pad == 0 && problem.misalign == 0 && !problem.in_place, fn, "problem",
                 "must be dense, aligned and out of place (each rank holds a dense slice)");
  const int ranks = group.size();
  const std::int64_t cols = problem.shape.cols;
  NormResult result{.problem = problem, .ranks = ranks};
  // Each rank sends its own moments, one a row, whichever collective carries them.
  result.message_bytes = exchange_bytes(Op::rmsnorm, problem.shape.rows, 1);

  const HostTensors inputs = make_inputs(problem);
  HostTensors results = make_results(problem);
  std::vector<RankShare> shares;
  std::vector<NormCall> calls;
  std::vector<void*> exchange;
  for (int rank = 0; rank < ranks; ++rank) {
    group.use(rank);
    shares.push_back(share_of(problem, inputs, results, columns_of(cols, ranks, rank), ranks));
    calls.push_back(shares.back().call);
    exchange.push_back(shares.back().exchange.data());
  }
  sharded_norm(group, calls, exchange, cols);
  group.synchronize();
  const bool statistics_agree =
      collect(problem, shares, results, [&](int rank) { group.use(rank); });
  std::ostringstream verdict;
  result.passed = statistics_agree;
  for (const CompareReport& report : compare_results(problem, inputs, results)) {
    result.passed = result.passed && report.passed();
    verdict << report.describe() << "\n";
  }
  verdict << (statistics_agree ? "every rank's statistics equal rank 0's, bit for bit"
                               : "FAILED: the ranks' statistics differ");
  result.verdict = verdict.str();

  if (result.passed) {
    result.step_us = time_group_us(
        group, [&] { sharded_norm(group, calls, exchange, cols); }, plan);
    result.moments_us = time_group_us(
        group,
        [&] {
          for (int rank = 0; rank < ranks; ++rank) {
            group.use(rank);
            partial_moments(calls[rank], exchange[rank], group.stream(rank));
          }
        },
        plan);
    result.exchange_us = time_group_us(
        group, [&] { exchange_moments(problem.op, group, exchange, problem.shape.rows); }, plan);
    result.normalise_us = time_group_us(
        group,
        [&] {
          for (int rank = 0; rank < ranks; ++rank) {
            group.use(rank);
            normalise_slice(calls[rank], exchange[rank], ranks, cols, group.stream(rank));
          }
        },
        plan);
  }
  release(group, shares);

  group.use(0);
  const Measurement whole = measure(one_gpu, problem);
  result.one_gpu_us = 1000.0 * whole.timing.median_ms;
  result.one_gpu_percent = whole.percent_of_roof;
  if (result.passed) {
    const double gbps =
        gigabytes_per_second(bytes_moved(problem.op, problem.shape), result.step_us / 1000.0);
    result.percent_of_roof = percent_of_copy_roof(gbps) / ranks;
  }
  return result;
}

LinearResult measure_linear(const Group& group, std::int64_t tokens, std::int64_t k_cols,
                            std::int64_t n_cols, const TimingPlan& plan, std::uint64_t seed) {
  const int ranks = group.size();
  LinearResult result{.tokens = tokens, .k_cols = k_cols, .n_cols = n_cols, .ranks = ranks};
  const ch11::Problem p = ch11::random_problem(tokens, k_cols, n_cols, seed);
  LinearShares linear = linear_shares(group, p, ch11::sample_rows(tokens, 16));
  const std::vector<LinearShard>& shards = linear.shards;
  ShardedNormLinear layer(group, tokens, k_cols, n_cols, p.eps);

  std::ostringstream verdict;
  result.passed = true;
  for (Schedule schedule : {Schedule::normalise_first, Schedule::deferred, Schedule::overlapped}) {
    const std::vector<ch11::Verdict> verdicts = check_step(group, layer, schedule, linear);
    for (int rank = 0; rank < ranks; ++rank) {
      result.passed = result.passed && verdicts[rank].passed;
      verdict << name_of(schedule) << ", rank " << rank << ": " << verdicts[rank].report << "\n";
    }
  }
  result.verdict = verdict.str();
  if (result.passed) {
    result.gemm_us = time_group_us(
        group, [&] { layer.gemm_only(shards); }, plan);
    result.norm_passes_us = time_group_us(
        group, [&] { layer.norm_passes_only(shards); }, plan);
    result.normalise_first_us = time_group_us(
        group, [&] { layer.run(Schedule::normalise_first, shards); }, plan);
    result.deferred_us = time_group_us(
        group, [&] { layer.run(Schedule::deferred, shards); }, plan);
    result.overlapped_us = time_group_us(
        group, [&] { layer.run(Schedule::overlapped, shards); }, plan);
    result.timeline = layer.timeline(Schedule::overlapped, shards);
  }
  release(group, linear.shares);
  return result;
}

}  // namespace normlab::ch12
