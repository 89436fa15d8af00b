// SPDX-License-Identifier: Apache-2.0
// Chapter 03: warp shuffles, and the bigger blocks they make affordable.
//
// Chapter 02's tree spent log2(256) = 8 barriers and 16 shared-memory accesses per thread on
// one sum, with most threads idle at each level. But the 32 lanes of a warp execute together
// and can read each other's registers: __shfl_xor_sync(mask, v, offset) hands each lane the v
// of the lane whose index differs in the bit `offset`. Five such exchanges (offsets 16, 8, 4,
// 2, 1) leave the warp's total in every lane, with no shared memory and no barrier. A block
// then needs shared memory only to combine its warps: one slot per warp, one barrier, and a
// second five-step shuffle over the slots.
//
// That reduction costs about the same for 8 warps as for 32, where the tree's grows with every
// doubling of the block. So this chapter also lets the block grow with the row, to about eight
// floats per thread (threads_for). Fewer, bigger blocks mean fewer rows in flight on each SM:
// at 2048 x 8192, 256-thread blocks keep about 1000 rows (33 MB) in flight across the GPU, more
// than the caches hold next to the outputs, so the second read of x goes back to DRAM;
// 1024-thread blocks keep about 260 rows (8.5 MB), and the second read stays on chip (the
// profile in book/results/profile.md: DRAM reads x once, the second read mostly L1 hits).
#include "ch03.cuh"

#include <string>

#include "normlab/arguments.hpp"
#include "normlab/block_size.hpp"
#include "normlab/check.hpp"
#include "reductions.cuh"

namespace normlab::ch03 {

namespace {

// [kernel]
// What changed from chapter 02: the same coalesced strided loops, but the partial sums are
// combined by block_sum (shuffles, one barrier) instead of a shared-memory tree, and the block
// size is a parameter that the launcher picks from the row length.
template <int kBlockThreads>
__global__ void __launch_bounds__(kBlockThreads)
    rmsnorm_warp_shuffle_kernel(const float* __restrict__ x, std::int64_t x_stride,
                                const float* __restrict__ weight, float* __restrict__ y,
                                std::int64_t y_stride, std::int64_t cols, float eps) {
  const int t = threadIdx.x;
  const float* x_row = x + static_cast<std::int64_t>(blockIdx.x) * x_stride;
  float* y_row = y + static_cast<std::int64_t>(blockIdx.x) * y_stride;

  float sum_of_squares = 0.0f;
  for (std::int64_t c = t; c < cols; c += kBlockThreads)
    sum_of_squares += x_row[c] * x_row[c];
  const float total = block_sum<kBlockThreads>(sum_of_squares);
  const float inverse_rms = rsqrtf(total / static_cast<float>(cols) + eps);

  for (std::int64_t c = t; c < cols; c += kBlockThreads) {
    y_row[c] = x_row[c] * inverse_rms * weight[c];
  }
}
// [kernel]

}  // namespace

// [threads_for]
int threads_for(std::int64_t cols) {
  int threads = kMinThreads;
  while (threads < kMaxThreads && 2 * threads * kFloatsPerThread <= cols)
    threads *= 2;
  return threads;
}
// [threads_for]

void rmsnorm_warp_shuffle(const float* x, std::int64_t x_stride, const float* weight, float* y,
                          std::int64_t y_stride, std::int64_t rows, std::int64_t cols, float eps,
                          int threads, cudaStream_t stream) {
  const char* fn = "ch03::rmsnorm_warp_shuffle";
  validate_rmsnorm_arguments(fn, x, x_stride, weight, y, y_stride, rows, cols, eps);
  validate_block_size(fn, threads);
  validate_one_block_per_row(fn, rows);
  if (rows == 0) return;
  with_block_size(threads, [&](auto block) {
    rmsnorm_warp_shuffle_kernel<block()><<<static_cast<unsigned int>(rows), block(), 0, stream>>>(
        x, x_stride, weight, y, y_stride, cols, eps);
    NORMLAB_CHECK_LAUNCH();
  });
}

void rmsnorm_warp_shuffle(const float* x, std::int64_t x_stride, const float* weight, float* y,
                          std::int64_t y_stride, std::int64_t rows, std::int64_t cols, float eps,
                          cudaStream_t stream) {
  rmsnorm_warp_shuffle(x, x_stride, weight, y, y_stride, rows, cols, eps, threads_for(cols),
                       stream);
}

}  // namespace normlab::ch03
