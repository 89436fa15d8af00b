// SPDX-License-Identifier: Apache-2.0
// Known wrong: a DSMEM exchange without the barrier before the reads. Chapter 10 splits a row
// over the blocks of a cluster; each block writes its partial sum of squares into its shared
// memory, and every block adds up all of them through cluster.map_shared_rank. Between the
// writes and the reads there must be a cluster.sync(): without it a block reads a neighbour's
// partial whenever it gets there, and finds the previous row's if the neighbour is still busy
// loading this one (or, on a cluster's first row, whatever that shared memory held), and even
// its own block's slot may be read by one warp before another has written it. Which way each
// read goes is a race, so the kernel is wrong on some runs of some rows, not on all of them
// (test_known_wrong_ch10.cpp says why the cases make a failure all but certain). Its control
// twin has the sync and is otherwise identical. Both keep the other syncs DSMEM needs: one at the
// start (no block reads the shared memory of a block that has not started) and one after the
// reads (no partial is overwritten, or freed at exit, while another block may read it).
#include <cooperative_groups.h>

#include <algorithm>
#include <utility>

#include "cluster_without_sync.hpp"
#include "known_wrong_launch.cuh"
#include "normlab/device/reduce.cuh"

namespace normlab::known_wrong {

namespace {

constexpr int kClusterBlocks = 4;
constexpr int kThreads = 128;
constexpr int kPerThread = 4;                      // floats of the row a thread keeps
constexpr int kSliceCols = kThreads * kPerThread;  // a block's share of the row
constexpr std::int64_t kMostCols = kClusterBlocks * kSliceCols;
constexpr std::int64_t kMostClusters = 16;  // few, so that each loops over many rows

// Cluster c normalises rows c, c + clusters, ...; block r of it holds columns [r * kSliceCols,
// (r + 1) * kSliceCols), thread t of that the columns t, t + kThreads, ... Clusters need sm_90:
// compiled for an older GPU the kernel traps (the harness refuses to run it there).
template <bool kSyncBeforeRead>
__global__ void __launch_bounds__(kThreads)
    rmsnorm_cluster(const float* x, std::int64_t x_stride, const float* weight, float* y,
                    std::int64_t y_stride, std::int64_t rows, std::int64_t cols, float eps) {
#if __CUDA_ARCH__ >= 900
  namespace cg = cooperative_groups;
  const cg::cluster_group cluster = cg::this_cluster();
  __shared__ float partial;  // this block's sum of squares of the current row
  const std::int64_t first_col = cluster.block_rank() * kSliceCols + threadIdx.x;
  const std::int64_t clusters = gridDim.x / kClusterBlocks;
  // Every block has started, so its shared memory exists: the reads below touch no block that
  // is not there yet, even without the sync before them.
  cluster.sync();
  for (std::int64_t row = blockIdx.x / kClusterBlocks; row < rows; row += clusters) {
    float v[kPerThread];
    float squares = 0.0f;
#pragma unroll
    for (int i = 0; i < kPerThread; ++i) {
      const std::int64_t col = first_col + i * kThreads;
      v[i] = col < cols ? x[row * x_stride + col] : 0.0f;
      squares += v[i] * v[i];
    }
    const float block_squares = device::block_sum(squares);
    if (threadIdx.x == 0) partial = block_squares;
    // BUG when kSyncBeforeRead is false: the reads below may come before a block's write above.
    if constexpr (kSyncBeforeRead) cluster.sync();
    float sum = 0.0f;
    for (int rank = 0; rank < kClusterBlocks; ++rank)
      sum += *cluster.map_shared_rank(&partial, rank);
    cluster.sync();  // every block has read every partial: the next row may overwrite them
    const float rstd = rsqrtf(sum / static_cast<float>(cols) + eps);
#pragma unroll
    for (int i = 0; i < kPerThread; ++i) {
      const std::int64_t col = first_col + i * kThreads;
      if (col < cols) y[row * y_stride + col] = v[i] * rstd * weight[col];
    }
  }
#else
  __trap();
#endif
}

template <bool kSyncBeforeRead>
void launch(const NormCall& c, cudaStream_t stream) {
  const char* fn = "known_wrong::rmsnorm_cluster";
  validate_rmsnorm_call(fn, c);
  check_argument(c.cols <= kMostCols, fn, "cols", "at most 2048");
  if (c.rows == 0) return;
  cudaLaunchAttribute cluster_shape{};
  cluster_shape.id = cudaLaunchAttributeClusterDimension;
  cluster_shape.val.clusterDim = {kClusterBlocks, 1, 1};
  const auto clusters = static_cast<unsigned int>(std::min(c.rows, kMostClusters));
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(clusters * kClusterBlocks);
  config.blockDim = dim3(kThreads);
  config.stream = stream;
  config.attrs = &cluster_shape;
  config.numAttrs = 1;
  NORMLAB_CHECK(cudaLaunchKernelEx(&config, rmsnorm_cluster<kSyncBeforeRead>,
                                   static_cast<const float*>(c.x), c.x_stride,
                                   static_cast<const float*>(c.weight), static_cast<float*>(c.y),
                                   c.y_stride, c.rows, c.cols, c.eps));
}

KernelEntry entry(const char* name, const char* summary, Launcher launcher) {
  return {.name = name,
          .chapter = 10,
          .summary = summary,
          .op = Op::rmsnorm,
          .can = {.dtypes = {DType::f32}, .max_cols = kMostCols, .min_compute_capability = 90},
          .launch = std::move(launcher)};
}

}  // namespace

KernelEntry rmsnorm_cluster_without_sync() {
  return entry("known_wrong_rmsnorm_cluster_without_sync",
               "a row over 4 blocks, partials read before the cluster.sync()", launch<false>);
}

KernelEntry rmsnorm_cluster_with_sync() {
  return entry("known_wrong_control_rmsnorm_cluster_with_sync",
               "a row over 4 blocks, partials read after the cluster.sync()", launch<true>);
}

}  // namespace normlab::known_wrong
