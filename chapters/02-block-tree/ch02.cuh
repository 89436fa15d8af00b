/// @file ch02.cuh
/// @brief Chapter 02: one block per row. Threads of a block share a row, read it coalesced,
/// and combine their partial sums through a shared-memory tree with a barrier per level.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "normlab/registry.hpp"

namespace normlab::ch02 {

/// Threads per block (one block per row).
inline constexpr int kThreads = 256;

/// y = x / sqrt(mean(x^2) + eps) * weight for a strided rows x cols fp32 tensor, one block of
/// kThreads threads per row, reduced through a shared-memory tree.
void rmsnorm_block_tree(const float* x, std::int64_t x_stride, const float* weight, float* y,
                        std::int64_t y_stride, std::int64_t rows, std::int64_t cols, float eps,
                        cudaStream_t stream);

/// This chapter's registry entries.
std::vector<KernelEntry> kernels();

}  // namespace normlab::ch02
