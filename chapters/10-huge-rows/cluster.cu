// SPDX-License-Identifier: Apache-2.0
// Chapter 10, a row over a thread-block cluster (Hopper, sm_90).
//
// A cluster is a group of up to 8 blocks (16 with the non-portable size) that the hardware
// places together on the SMs of one GPC and runs at the same time. Each block of a cluster can
// read and write the shared memory of the others (distributed shared memory, DSMEM) over the
// SM-to-SM network, and the cluster has its own barrier. So a row too wide for one block's
// registers can live in the registers of a cluster's blocks, and the blocks can add their
// partial sums without a round trip through L2.
#include <cooperative_groups.h>

#include <climits>

#include "launch.cuh"
#include "moments.cuh"
#include "normlab/check.hpp"
#include "normlab/device/reduce.cuh"
#include "row_norm.cuh"

namespace normlab::ch10 {

namespace {

namespace cg = cooperative_groups;

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
// [cluster_exchange]
// The moments of the row from each block's: the block's go to this block's slot in shared
// memory; cluster.sync() makes every block's slot visible to every other (the barrier's arrive
// releases this block's writes, its wait acquires the others', and it also guarantees every
// block of the cluster has started, so its shared memory exists); then lane k of each warp
// reads block k's slot through DSMEM and the warp merges them (warp_merge), so every thread of
// every block gets the same bits and normalises with the same statistics. One exchange a row
// for both norms: LayerNorm's mean and spread travel together as Chan's moments.
// Two slots, used in turn: a slot is written again two rows later, and between a block's read
// of a neighbour's slot and that neighbour's next write to it lies the cluster.sync() of the
// row in between, which the reader must reach first. That same barrier keeps the warps' slots
// of block_reduce_once (one barrier of its own) from being overwritten before they are read.
class ClusterMerge {
 public:
  __device__ ClusterMerge(const cg::cluster_group& cluster, Moments (&slots)[2])
      : cluster_(cluster), slots_(slots) {}

  __device__ Moments operator()(Moments mine) {
    Moments* slot = &slots_[round_++ % 2];
    const Moments block = device::block_reduce_once(mine, device::welford_merge);
    if (threadIdx.x == 0) *slot = block;
    cluster_.sync();
    const unsigned int lane = threadIdx.x % device::kWarpSize;
    return warp_merge(lane < cluster_.num_blocks() ? *cluster_.map_shared_rank(slot, lane)
                                                   : Moments{});
  }

 private:
  cg::cluster_group cluster_;
  Moments (&slots_)[2];
  unsigned int round_ = 0;
};
// [cluster_exchange]
#endif

// [cluster_kernel]
// Chapter 07's row in registers, spread over the N blocks of a cluster: thread t of block k
// keeps chunks v * N * blockDim.x + k * blockDim.x + t, and the statistics come from the
// cluster's moments (ClusterMerge) instead of the block's sums. x is read once. Clusters loop
// over rows. The last cluster.sync() keeps every block resident until no neighbour can still
// be reading its slots: shared memory is gone once its block exits.
template <typename T, typename P, int kVectors, bool kCentre, bool kAdd, bool kAligned>
__global__ void __launch_bounds__(most_cluster_threads(kAligned), 1)
    norm_cluster(const Tensors<T, P> t) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
  constexpr int kWidth = Vector<T>::kWidth;
  __shared__ Moments slots[2];
  const cg::cluster_group cluster = cg::this_cluster();
  const int blocks = static_cast<int>(cluster.num_blocks());
  const ch07::Slice slice{static_cast<int>(cluster.block_rank() * blockDim.x + threadIdx.x),
                          static_cast<int>(blocks * blockDim.x)};
  ClusterMerge merge(cluster, slots);
  const std::int64_t clusters = gridDim.x / blocks;
  for (std::int64_t r = blockIdx.x / blocks; r < t.rows; r += clusters) {
    const auto row = ch07::row_of<kAligned>(t, r);
    Vector<T> h[kVectors];  // x, or x + residual rounded to T
#pragma unroll
    for (int v = 0; v < kVectors; ++v) {
      const std::int64_t first = ch07::chunk_start(slice.chunk(v), kWidth, row.lead);
      h[v] = device::load_chunk<kAligned>(row.x, first, t.cols, true);
      if constexpr (kAdd) h[v] = ch07::add_residual(t, row, first, h[v]);
    }
    const ch07::Statistics s = statistics_of<kCentre>(
        merge(registers_moments<kCentre, kAligned>(h, slice, row.lead, t.cols)), t.cols, t.eps);
    ch07::write_statistics(t, r, s, kCentre, slice);
#pragma unroll
    for (int v = 0; v < kVectors; ++v) {
      const std::int64_t first = ch07::chunk_start(slice.chunk(v), kWidth, row.lead);
      ch07::normalise_and_store(t, row, first, s, h[v]);
    }
  }
  cluster.sync();
#else
  __trap();  // the launcher refuses GPUs without clusters
#endif
}
// [cluster_kernel]

template <typename Kernel, typename T, typename P>
void launch_on_clusters(Kernel kernel, const Tensors<T, P>& t, ClusterShape shape,
                        cudaStream_t stream) {
  if (shape.blocks > 8) {  // beyond the portable cluster size
    NORMLAB_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  }
  const std::int64_t clusters = std::min<std::int64_t>(t.rows, INT_MAX / shape.blocks);
  cudaLaunchAttribute cluster_size{};
  cluster_size.id = cudaLaunchAttributeClusterDimension;
  cluster_size.val.clusterDim.x = static_cast<unsigned int>(shape.blocks);
  cluster_size.val.clusterDim.y = 1;
  cluster_size.val.clusterDim.z = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(static_cast<unsigned int>(clusters * shape.blocks));
  config.blockDim = dim3(static_cast<unsigned int>(shape.threads));
  config.stream = stream;
  config.attrs = &cluster_size;
  config.numAttrs = 1;
  NORMLAB_CHECK(cudaLaunchKernelEx(&config, kernel, t));
}

}  // namespace

template <typename T, typename P, bool kCentre, bool kAdd>
void launch_cluster(const Tensors<T, P>& t, bool aligned, ClusterShape shape, cudaStream_t stream) {
  if (aligned) {
    launch_on_clusters(norm_cluster<T, P, kClusterVectors, kCentre, kAdd, true>, t, shape, stream);
  } else {
    launch_on_clusters(norm_cluster<T, P, kClusterVectors, kCentre, kAdd, false>, t, shape, stream);
  }
}

#define NORMLAB_CH10_CLUSTER(T, P, kCentre, kAdd)                                             \
  template void launch_cluster<T, P, kCentre, kAdd>(const Tensors<T, P>&, bool, ClusterShape, \
                                                    cudaStream_t);
NORMLAB_CH10_FOR_EACH_CALL(NORMLAB_CH10_CLUSTER)

}  // namespace normlab::ch10
