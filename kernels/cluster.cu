// SPDX-License-Identifier: Apache-2.0
// The cluster family (taught in chapter 10): a row over a thread-block cluster (Hopper, sm_90).
//
// A cluster is a group of up to 8 blocks (16 with the non-portable size) that the hardware
// places together on the SMs of one GPC and runs at the same time. Each block of a cluster can
// read and write the shared memory of the others (distributed shared memory, DSMEM) over the
// SM-to-SM network, and the cluster has its own barrier. So a row too wide for one block's
// registers can live in the registers of a cluster's blocks, and the blocks can add their
// partial sums without a round trip through L2.
#include <cooperative_groups.h>
#include <cuda_pipeline.h>

#include <cuda/ptx>

#include <string>

#include "cluster_sum.cuh"
#include "normlab/check.hpp"
#include "normlab/device/reduce.cuh"
#include "row_norm.cuh"
#include "spread_launch.cuh"

namespace normlab::kernels::spread {

namespace {

using device::same_bits;
using device::Vector;

// Blocks of the most threads (most_cluster_threads) an SM must hold. With the row in shared
// memory a thread needs few registers: on the 16-byte grid 2 blocks of 512, so 64 registers a
// thread and 4 blocks of the usual 256 an SM (at 3, 42 registers, some instances spilled);
// other rows 2 blocks of 256, 128 registers for their element-by-element edges.
inline constexpr int kClusterLeastBlocks = 2;

// Rows a block holds at once, in turn (stages): one waiting for its statistics to be
// finished and normalised, one being reduced, and on the 16-byte grid one more on its way
// (cp.async); rows off the grid come through registers as they are reduced. 3 stages (one
// row copied ahead), not 4: a fourth stage's shared memory costs a block, 3 blocks of 256 an SM
// instead of 4, and a second row ahead does not make up for it (chapter 10's page and worklog
// have the comparison; add + RMSNorm, whose stages hold the residual too, gains nothing by 4).
__host__ __device__ constexpr int stages(bool aligned) {
  return aligned ? 3 : 2;
}
// Tensors a stage holds: x, and for add + norm on the 16-byte grid its residual (copied beside
// it; off the grid h is added in registers and only h is stashed).
__host__ __device__ constexpr int stashed_tensors(bool aligned, bool add) {
  return aligned && add ? 2 : 1;
}

// Chapter 07's row, spread over the N blocks of a cluster: thread t of block k keeps chunks
// v * N * blockDim.x + k * blockDim.x + t, and the statistics' sums are the cluster's
// (ClusterSum) instead of the block's. x is read once. What changed from chapter 07: the row
// waits in shared memory, not in registers, and the next row is on its way while this one is
// reduced (held in registers, 88 a thread, a row left room for 2 blocks an SM and nothing else
// in flight). Rows on the 16-byte grid come by cp.async, straight from global to shared memory,
// into stage b of kStages in turn; others through registers (chapter 07's load_row). The grid
// is as many clusters as the GPU holds at once, each looping over rows, so that no cluster
// waits to be launched and the copies run ahead across rows. And each row's last sum is
// started when the row is reduced and finished one row later, after the previous row is
// normalised and stored: its bytes travel between the SMs while this block stores.
// No cluster barrier at the end: no block reads another's shared memory, and every push into
// a block's inbox is one that block waits for before it finishes its last row.
template <typename T, typename P, int kVectors, bool kCentre, bool kAdd, bool kAligned>
__global__ void __launch_bounds__(most_cluster_threads(kAligned), kClusterLeastBlocks)
    norm_cluster(const Tensors<T, P> t) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
  constexpr int kWidth = Vector<T>::kWidth;
  constexpr bool kCopyAsync = kAligned;
  constexpr int kStages = stages(kAligned);
  constexpr int kAhead = kStages - 2;  // rows copied ahead (cp.async only)
  constexpr int kTensors = stashed_tensors(kAligned, kAdd);
  extern __shared__ uint4 stash[];  // cluster_stash_bytes()
  __shared__ ClusterSum::Inboxes inboxes;
  const cg::cluster_group cluster = cg::this_cluster();
  const int blocks = static_cast<int>(cluster.num_blocks());
  const Slice slice{static_cast<int>(cluster.block_rank() * blockDim.x + threadIdx.x),
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
    const auto row = row_of<kAligned>(t, r);
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
  // [cluster_rows]
  const std::int64_t clusters = gridDim.x / blocks;
  const std::int64_t first_row = blockIdx.x / blocks;
  // The first rows' copies and the parameters (prefetch_parameters) go out before the cluster
  // barrier that sets up the exchange: they touch only this block's shared memory and L2, and
  // the barrier's wait then overlaps their trip to DRAM instead of coming before it.
  if constexpr (kCopyAsync) {
    for (int ahead = 0; ahead < kAhead; ++ahead)
      copy_row(first_row + ahead * clusters, ahead);
  }
  if (first_row < t.rows) {
    prefetch_parameters<T, P, kVectors>(t, row_of<kAligned>(t, first_row), slice);
  }
  ClusterSum sum(cluster, inboxes);
  // A row whose sum of squares is on its way: its stage, its mean, and its exchange.
  struct Pending {
    std::int64_t r;
    int b;
    float mean;
    ClusterSum::Ticket squares;
  };
  auto normalise = [&](const Pending& p) {
    const auto row = row_of<kAligned>(t, p.r);
    const Statistics s = statistics_from(p.mean, sum.finish(p.squares), t.cols, t.eps);
    write_statistics(t, p.r, s, kCentre, slice);
#pragma unroll
    for (int v = 0; v < kVectors; ++v) {
      normalise_and_store(t, row, chunk_start(slice.chunk(v), kWidth, row.lead), s,
                          same_bits<Vector<T>>(at(p.b, 0, v)));
    }
  };
  Pending last{-1, 0, 0.0f, {}};
  int b = 0;  // the stage row r is in
  for (std::int64_t r = first_row; r < t.rows; r += clusters) {
    const auto row = row_of<kAligned>(t, r);
    if constexpr (kCopyAsync) {
      // Into the stage of row r - 2, normalised by this thread (only it reads its chunks).
      copy_row(r + kAhead * clusters, (b + kAhead) % kStages);
      __pipeline_wait_prior(kAhead);  // row r's copies have landed
#pragma unroll
      for (int v = 0; kAdd && v < kVectors; ++v) {
        const std::int64_t first = chunk_start(slice.chunk(v), kWidth, row.lead);
        if (first < t.cols) {
          at(b, 0, v) = same_bits<uint4>(add_residual(
              t, row, first, same_bits<Vector<T>>(at(b, 0, v)), same_bits<Vector<T>>(at(b, 1, v))));
        }
      }
    } else {
      Vector<T> h[kVectors];
      load_row<T, P, kVectors, kAdd, kAligned, kAdd>(t, row, slice, h);
#pragma unroll
      for (int v = 0; v < kVectors; ++v)
        at(b, 0, v) = same_bits<uint4>(h[v]);
    }
    auto stashed = [&](int v) { return same_bits<Vector<T>>(at(b, 0, v)); };
    const Deviations d =
        row_deviations<kCentre, kAligned, kVectors>(stashed, slice, row.lead, t.cols, sum);
    const ClusterSum::Ticket squares = sum.start(d.squares);
    if (last.r >= 0) normalise(last);
    last = {r, b, d.mean, squares};
    b = (b + 1) % kStages;
  }
  if (last.r >= 0) normalise(last);
    // [cluster_rows]
#else
  __trap();  // the launcher refuses GPUs without clusters
#endif
}

// Shared memory a block of @p threads stashes its rows in: kClusterVectors chunks a thread of
// x (and of the residual, for add + norm on the 16-byte grid) for each stage.
std::size_t cluster_stash_bytes(int threads, bool aligned, bool add) {
  const auto chunks = static_cast<std::size_t>(stages(aligned) * stashed_tensors(aligned, add) *
                                               kClusterVectors * threads);
  return chunks * sizeof(uint4);
}

}  // namespace

template <typename T, typename P, bool kCentre, bool kAdd>
void launch_cluster(const Tensors<T, P>& t, bool aligned, ClusterShape shape, cudaStream_t stream) {
  if (aligned) {
    launch_row_clusters(norm_cluster<T, P, kClusterVectors, kCentre, kAdd, true>, t, shape.blocks,
                        shape.threads, cluster_stash_bytes(shape.threads, true, kAdd), stream);
  } else {
    launch_row_clusters(norm_cluster<T, P, kClusterVectors, kCentre, kAdd, false>, t, shape.blocks,
                        shape.threads, cluster_stash_bytes(shape.threads, false, kAdd), stream);
  }
}

#define NORMLAB_SPREAD_CLUSTER(T, P, kCentre, kAdd)                                           \
  template void launch_cluster<T, P, kCentre, kAdd>(const Tensors<T, P>&, bool, ClusterShape, \
                                                    cudaStream_t);
NORMLAB_FORWARD_FOR_EACH_CALL(NORMLAB_SPREAD_CLUSTER)

}  // namespace normlab::kernels::spread
