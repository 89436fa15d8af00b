// SPDX-License-Identifier: Apache-2.0
// Chapter 12's measurements (measure.hpp).
#include "measure.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <sstream>

#include "ch11.cuh"
#include "normlab/buffer.hpp"
#include "normlab/check.hpp"
#include "normlab/device.hpp"
#include "normlab/op_tensors.hpp"
#include "normlab/roofline.hpp"
#include "reference.hpp"

namespace normlab::ch12 {

namespace {

// Columns c of every row of @p host to a dense device matrix (rows x c.count), or back.
void columns_to_device(const HostMatrix& host, Columns c, void* device) {
  const std::size_t e = size_of(host.dtype());
  NORMLAB_CHECK(cudaMemcpy2D(device, c.count * e,
                             static_cast<const unsigned char*>(host.data()) + c.first * e,
                             host.stride() * e, c.count * e, host.rows(), cudaMemcpyHostToDevice));
}

void columns_to_host(const void* device, Columns c, HostMatrix& host) {
  const std::size_t e = size_of(host.dtype());
  NORMLAB_CHECK(cudaMemcpy2D(static_cast<unsigned char*>(host.data()) + c.first * e,
                             host.stride() * e, device, c.count * e, c.count * e, host.rows(),
                             cudaMemcpyDeviceToHost));
}

// One rank's share of a case, on its GPU: each tensor's columns (an activation's or a
// parameter's; a statistic whole), the exchange buffer, and the call that names them.
struct RankShare {
  Columns columns;
  std::array<DeviceBuffer<unsigned char>, kTensorCount> tensors;
  DeviceBuffer<unsigned char> exchange;
  NormCall call;
};

// The columns of @p spec's tensor a rank holds: its own for activations and parameters, the
// whole (one column) for a per-row statistic.
Columns held(const TensorSpec& spec, Columns own) {
  return spec.extent == Extent::per_row ? Columns{0, 1} : own;
}

RankShare share_of(const Case& c, const HostTensors& inputs, const HostTensors& results,
                   Columns own, int ranks) {
  RankShare share{.columns = own};
  share.call = {.op = c.op,
                .dtype = c.shape.dtype,
                .weight_dtype = c.shape.weight_dtype,
                .rows = c.shape.rows,
                .cols = own.count,
                .eps = c.eps,
                .weight_plus_one = c.weight_plus_one};
  for (const TensorSpec& spec : tensors_of(c.op)) {
    if (!present(spec, c)) continue;
    const bool input = spec.role == Role::input;
    const HostMatrix& host = at(input ? inputs : results, spec.tensor);
    const Columns cols = held(spec, own);
    auto& device = share.tensors[static_cast<int>(spec.tensor)];
    device = DeviceBuffer<unsigned char>(
        std::max<std::size_t>(1, host.rows() * cols.count * size_of(host.dtype())));
    if (input) {
      columns_to_device(host, cols, device.data());
    } else {
      device.poison();
    }
    bind(share.call, spec.tensor, device.data(), spec.extent == Extent::matrix ? cols.count : 0);
  }
  share.exchange = DeviceBuffer<unsigned char>(
      std::max<std::size_t>(16, exchange_bytes(c.op, c.shape.rows, ranks)));
  return share;
}

// Frees every rank's device memory with that rank's GPU current.
template <typename Share>
void release(const Group& group, std::vector<Share>& shares) {
  for (int rank = 0; rank < static_cast<int>(shares.size()); ++rank) {
    group.use(rank);
    shares[rank] = Share{};
  }
}

// Downloads every rank's results into @p results (rank 0's statistics), and says whether every
// rank's statistics equal rank 0's bit for bit.
bool collect(const Case& c, const std::vector<RankShare>& shares, HostTensors& results,
             const Group& group) {
  bool statistics_agree = true;
  for (const TensorSpec& spec : tensors_of(c.op)) {
    if (!present(spec, c) || spec.role == Role::input) continue;
    HostMatrix& host = at(results, spec.tensor);
    for (int rank = 0; rank < static_cast<int>(shares.size()); ++rank) {
      group.use(rank);
      const void* device = shares[rank].tensors[static_cast<int>(spec.tensor)].data();
      const Columns cols = held(spec, shares[rank].columns);
      if (spec.extent != Extent::per_row || rank == 0) {
        columns_to_host(device, cols, host);
        continue;
      }
      HostMatrix other(host.dtype(), host.rows(), host.cols());
      columns_to_host(device, cols, other);
      statistics_agree =
          statistics_agree && std::memcmp(other.data(), host.data(), host.bytes()) == 0;
    }
  }
  return statistics_agree;
}

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
  const bool statistics_agree = collect(problem, shares, results, group);
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

namespace {

// One rank's tensors of the norm -> linear problem, on its GPU.
struct LinearShare {
  DeviceBuffer<__half> x, g, w, w_folded, y;
  LinearShard shard() const { return {x.data(), g.data(), w.data(), w_folded.data(), y.data()}; }
};

template <typename T>
DeviceBuffer<T> on_device(const std::vector<T>& host) {
  DeviceBuffer<T> buffer(host.size());
  buffer.upload(host.data());
  return buffer;
}

LinearShare linear_share(const ch11::Problem& p, Columns c) {
  const std::int64_t n = p.n_cols;
  std::vector<__half> x(static_cast<std::size_t>(p.rows * c.count));
  for (std::int64_t r = 0; r < p.rows; ++r)
    std::copy_n(p.x.begin() + r * p.k_cols + c.first, c.count, x.begin() + r * c.count);
  const std::vector<__half> g(p.g.begin() + c.first, p.g.begin() + c.first + c.count);
  const std::vector<__half> w(p.w.begin() + c.first * n, p.w.begin() + (c.first + c.count) * n);
  return {on_device(x), on_device(g), on_device(w),
          on_device(ch11::fold_weights_fp16(g, w, c.count, n)),
          DeviceBuffer<__half>(static_cast<std::size_t>(p.rows * n))};
}

}  // namespace

LinearResult measure_linear(const Group& group, std::int64_t tokens, std::int64_t k_cols,
                            std::int64_t n_cols, const TimingPlan& plan, std::uint64_t seed) {
  const int ranks = group.size();
  LinearResult result{.tokens = tokens, .k_cols = k_cols, .n_cols = n_cols, .ranks = ranks};
  const ch11::Problem p = ch11::random_problem(tokens, k_cols, n_cols, seed);
  const std::vector<std::int64_t> rows_checked = ch11::sample_rows(tokens, 16);
  std::vector<LinearShare> shares;
  std::vector<LinearShard> shards;
  std::vector<ch11::Reference> references;
  for (int rank = 0; rank < ranks; ++rank) {
    const Columns c = columns_of(k_cols, ranks, rank);
    group.use(rank);
    shares.push_back(linear_share(p, c));
    shards.push_back(shares.back().shard());
    references.push_back(ch11::reference(p, rows_checked, c.first, c.count));
  }
  ShardedNormLinear layer(group, tokens, k_cols, n_cols, p.eps);

  std::ostringstream verdict;
  result.passed = true;
  std::vector<__half> y(static_cast<std::size_t>(tokens * n_cols));
  for (Schedule schedule : {Schedule::normalise_first, Schedule::deferred, Schedule::overlapped}) {
    for (int rank = 0; rank < ranks; ++rank) {
      group.use(rank);
      shares[rank].y.poison(group.stream(rank));
    }
    layer.run(schedule, shards);
    group.synchronize();
    for (int rank = 0; rank < ranks; ++rank) {
      group.use(rank);
      shares[rank].y.download(y.data());
      const ch11::Verdict v = ch11::compare(references[rank], y, n_cols, k_cols);
      result.passed = result.passed && v.passed;
      verdict << name_of(schedule) << ", rank " << rank << ": " << v.report << "\n";
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
  release(group, shares);
  return result;
}

}  // namespace normlab::ch12
