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
#include "normlab/check.hpp"
#include "normlab/device/reduce.cuh"
#include "row_norm.cuh"

namespace normlab::ch10 {

namespace {

namespace cg = cooperative_groups;

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
// [cluster_exchange]
// The total of one float a thread over every thread of the cluster. The block's total goes to
// this block's slot in shared memory; cluster.sync() makes every block's slot visible to every
// other (the barrier's arrive releases this block's writes, its wait acquires the others');
// then lane k of each warp reads block k's slot through DSMEM and the warp adds them. Every
// thread of every block adds the same values in the same butterfly, so each gets the same
// bits, and every block normalises with the same statistics.
// Two slots, used in turn: a slot is written again two exchanges later, and between a block's
// read of a neighbour's slot and that neighbour's next write to it lies the cluster.sync() of
// the exchange in between, which the reader must reach first. That same barrier keeps the
// warps' slots of block_sum_once (one barrier of its own) from being overwritten before they
// are read.
class ClusterSum {
 public:
  __device__ ClusterSum(const cg::cluster_group& cluster, float (&slots)[2])
      : cluster_(cluster), slots_(slots) {}

  __device__ float operator()(float value) {
    float* slot = &slots_[round_++ % 2];
    const float block_total = device::block_sum_once(value);
    if (threadIdx.x == 0) *slot = block_total;
    cluster_.sync();
    const unsigned int lane = threadIdx.x % device::kWarpSize;
    const float partial =
        lane < cluster_.num_blocks() ? *cluster_.map_shared_rank(slot, lane) : 0.0f;
    return device::warp_sum(partial);
  }

 private:
  cg::cluster_group cluster_;
  float (&slots_)[2];
  unsigned int round_ = 0;
};
// [cluster_exchange]
#endif

// [cluster_kernel]
// Chapter 07's row in registers (norm_row_in_registers), spread over the N blocks of a
// cluster: thread t of block k keeps chunks v * N * blockDim.x + k * blockDim.x + t, and the
// statistics' sums are the cluster's (ClusterSum) instead of the block's. x is read once.
// Clusters loop over rows. The last cluster.sync() keeps every block resident until no
// neighbour can still be reading its slots: shared memory is gone once its block exits.
template <typename T, typename P, int kVectors, bool kCentre, bool kAdd, bool kAligned>
__global__ void __launch_bounds__(most_cluster_threads(kAligned), 1)
    norm_cluster(const Tensors<T, P> t) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
  __shared__ float slots[2];
  const cg::cluster_group cluster = cg::this_cluster();
  const int blocks = static_cast<int>(cluster.num_blocks());
  const ch07::Slice slice{static_cast<int>(cluster.block_rank() * blockDim.x + threadIdx.x),
                          static_cast<int>(blocks * blockDim.x)};
  ClusterSum sum(cluster, slots);
  const std::int64_t clusters = gridDim.x / blocks;
  for (std::int64_t r = blockIdx.x / blocks; r < t.rows; r += clusters)
    ch07::norm_row_in_registers<T, P, kVectors, kCentre, kAdd, kAligned>(t, r, slice, sum);
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
NORMLAB_CH07_FOR_EACH_CALL(NORMLAB_CH10_CLUSTER)

}  // namespace normlab::ch10
