// SPDX-License-Identifier: Apache-2.0
/// @file ch03.cuh
/// @brief Chapter 03: warp shuffles. The 32 lanes of a warp add their partial sums through
/// registers; shared memory is left with one slot per warp and the block with one barrier, so
/// the block can grow with the row.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace normlab {
struct KernelEntry;  // normlab/kernel.hpp
}  // namespace normlab

namespace normlab::ch03 {

/// The smallest block the launcher picks: chapter 02's.
inline constexpr int kMinThreads = 256;
/// The largest block the launcher picks: the hardware's limit.
inline constexpr int kMaxThreads = 1024;
/// The share of a row each thread should cover.
inline constexpr int kFloatsPerThread = 8;

/// The block size for rows of @p cols floats: the largest power of two from kMinThreads to
/// kMaxThreads that still gives each thread kFloatsPerThread floats (cols 2048 and less: 256;
/// 4096: 512; 8192 and more: 1024).
int threads_for(std::int64_t cols);

/// y = x / sqrt(mean(x^2) + eps) * weight for a strided rows x cols fp32 tensor, one block of
/// threads_for(cols) threads per row, reduced with warp shuffles and one shared slot per warp.
void rmsnorm_warp_shuffle(const float* x, std::int64_t x_stride, const float* weight, float* y,
                          std::int64_t y_stride, std::int64_t rows, std::int64_t cols, float eps,
                          cudaStream_t stream);

/// The same with @p threads threads per block, one of kBlockSizes (normlab/block_size.hpp).
void rmsnorm_warp_shuffle(const float* x, std::int64_t x_stride, const float* weight, float* y,
                          std::int64_t y_stride, std::int64_t rows, std::int64_t cols, float eps,
                          int threads, cudaStream_t stream);

/// An entry (not registered) that runs this chapter's kernel with @p threads threads per block,
/// one of kBlockSizes, named "ch03_rmsnorm_warp_shuffle@<threads>": the benchmarks' block-size
/// sweep.
KernelEntry kernel_with_threads(int threads);

}  // namespace normlab::ch03
