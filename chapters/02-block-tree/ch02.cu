// SPDX-License-Identifier: Apache-2.0
// Chapter 02: one block per row, and a shared-memory tree.
//
// Chapter 01 gave each row to one thread. Here a whole block of B threads (256 in the
// registered kernel) works on one row: thread t reads columns t, t + B, t + 2B, ..., so at
// every step the 32 threads of a warp read 32 neighbouring floats (128 bytes: 4 sectors, one
// transaction per sector) instead of 32 floats a row apart. There are now rows x B threads
// instead of rows. The price is cooperation: the threads' partial sums must be added together,
// which they do in shared memory, halving the number of active threads at each level of a tree and
// waiting for each other with __syncthreads() between levels.
#include "ch02.cuh"

#include <string>
#include <utility>

#include "normlab/arguments.hpp"
#include "normlab/block_size.hpp"
#include "normlab/check.hpp"

namespace normlab::ch02 {

namespace {

// [kernel]
// What changed from chapter 01: a block per row, a coalesced strided loop, and a tree
// reduction in shared memory with a barrier per level.
template <int kBlockThreads>
__global__ void __launch_bounds__(kBlockThreads)
    rmsnorm_block_tree_kernel(const float* __restrict__ x, std::int64_t x_stride,
                              const float* __restrict__ weight, float* __restrict__ y,
                              std::int64_t y_stride, std::int64_t cols, float eps) {
  static_assert((kBlockThreads & (kBlockThreads - 1)) == 0,
                "the tree halves kBlockThreads down to 1");
  __shared__ float partial[kBlockThreads];
  const int t = threadIdx.x;
  const float* x_row = x + static_cast<std::int64_t>(blockIdx.x) * x_stride;
  float* y_row = y + static_cast<std::int64_t>(blockIdx.x) * y_stride;

  float sum_of_squares = 0.0f;
  for (std::int64_t c = t; c < cols; c += kBlockThreads)
    sum_of_squares += x_row[c] * x_row[c];

  partial[t] = sum_of_squares;
  __syncthreads();  // every partial is written before anyone reads a neighbour's
#pragma unroll
  for (int active = kBlockThreads / 2; active > 0; active /= 2) {
    if (t < active) partial[t] += partial[t + active];
    __syncthreads();  // this level is complete before the next one reads it
  }
  const float inverse_rms = rsqrtf(partial[0] / static_cast<float>(cols) + eps);

  for (std::int64_t c = t; c < cols; c += kBlockThreads) {
    y_row[c] = x_row[c] * inverse_rms * weight[c];
  }
}
// [kernel]

}  // namespace

void rmsnorm_block_tree(const float* x, std::int64_t x_stride, const float* weight, float* y,
                        std::int64_t y_stride, std::int64_t rows, std::int64_t cols, float eps,
                        int threads, cudaStream_t stream) {
  const char* fn = "ch02::rmsnorm_block_tree";
  validate_rmsnorm_arguments(fn, x, x_stride, weight, y, y_stride, rows, cols, eps);
  validate_block_size(fn, threads);
  validate_one_block_per_row(fn, rows);
  if (rows == 0) return;
  with_block_size(threads, [&](auto block) {
    rmsnorm_block_tree_kernel<block()><<<static_cast<unsigned int>(rows), block(), 0, stream>>>(
        x, x_stride, weight, y, y_stride, cols, eps);
    NORMLAB_CHECK_LAUNCH();
  });
}

void rmsnorm_block_tree(const float* x, std::int64_t x_stride, const float* weight, float* y,
                        std::int64_t y_stride, std::int64_t rows, std::int64_t cols, float eps,
                        cudaStream_t stream) {
  rmsnorm_block_tree(x, x_stride, weight, y, y_stride, rows, cols, eps, kThreads, stream);
}

}  // namespace normlab::ch02
