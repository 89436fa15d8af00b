// SPDX-License-Identifier: Apache-2.0
/// @file cluster_sum.cuh
/// @brief The cluster family's exchange (taught in chapter 10): the total of one float a thread
/// over every thread of a thread-block cluster, pushed between blocks with st.async, no cluster
/// barrier a row. The forward kernel (cluster.cu) and the backward one (cluster_backward.cu)
/// take their rows' sums through it.
#pragma once

#include <cooperative_groups.h>

#include <cuda/ptx>

#include <algorithm>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "choose_path.hpp"
#include "normlab/check.hpp"
#include "normlab/device/reduce.cuh"
#include "normlab/kernel_attributes.hpp"

namespace normlab::kernels::spread {

namespace cg = cooperative_groups;

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
// ClusterSum replaces ex10's exchange: each block writes its total into its own slot,
// cluster.sync(), then reads every block's slot through DSMEM. Traced (chapter 10's page has
// the trace), that barrier and the reads after it took more than half of a row's time. The
// pushed bytes take as long to land under that load, but nothing else waits for them: no reads
// after, no barrier at the end, and the kernel finishes a row's last sum a row after starting
// it.
// [cluster_exchange]
// The total of one float a thread over the cluster, with no cluster barrier. start(): the
// block adds its threads' values (block_sum); its first threads push the total into this
// block's slot of every block's inbox with st.async, a store into another block's shared
// memory that also counts its bytes on that block's mbarrier. finish(): a block waits on its
// own mbarrier until every block's 4 bytes have landed, and each warp adds them in the same
// butterfly, so every block normalises with the same bits. operator() does both at once.
// Four inboxes, used in turn, each with an mbarrier (one phase per use). A block pushes
// exchange e + 4 only after finishing an exchange that every block starts only after it has
// finished e (RMSNorm: e + 2; LayerNorm: a later row's mean, e + 2 after a mean and e + 3
// after a row's squares, which are finished after the next row's mean), and a block pushes
// only after block_sum's barriers, which follow all its threads' reads of the exchanges it
// finished before. So no slot is overwritten unread, and no phase of an mbarrier gets the
// bytes of its inbox's next use.
class ClusterSum {
 public:
  static constexpr int kInboxes = 4;
  struct Inboxes {
    float total[kInboxes][kMostClusterBlocks];
    std::uint64_t landed[kInboxes];  // mbarriers: every block's total has landed
  };
  // An exchange started and not yet finished: its inbox, and the phase (mod 2) to wait for.
  struct Ticket {
    int inbox;
    std::uint32_t parity;
  };

  // Sets up the mbarriers; a cluster barrier then keeps every block from pushing into a
  // neighbour's inbox before it is set up. Its wait comes at once, or at the first push, so
  // that the kernel's loads in between overlap the barrier's trip.
  enum class Barrier { wait_now, wait_at_first_push };
  __device__ ClusterSum(const cg::cluster_group& cluster, Inboxes& in,
                        Barrier barrier = Barrier::wait_now)
      : cluster_(cluster), in_(in), barrier_pending_(barrier == Barrier::wait_at_first_push) {
    if (threadIdx.x == 0) {
      for (std::uint64_t& landed : in_.landed)
        cuda::ptx::mbarrier_init(&landed, 1);
      cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
    }
    cluster_.barrier_arrive();
    if (!barrier_pending_) cluster_.barrier_wait();
  }

  __device__ Ticket start(float value) {
    const Ticket ticket{static_cast<int>(round_ % kInboxes), round_ / kInboxes % 2};
    ++round_;
    const float block_total = device::block_sum(value);
    if (barrier_pending_) {
      cluster_.barrier_wait();
      barrier_pending_ = false;
    }
    const unsigned int blocks = cluster_.num_blocks();
    if (threadIdx.x == 0) {
      cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cluster,
                                           cuda::ptx::space_shared, &in_.landed[ticket.inbox],
                                           blocks * static_cast<unsigned int>(sizeof(float)));
    }
    if (threadIdx.x < blocks) {
      float* slot = &in_.total[ticket.inbox][cluster_.block_rank()];
      cuda::ptx::st_async(cluster_.map_shared_rank(slot, threadIdx.x), block_total,
                          cluster_.map_shared_rank(&in_.landed[ticket.inbox], threadIdx.x));
    }
    return ticket;
  }

  __device__ float finish(Ticket ticket) const {
    while (!cuda::ptx::mbarrier_try_wait_parity(cuda::ptx::sem_acquire, cuda::ptx::scope_cluster,
                                                &in_.landed[ticket.inbox], ticket.parity)) {
    }
    const unsigned int lane = threadIdx.x % device::kWarpSize;
    return device::warp_sum(lane < cluster_.num_blocks() ? in_.total[ticket.inbox][lane] : 0.0f);
  }

  __device__ float operator()(float value) { return finish(start(value)); }

 private:
  cg::cluster_group cluster_;
  Inboxes& in_;
  bool barrier_pending_;
  unsigned int round_ = 0;
};
// [cluster_exchange]
#endif

// [cluster_grid]
// A grid of thread-block clusters for @p kernel: clusters of @p blocks blocks of @p threads
// threads and @p shared_bytes of dynamic shared memory each. resident() is how many such
// clusters the GPU holds at once (a cluster that does not fit is a runtime_error); launch()
// starts that many or fewer, each looping over rows, so that no cluster waits to be launched.
template <typename Kernel>
class ClusterGrid {
 public:
  // st.async into a block's shared memory needs a cluster of 2 blocks or more (compute-sanitizer
  // reports a 1-block cluster's pushes as invalid writes): a row one block holds takes 2, the
  // second block's chunks all past the row.
  static constexpr int kLeastBlocks = 2;

  ClusterGrid(Kernel kernel, int blocks, int threads, std::size_t shared_bytes, cudaStream_t stream)
      : kernel_(kernel), blocks_(std::max(blocks, kLeastBlocks)) {
    size_.id = cudaLaunchAttributeClusterDimension;
    size_.val.clusterDim.x = static_cast<unsigned int>(blocks_);
    size_.val.clusterDim.y = 1;
    size_.val.clusterDim.z = 1;
    config_.gridDim = dim3(static_cast<unsigned int>(blocks_));
    config_.blockDim = dim3(static_cast<unsigned int>(threads));
    config_.dynamicSmemBytes = shared_bytes;
    config_.stream = stream;
    config_.attrs = &size_;
    config_.numAttrs = 1;
    // Asked of the driver once for this kernel, device and shape (kernel_attributes.hpp), with
    // the kernel allowed the shared memory and, past 8 blocks, the non-portable cluster size.
    resident_ = resident_clusters(reinterpret_cast<const void*>(kernel), config_, blocks_);
    if (resident_ < 1) {
      throw std::runtime_error("ch10 cluster: a cluster of " + std::to_string(blocks_) +
                               " blocks does not fit this GPU");
    }
  }
  ClusterGrid(const ClusterGrid&) = delete;  // config_ points at size_
  ClusterGrid& operator=(const ClusterGrid&) = delete;

  std::int64_t resident() const { return resident_; }

  template <typename... Args>
  void launch(std::int64_t clusters, const Args&... args) {
    config_.gridDim = dim3(static_cast<unsigned int>(clusters * blocks_));
    NORMLAB_CHECK(cudaLaunchKernelEx(&config_, kernel_, args...));
  }

 private:
  Kernel kernel_;
  int blocks_;
  int resident_ = 0;
  cudaLaunchAttribute size_{};
  cudaLaunchConfig_t config_{};
};
// [cluster_grid]

// One row a cluster of @p kernel over the rows of @p t (Tensors): as many clusters as the GPU
// holds at once, fewer when there are fewer rows.
template <typename Kernel, typename Rows>
void launch_row_clusters(Kernel kernel, const Rows& t, int blocks, int threads,
                         std::size_t shared_bytes, cudaStream_t stream) {
  ClusterGrid grid(kernel, blocks, threads, shared_bytes, stream);
  grid.launch(std::min<std::int64_t>(t.rows, grid.resident()), t);
}

}  // namespace normlab::kernels::spread
