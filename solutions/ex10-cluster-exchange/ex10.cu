// SPDX-License-Identifier: Apache-2.0
// Exercise 10: the DSMEM exchange.
//
// Chapter 04 keeps a row in the registers of one block; past a block's registers the row must
// be read twice. Chapter 10 splits the row over a cluster instead: kClusterBlocks blocks that
// the GPU runs at the same time, on neighbouring SMs, and that may read each other's shared
// memory (distributed shared memory, DSMEM). Each block keeps a slice of the row in registers
// and sums its squares as chapter 04 does; what is left is to add up the blocks' partial sums,
// which is this exercise: cluster_sum.
//
// The grid is as many clusters as the GPU holds at once (or fewer, when there are fewer rows),
// and each cluster loops over rows: cluster c takes rows c, c + clusters, ... So cluster_sum is
// called once a row, again and again, by every thread of the cluster.
#include "ex10.cuh"

#include <cooperative_groups.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "normlab/arguments.hpp"
#include "normlab/check.hpp"
#include "normlab/device.hpp"
#include "normlab/device/reduce.cuh"
#include "normlab/device/vector.cuh"

namespace normlab::ex10 {

namespace {

namespace cg = cooperative_groups;
using device::block_sum;
using device::load_chunk;
using device::store_chunk;
using Chunk = device::Vector<float>;  // four floats in 16 bytes

constexpr int kWidth = Chunk::kWidth;
static_assert(kSliceCols == std::int64_t{kThreads} * kVectors * kWidth);

// Clusters exist from sm_90 on. The build also compiles this file for older GPUs (the preset
// older-gpus), where the cluster API is not declared: there the kernel is a stub that traps,
// and the launcher refuses such a GPU before it could launch it.
#if __CUDA_ARCH__ >= 900
// The sum of @p block_partial over the blocks of the cluster, in every thread of every block,
// with the same bits everywhere. Every thread of the cluster calls it, once a row: @p
// block_partial is its block's sum (the same in every thread of the block), @p round counts
// the calls (0 for the cluster's first row, 1 for its second, ...), and @p last is true on the
// call for the cluster's last row, after which its blocks leave the kernel.
__device__ float cluster_sum(float block_partial, int round, bool last) {
  // TODO(ex10) begin: publish the block's partial, then add up every block's, in rank order
  const cg::cluster_group cluster = cg::this_cluster();
  // Two slots a block, used in turn: round k + 2 writes the slot that round k's readers read,
  // and every block has passed round k + 1's sync, so finished those reads, by then.
  __shared__ float slots[2];
  float* const slot = &slots[round % 2];
  if (threadIdx.x == 0) *slot = block_partial;
  cluster.sync();  // every block's partial is published
  float sum = 0.0f;
#pragma unroll
  for (int rank = 0; rank < kClusterBlocks; ++rank)
    sum += *cluster.map_shared_rank(slot, rank);
  // A block's shared memory goes when the block exits: none may leave while another reads it.
  if (last) cluster.sync();
  return sum;
  // TODO(ex10) end
}
#endif

// Block r of cluster c normalises rows c, c + clusters, ...: its slice of each, columns
// [r * kSliceCols, (r + 1) * kSliceCols). Thread t keeps the slice's chunks t, t + kThreads,
// ... (kVectors of them; chunk k: four floats from column 4k of the slice), so a warp's loads
// are 512 neighbouring bytes. Every thread takes part in every row, those whose chunks lie
// past the row's end included: they hold zeros, and cluster_sum needs all of them.
__global__ void __launch_bounds__(kThreads)
    rmsnorm_cluster(const float* x, std::int64_t x_stride, const float* weight, float* y,
                    std::int64_t y_stride, std::int64_t rows, std::int64_t cols, float eps) {
#if __CUDA_ARCH__ >= 900
  const cg::grid_group grid = cg::this_grid();
  const cg::cluster_group cluster = cg::this_cluster();
  const std::int64_t slice = cluster.block_rank() * kSliceCols;
  // A block's shared memory may be read only once the block has started: this sync makes sure
  // every block of the cluster has, whatever cluster_sum does.
  cluster.sync();
  const auto clusters = static_cast<std::int64_t>(grid.num_clusters());
  int round = 0;
  for (auto row = static_cast<std::int64_t>(grid.cluster_rank()); row < rows;
       row += clusters, ++round) {
    const float* x_row = x + row * x_stride;
    Chunk v[kVectors];
    float squares = 0.0f;
#pragma unroll
    for (int i = 0; i < kVectors; ++i) {
      const std::int64_t first = slice + (std::int64_t{i} * kThreads + threadIdx.x) * kWidth;
      v[i] = load_chunk<false>(x_row, first, cols, true);
#pragma unroll
      for (int j = 0; j < kWidth; ++j)
        squares += v[i].element[j] * v[i].element[j];
    }
    // block_sum, not block_sum_once: the loop reduces again for the next row.
    const float sum = cluster_sum(block_sum(squares), round, row + clusters >= rows);
    const float rstd = rsqrtf(sum / static_cast<float>(cols) + eps);
    float* y_row = y + row * y_stride;
#pragma unroll
    for (int i = 0; i < kVectors; ++i) {
      const std::int64_t first = slice + (std::int64_t{i} * kThreads + threadIdx.x) * kWidth;
      const Chunk w = load_chunk<false>(weight, first, cols, true);
      Chunk out;
#pragma unroll
      for (int j = 0; j < kWidth; ++j)
        out.element[j] = v[i].element[j] * rstd * w.element[j];
      store_chunk<false>(y_row, first, cols, true, out);
    }
  }
#else
  __trap();  // never launched: see above
#endif
}

void refuse_older_gpu(const char* fn) {
  const int gpu = compute_capability();
  if (gpu < kMinComputeCapability) {
    throw std::invalid_argument(
        std::string(fn) + ": needs sm_" + std::to_string(kMinComputeCapability) +
        " or newer (thread-block clusters), this GPU is sm_" + std::to_string(gpu));
  }
}

// The launch of rmsnorm_cluster for @p rows rows on @p stream: clusters of kClusterBlocks
// blocks, as many as the GPU holds at once, no more than there are rows. The cluster's shape
// is a launch attribute (cudaLaunchKernelEx), @p cluster_shape, which also lets the occupancy
// calculator count the clusters that fit.
cudaLaunchConfig_t cluster_launch(std::int64_t rows, cudaStream_t stream,
                                  cudaLaunchAttribute& cluster_shape) {
  cluster_shape.id = cudaLaunchAttributeClusterDimension;
  cluster_shape.val.clusterDim.x = kClusterBlocks;
  cluster_shape.val.clusterDim.y = 1;
  cluster_shape.val.clusterDim.z = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(kClusterBlocks);
  config.blockDim = dim3(kThreads);
  config.stream = stream;
  config.attrs = &cluster_shape;
  config.numAttrs = 1;
  int resident = 0;
  NORMLAB_CHECK(cudaOccupancyMaxActiveClusters(&resident, rmsnorm_cluster, &config));
  if (resident < 1)
    throw std::runtime_error("ex10::rmsnorm: this GPU holds no cluster of 4 blocks");
  const std::int64_t clusters = std::min<std::int64_t>(rows, resident);
  config.gridDim = dim3(static_cast<unsigned int>(clusters * kClusterBlocks));
  return config;
}

}  // namespace

void rmsnorm(const float* x, std::int64_t x_stride, const float* weight, float* y,
             std::int64_t y_stride, std::int64_t rows, std::int64_t cols, float eps,
             cudaStream_t stream) {
  const char* fn = "ex10::rmsnorm";
  validate_rmsnorm_arguments(fn, x, x_stride, weight, y, y_stride, rows, cols, eps);
  check_argument(cols <= kMostCols, fn, "cols",
                 "must be <= " + std::to_string(kMostCols) +
                     " (the row is held in the registers of a cluster, got " +
                     std::to_string(cols) + ")");
  validate_alignment(fn, "x", x, x_stride, sizeof(float), 16);
  validate_alignment(fn, "y", y, y_stride, sizeof(float), 16);
  validate_alignment(fn, "weight", weight, 0, sizeof(float), 16);
  refuse_older_gpu(fn);
  if (rows == 0) return;
  cudaLaunchAttribute cluster_shape{};
  const cudaLaunchConfig_t config = cluster_launch(rows, stream, cluster_shape);
  NORMLAB_CHECK(cudaLaunchKernelEx(&config, rmsnorm_cluster, x, x_stride, weight, y, y_stride, rows,
                                   cols, eps));
}

}  // namespace normlab::ex10
