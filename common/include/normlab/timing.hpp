// SPDX-License-Identifier: Apache-2.0
/// @file timing.hpp
/// @brief Timing with CUDA events: warm-up, repetitions, median and min, L2 flushed between
/// repetitions so that small problems are not timed out of the cache.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <functional>

namespace normlab {

struct TimingOptions {
  int warmup = 3;
  int repetitions = 30;
  bool flush_l2 = true;  ///< overwrite a buffer twice the L2 size before each repetition
  /// GPU cycles of a busy-wait queued after the flush and before the start event (0: none), as
  /// bench/compare_peers.py queues before each repetition: the kernel then starts a while after
  /// the flush's last write, not on its heels, and which configuration wins a call of a few
  /// microseconds is decided as the comparison tool decides it.
  std::int64_t head_start_cycles = 0;
};

/// The comparison tool's head start (HEAD_START_CYCLES in bench/compare_peers.py).
inline constexpr std::int64_t kHeadStartCycles = 500000;

struct Timing {
  double median_ms = 0.0;
  double min_ms = 0.0;
  int repetitions = 0;
};

/// Times @p launch (which enqueues its work on the given stream) with a pair of events per
/// repetition; the L2 flush and the head start happen outside the timed region.
Timing time_on_device(const std::function<void(cudaStream_t)>& launch,
                      const TimingOptions& options = {}, cudaStream_t stream = nullptr);

/// Queues on @p stream a kernel that keeps the GPU busy for @p cycles (nothing when 0).
void queue_head_start(std::int64_t cycles, cudaStream_t stream);

}  // namespace normlab
