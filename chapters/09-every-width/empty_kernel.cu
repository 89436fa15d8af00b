// SPDX-License-Identifier: Apache-2.0
// Chapter 09's empty kernel (empty_kernel.cuh): the time under which no launch goes.
#include "empty_kernel.cuh"

#include "normlab/check.hpp"
#include "normlab/timing.hpp"

namespace normlab::ch09 {

namespace {

__global__ void empty_kernel() {}

}  // namespace

void launch_empty_kernel(cudaStream_t stream) {
  empty_kernel<<<1, 32, 0, stream>>>();
  NORMLAB_CHECK_LAUNCH();
}

// [empty]
double empty_kernel_microseconds(cudaStream_t stream) {
  const Timing timing = time_on_device(
      launch_empty_kernel, {.warmup = 10, .repetitions = 200, .flush_l2 = false}, stream);
  return timing.median_ms * 1000.0;
}
// [empty]

}  // namespace normlab::ch09
