// SPDX-License-Identifier: Apache-2.0
/// @file ch02.cuh
/// @brief Chapter 02: one block per row. Threads of a block share a row, read it coalesced,
/// and combine their partial sums through a shared-memory tree with a barrier per level.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace normlab {
struct KernelEntry;  // normlab/kernel.hpp
}  // namespace normlab

namespace normlab::ch02 {

/// Threads per block (one block per row) of the registered kernel.
inline constexpr int kThreads = 256;

/// y = x / sqrt(mean(x^2) + eps) * weight for a strided rows x cols fp32 tensor, one block of
/// kThreads threads per row, reduced through a shared-memory tree.
void rmsnorm_block_tree(const float* x, std::int64_t x_stride, const float* weight, float* y,
                        std::int64_t y_stride, std::int64_t rows, std::int64_t cols, float eps,
                        cudaStream_t stream);

/// The same with @p threads threads per block, one of kBlockSizes (normlab/block_size.hpp).
/// Chapter 03 uses it to measure how the tree's cost grows with the block.
void rmsnorm_block_tree(const float* x, std::int64_t x_stride, const float* weight, float* y,
                        std::int64_t y_stride, std::int64_t rows, std::int64_t cols, float eps,
                        int threads, cudaStream_t stream);

/// An entry (not registered) that runs this chapter's kernel with @p threads threads per block,
/// one of kBlockSizes, named "ch02_rmsnorm_block_tree@<threads>": the benchmarks' block-size sweep.
KernelEntry kernel_with_threads(int threads);

}  // namespace normlab::ch02
