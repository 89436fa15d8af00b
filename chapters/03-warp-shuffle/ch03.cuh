/// @file ch03.cuh
/// @brief Chapter 03: warp shuffles. The 32 lanes of a warp add their partial sums through
/// registers; shared memory is left with one slot per warp and the block with one barrier.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "normlab/registry.hpp"

namespace normlab::ch03 {

/// Threads per block (one block per row).
inline constexpr int kThreads = 256;

/// y = x / sqrt(mean(x^2) + eps) * weight for a strided rows x cols fp32 tensor, one block of
/// kThreads threads per row, reduced with warp shuffles and one shared slot per warp.
void rmsnorm_warp_shuffle(const float* x, std::int64_t x_stride, const float* weight, float* y,
                          std::int64_t y_stride, std::int64_t rows, std::int64_t cols, float eps,
                          cudaStream_t stream);

/// This chapter's registry entries.
std::vector<KernelEntry> kernels();

}  // namespace normlab::ch03
