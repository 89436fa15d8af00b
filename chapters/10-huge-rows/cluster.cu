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
#include <cuda_pipeline.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "launch.cuh"
#include "normlab/check.hpp"
#include "normlab/device/reduce.cuh"
#include "row_norm.cuh"

namespace normlab::ch10 {

namespace {

namespace cg = cooperative_groups;
using ch07::chunk_start;
using device::same_bits;
using device::Vector;

// Blocks of the most threads (most_cluster_threads) an SM must hold. With the row in shared
// memory a thread needs few registers: on the 16-byte grid 2 blocks of 512, so 64 registers a
// thread and 4 blocks of the usual 256 an SM (at 3, 42 registers, some instances spilled);
// other rows 2 blocks of 256, 128 registers for their element-by-element edges.
inline constexpr int kClusterLeastBlocks = 2;

// Rows a block holds at once, in turn (stages): on the 16-byte grid the next ones are copied
// while one is reduced, 3 stages (add + norm, whose residual doubles the bytes, 2, so that 3
// blocks of 256 still fit an SM's shared memory); other rows come through registers, one at
// a time. Measured on an H200 at 512 x 65536 bf16 RMSNorm: 2 stages 58.1%, 3 59.2%.
__host__ __device__ constexpr int stages(bool aligned, bool add) {
  return aligned ? (add ? 2 : 3) : 1;
}
// Tensors a stage holds: x, and for add + norm on the 16-byte grid its residual (copied beside
// it; off the grid h is added in registers and only h is stashed).
__host__ __device__ constexpr int stashed_tensors(bool aligned, bool add) {
  return aligned && add ? 2 : 1;
}

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
// Chapter 07's row, spread over the N blocks of a cluster: thread t of block k keeps chunks
// v * N * blockDim.x + k * blockDim.x + t, and the statistics' sums are the cluster's
// (ClusterSum) instead of the block's. x is read once. What changed from chapter 07: the row
// waits in shared memory, not in registers, and the next rows are on their way while this one
// is reduced. A block spends much of its life at cluster barriers, and only loads in flight
// keep DRAM busy meanwhile; held in registers (88 a thread), a row left room for 2 blocks an
// SM and nothing else in flight. Rows on the 16-byte grid come by cp.async, straight from
// global to shared memory, into stage b of kStages in turn; others through registers
// (chapter 07's load_row). The grid is as many clusters as the GPU holds at once, each looping
// over rows, so that no cluster waits to be launched and the copies run ahead across rows.
// The last cluster.sync() keeps every block resident until no neighbour can still be reading
// its slots: shared memory is gone once its block exits.
template <typename T, typename P, int kVectors, bool kCentre, bool kAdd, bool kAligned>
__global__ void __launch_bounds__(most_cluster_threads(kAligned), kClusterLeastBlocks)
    norm_cluster(const Tensors<T, P> t) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
  constexpr int kWidth = Vector<T>::kWidth;
  constexpr bool kCopyAsync = kAligned;
  constexpr int kStages = stages(kAligned, kAdd);
  constexpr int kTensors = stashed_tensors(kAligned, kAdd);
  extern __shared__ uint4 stash[];  // cluster_stash_bytes()
  __shared__ float slots[2];
  const cg::cluster_group cluster = cg::this_cluster();
  const int blocks = static_cast<int>(cluster.num_blocks());
  const ch07::Slice slice{static_cast<int>(cluster.block_rank() * blockDim.x + threadIdx.x),
                          static_cast<int>(blocks * blockDim.x)};
  // This thread's v-th chunk of tensor k (0 x, or h once added; 1 the residual) in stage b.
  auto at = [&](int b, int k, int v) -> uint4& {
    return stash[((b * kTensors + k) * kVectors + v) * blockDim.x + threadIdx.x];
  };
  // Row r's chunks copied into stage b; a row past the last is a group with nothing in it, so
  // that every row waits for the same number of groups behind it.
  auto copy_row = [&](std::int64_t r, int b) {
    if (r >= t.rows) {
      __pipeline_commit();
      return;
    }
    const auto row = ch07::row_of<kAligned>(t, r);
#pragma unroll
    for (int v = 0; v < kVectors; ++v) {
      const std::int64_t first = chunk_start(slice.chunk(v), kWidth, row.lead);
      for (int k = 0; k < kTensors; ++k) {
        if (first < t.cols) {
          __pipeline_memcpy_async(&at(b, k, v), (k == 0 ? row.x : row.residual) + first,
                                  sizeof(uint4));
        } else {
          at(b, k, v) = uint4{0, 0, 0, 0};  // past the row: zero, as row_statistics expects
        }
      }
    }
    __pipeline_commit();
  };
  ClusterSum sum(cluster, slots);
  const std::int64_t clusters = gridDim.x / blocks;
  const std::int64_t first_row = blockIdx.x / blocks;
  if constexpr (kCopyAsync) {
    for (int ahead = 0; ahead < kStages - 1; ++ahead)
      copy_row(first_row + ahead * clusters, ahead);
  }
  int b = 0;  // the stage row r is in
  for (std::int64_t r = first_row; r < t.rows; r += clusters) {
    const auto row = ch07::row_of<kAligned>(t, r);
    if constexpr (kCopyAsync) {
      copy_row(r + (kStages - 1) * clusters, (b + kStages - 1) % kStages);
      // Row r's copies have landed; only this thread reads them, so no barrier.
      __pipeline_wait_prior(kStages - 1);
#pragma unroll
      for (int v = 0; kAdd && v < kVectors; ++v) {
        const std::int64_t first = chunk_start(slice.chunk(v), kWidth, row.lead);
        if (first < t.cols) {
          at(b, 0, v) = same_bits<uint4>(ch07::add_residual(
              t, row, first, same_bits<Vector<T>>(at(b, 0, v)), same_bits<Vector<T>>(at(b, 1, v))));
        }
      }
    } else {
      Vector<T> h[kVectors];
      ch07::load_row<T, P, kVectors, kAdd, kAligned, kAdd>(t, row, slice, h);
#pragma unroll
      for (int v = 0; v < kVectors; ++v)
        at(b, 0, v) = same_bits<uint4>(h[v]);
    }
    auto held = [&](int v) { return same_bits<Vector<T>>(at(b, 0, v)); };
    const ch07::Statistics s = ch07::row_statistics<kCentre, kAligned, kVectors>(
        held, slice, row.lead, t.cols, t.eps, sum);
    ch07::write_statistics(t, r, s, kCentre, slice);
#pragma unroll
    for (int v = 0; v < kVectors; ++v)
      ch07::normalise_and_store(t, row, chunk_start(slice.chunk(v), kWidth, row.lead), s, held(v));
    b = (b + 1) % kStages;
  }
  cluster.sync();
#else
  __trap();  // the launcher refuses GPUs without clusters
#endif
}
// [cluster_kernel]

// Shared memory a block of @p threads stashes its rows in: kClusterVectors chunks a thread of
// x (and of the residual, for add + norm on the 16-byte grid) for each stage.
std::size_t cluster_stash_bytes(int threads, bool aligned, bool add) {
  const auto chunks = static_cast<std::size_t>(
      stages(aligned, add) * stashed_tensors(aligned, add) * kClusterVectors * threads);
  return chunks * sizeof(uint4);
}

// The grid: as many clusters as the GPU holds at once (fewer when there are fewer rows).
template <typename Kernel, typename T, typename P>
void launch_on_clusters(Kernel kernel, const Tensors<T, P>& t, ClusterShape shape,
                        std::size_t stash_bytes, cudaStream_t stream) {
  if (shape.blocks > 8) {  // beyond the portable cluster size
    NORMLAB_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  }
  NORMLAB_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     static_cast<int>(stash_bytes)));
  cudaLaunchAttribute cluster_size{};
  cluster_size.id = cudaLaunchAttributeClusterDimension;
  cluster_size.val.clusterDim.x = static_cast<unsigned int>(shape.blocks);
  cluster_size.val.clusterDim.y = 1;
  cluster_size.val.clusterDim.z = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(static_cast<unsigned int>(shape.blocks));
  config.blockDim = dim3(static_cast<unsigned int>(shape.threads));
  config.dynamicSmemBytes = stash_bytes;
  config.stream = stream;
  config.attrs = &cluster_size;
  config.numAttrs = 1;
  int resident = 0;
  NORMLAB_CHECK(cudaOccupancyMaxActiveClusters(&resident, kernel, &config));
  if (resident < 1) {
    throw std::runtime_error("ch10 cluster: a cluster of " + std::to_string(shape.blocks) +
                             " blocks does not fit this GPU");
  }
  const std::int64_t clusters = std::min<std::int64_t>(t.rows, resident);
  config.gridDim = dim3(static_cast<unsigned int>(clusters * shape.blocks));
  NORMLAB_CHECK(cudaLaunchKernelEx(&config, kernel, t));
}

}  // namespace

template <typename T, typename P, bool kCentre, bool kAdd>
void launch_cluster(const Tensors<T, P>& t, bool aligned, ClusterShape shape, cudaStream_t stream) {
  if (aligned) {
    launch_on_clusters(norm_cluster<T, P, kClusterVectors, kCentre, kAdd, true>, t, shape,
                       cluster_stash_bytes(shape.threads, true, kAdd), stream);
  } else {
    launch_on_clusters(norm_cluster<T, P, kClusterVectors, kCentre, kAdd, false>, t, shape,
                       cluster_stash_bytes(shape.threads, false, kAdd), stream);
  }
}

#define NORMLAB_CH10_CLUSTER(T, P, kCentre, kAdd)                                             \
  template void launch_cluster<T, P, kCentre, kAdd>(const Tensors<T, P>&, bool, ClusterShape, \
                                                    cudaStream_t);
NORMLAB_CH07_FOR_EACH_CALL(NORMLAB_CH10_CLUSTER)

}  // namespace normlab::ch10
