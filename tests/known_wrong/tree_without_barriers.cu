// SPDX-License-Identifier: Apache-2.0
// Known wrong: chapter 02's tree reduction without its barriers. Nothing orders one warp's
// writes to the shared array before another warp's reads of them, and nothing stops the
// compiler from reading a level's inputs before this thread's previous level is stored.
#include "known_wrong_ladder.hpp"
#include "known_wrong_launch.cuh"

namespace normlab::known_wrong {

namespace {

constexpr int kThreads = 256;  // 8 warps: enough for warps to race one another

__global__ void tree_without_barriers(const float* __restrict__ x, std::int64_t x_stride,
                                      const float* __restrict__ weight, float* __restrict__ y,
                                      std::int64_t y_stride, std::int64_t cols, float eps) {
  __shared__ float partial[kThreads];
  const int t = threadIdx.x;
  const float* x_row = x + static_cast<std::int64_t>(blockIdx.x) * x_stride;
  float* y_row = y + static_cast<std::int64_t>(blockIdx.x) * y_stride;

  float sum_of_squares = 0.0f;
  for (std::int64_t c = t; c < cols; c += kThreads)
    sum_of_squares += x_row[c] * x_row[c];
  partial[t] = sum_of_squares;
  // BUG: no __syncthreads() here ...
#pragma unroll
  for (int active = kThreads / 2; active > 0; active /= 2) {
    if (t < active) partial[t] += partial[t + active];
    // BUG: ... nor here.
  }
  const float inverse_rms = rsqrtf(partial[0] / static_cast<float>(cols) + eps);
  for (std::int64_t c = t; c < cols; c += kThreads) {
    y_row[c] = x_row[c] * inverse_rms * weight[c];
  }
}

}  // namespace

void rmsnorm_tree_without_barriers(const NormCall& c, cudaStream_t stream) {
  launch_row_per_block("known_wrong::rmsnorm_tree_without_barriers", tree_without_barriers,
                       kThreads, c, stream);
}

}  // namespace normlab::known_wrong
