// SPDX-License-Identifier: Apache-2.0
// Known wrong: eps added outside the square root, y = x * w / (sqrt(mean(x^2)) + eps). With
// rows of unit scale the two formulas differ by about eps / 2 relative, far inside the fp32
// tolerance; with rows of scale 1e-3, mean(x^2) ~ 1e-6 < eps and they differ by a factor ~3.
#include <cub/block/block_reduce.cuh>

#include "known_wrong_ladder.hpp"
#include "known_wrong_launch.cuh"

namespace normlab::known_wrong {

namespace {

constexpr int kThreads = 256;

__global__ void eps_outside_sqrt(const float* __restrict__ x, std::int64_t x_stride,
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
  // BUG: eps belongs under the square root.
  if (threadIdx.x == 0) scale = 1.0f / (sqrtf(sum_of_squares / static_cast<float>(cols)) + eps);
  __syncthreads();
  for (std::int64_t c = threadIdx.x; c < cols; c += kThreads) {
    y_row[c] = x_row[c] * scale * weight[c];
  }
}

}  // namespace

void rmsnorm_eps_outside_sqrt(const NormCall& c, cudaStream_t stream) {
  launch_row_per_block("known_wrong::rmsnorm_eps_outside_sqrt", eps_outside_sqrt, kThreads, c,
                       stream);
}

}  // namespace normlab::known_wrong
