// SPDX-License-Identifier: Apache-2.0
/// @file timing.hpp
/// @brief Timing with CUDA events: warm-up, repetitions, median and min, L2 flushed between
/// repetitions so that small problems are not timed out of the cache.
#pragma once

#include <cuda_runtime.h>

#include <functional>

namespace normlab {

struct TimingOptions {
  int warmup = 3;
  int repetitions = 30;
  bool flush_l2 = true;  ///< overwrite a buffer twice the L2 size before each repetition
};

struct Timing {
  double median_ms = 0.0;
  double min_ms = 0.0;
  int repetitions = 0;
};

/// Times @p launch (which enqueues its work on the given stream) with a pair of events per
/// repetition; the L2 flush happens outside the timed region.
Timing time_on_device(const std::function<void(cudaStream_t)>& launch,
                      const TimingOptions& options = {}, cudaStream_t stream = nullptr);

}  // namespace normlab
