// SPDX-License-Identifier: Apache-2.0
// Known wrong: eps added to the sum of squares instead of to their mean,
// y = x * w / sqrt((sum(x^2) + eps) / cols). Where mean(x^2) is much larger than eps the
// relative error, eps (1 - 1 / cols) / (2 mean(x^2)), hides in the tolerance; rows of scale
// 1e-3 show it. With cols = 1 the two formulas agree.
#include <cub/block/block_reduce.cuh>

#include "known_wrong_ladder.hpp"
#include "known_wrong_launch.cuh"

namespace normlab::known_wrong {

namespace {

constexpr int kThreads = 256;

__global__ void eps_on_sum(const float* __restrict__ x, std::int64_t x_stride,
                           const float* __restrict__ weight, float* __restrict__ y,
                           std::int64_t y_stride, std::int64_t cols, float eps) {
  using BlockReduce = cub::BlockReduce<float, kThreads>;
  __shared__ typename BlockReduce::TempStorage scratch;
  __shared__ float scale;
  const float* x_row = x + static_cast<std::int64_t>(blockIdx.x) * x_stride;
  float* y_row = y + static_cast<std::int64_t>(blockIdx.x) * y_stride;

  float sum_of_squares = 0.0f;
  for (std::int64_t c = threadIdx.x; c < cols; c += kThreads) {
    sum_of_squares += x_row[c] * x_row[c];
  }
  sum_of_squares = BlockReduce(scratch).Sum(sum_of_squares);
  // BUG: eps is added to the sum, so it is divided by cols with it.
  if (threadIdx.x == 0) scale = rsqrtf((sum_of_squares + eps) / static_cast<float>(cols));
  __syncthreads();
  for (std::int64_t c = threadIdx.x; c < cols; c += kThreads) {
    y_row[c] = x_row[c] * scale * weight[c];
  }
}

}  // namespace

void rmsnorm_eps_on_sum(const NormCall& c, cudaStream_t stream) {
  launch_row_per_block("known_wrong::rmsnorm_eps_on_sum", eps_on_sum, kThreads, c, stream);
}

}  // namespace normlab::known_wrong
