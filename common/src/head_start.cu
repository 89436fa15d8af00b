// SPDX-License-Identifier: Apache-2.0
#include <cstdint>

#include "normlab/check.hpp"
#include "normlab/timing.hpp"

namespace normlab {

namespace {

// One thread that reads the SM's clock until @p cycles have passed: the GPU busy, touching no
// memory, while the CPU queues what follows.
__global__ void spin(std::int64_t cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

}  // namespace

void queue_head_start(std::int64_t cycles, cudaStream_t stream) {
  if (cycles <= 0) return;
  spin<<<1, 1, 0, stream>>>(cycles);
  NORMLAB_CHECK_LAUNCH();
}

}  // namespace normlab
