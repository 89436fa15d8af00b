// SPDX-License-Identifier: Apache-2.0
/// @file measure.hpp
/// @brief Chapter 12's measurements: a sharded norm verified on every rank against the float64
/// reference of the unsharded rows and timed, step and stages, beside one GPU doing the whole
/// tensor; the norm -> row-parallel linear by its three schedules.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "ch12.hpp"
#include "normlab/kernel.hpp"
#include "normlab/runner.hpp"
#include "overlap.hpp"

namespace normlab::ch12 {

struct TimingPlan {
  int samples = 7;  ///< the median is reported
  int steps = 10;   ///< steps enqueued back to back between a sample's events
};

/// Median over samples of the slowest GPU's time a call of @p enqueue, which enqueues one step
/// on every rank's stream of @p group; each GPU's L2 is flushed before a sample (the steps of a
/// sample after the first find in L2 what the previous one left there, as in a model's layers).
/// Microseconds.
double time_group_us(const Group& group, const std::function<void()>& enqueue,
                     const TimingPlan& plan);

/// One sharded norm: verified, then timed.
struct NormResult {
  Case problem;
  int ranks = 0;
  bool passed = false;
  std::string verdict;           ///< every report of compare_results, and the ranks' statistics
  double one_gpu_us = 0.0;       ///< the whole tensor on GPU 0 by @p one_gpu
  double one_gpu_percent = 0.0;  ///< of GPU 0's copy roof, by the op's bytes model
  double step_us = 0.0;          ///< sharded_norm on every GPU
  double moments_us = 0.0, exchange_us = 0.0, normalise_us = 0.0;  ///< each stage alone
  double percent_of_roof = 0.0;   ///< the op's bytes model in step_us, of ranks x GPU 0's roof
  std::size_t message_bytes = 0;  ///< what each rank sends in the exchange
};

/// Runs @p problem (forward norm; statistics asked for) over @p group: inputs made once on the
/// host, each rank given its columns (columns_of), results poisoned, one step, every rank's
/// slice downloaded into one result and compared with the float64 reference; every rank's
/// statistics must equal rank 0's bit for bit. Then times the step, each stage alone, and
/// @p one_gpu on GPU 0 (Workspace::time) on the whole tensor.
NormResult measure_norm(const Group& group, const Case& problem, const KernelEntry& one_gpu,
                        const TimingPlan& plan);

/// One norm -> row-parallel linear shape by every schedule, verified, then timed.
struct LinearResult {
  std::int64_t tokens = 0, k_cols = 0, n_cols = 0;
  int ranks = 0;
  bool passed = false;
  std::string verdict;
  double gemm_us = 0.0;         ///< the GEMM alone (raw x by W*)
  double norm_passes_us = 0.0;  ///< moments, 1/RMS and the scale alone, no exchange
  double normalise_first_us = 0.0, deferred_us = 0.0, overlapped_us = 0.0;
  std::vector<Stage> timeline;  ///< one overlapped step, event by event
};

LinearResult measure_linear(const Group& group, std::int64_t tokens, std::int64_t k_cols,
                            std::int64_t n_cols, const TimingPlan& plan, std::uint64_t seed);

}  // namespace normlab::ch12
