// SPDX-License-Identifier: Apache-2.0
/// @file ex10.cuh
/// @brief Exercise 10: fp32 RMSNorm of rows too long for one block (chapter 10). Each row is
/// split over a cluster of four blocks, each holding a slice in registers; the blocks' partial
/// sums of squares meet in distributed shared memory.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace normlab::ex10 {

/// Blocks a cluster, one row a cluster at a time: 4 blocks is within the portable cluster size
/// (8) that every sm_90 GPU schedules.
inline constexpr int kClusterBlocks = 4;
/// Threads a block.
inline constexpr int kThreads = 256;
/// 16-byte chunks (four floats) of the row each thread keeps in registers.
inline constexpr int kVectors = 8;
/// Columns a block holds: its slice of the row, 8192.
inline constexpr std::int64_t kSliceCols = std::int64_t{kThreads} * kVectors * 4;
/// The widest row the cluster holds, 32768.
inline constexpr std::int64_t kMostCols = kClusterBlocks * kSliceCols;
/// Thread-block clusters and distributed shared memory need compute capability 9.0.
inline constexpr int kMinComputeCapability = 90;

/// y = x / sqrt(mean(x^2) + eps) * weight for every row of a rows x cols fp32 tensor, any rows,
/// 1 <= cols <= kMostCols. x, y and weight must be 16-byte aligned and the strides multiples of
/// 4 elements, so that every row starts on a 16-byte boundary; cols need not be a multiple of 4.
/// Throws std::invalid_argument naming the argument, or on a GPU older than sm_90 saying so,
/// before anything is launched; rows = 0 launches nothing.
void rmsnorm(const float* x, std::int64_t x_stride, const float* weight, float* y,
             std::int64_t y_stride, std::int64_t rows, std::int64_t cols, float eps,
             cudaStream_t stream);

}  // namespace normlab::ex10
