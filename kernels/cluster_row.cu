// SPDX-License-Identifier: Apache-2.0
// The cluster row family (taught in chapter 10): one row a cluster, in registers, for calls of
// few wide rows.
//
// The cluster kernel (cluster.cu) is built for many rows: each block stages rows in shared
// memory and finishes a row's exchange while the next row is reduced, so that the exchange's
// trip between SMs hides behind other rows' loads. A call of one to a few hundred rows has no
// other rows to hide it behind: every step of the one row is on the path the call waits for.
// This kernel takes what a lone row waits for off that path. It is chapter 07's row in
// registers (norm_row_in_registers), spread over the blocks of a cluster as norm_cluster spreads
// it, with three changes:
// - x goes straight into registers, not through a shared-memory stage;
// - the parameters are loaded with x and held (chapter 09's held configurations), not loaded
//   after the statistics, a second trip to memory once the row is reduced;
// - the cluster barrier that guards the exchange's inboxes is arrived at before the loads and
//   waited for at the first push (ClusterSum::Barrier), so that its round trip overlaps theirs.
// The shape is the configuration's (ClusterRowShape): threads a block and chunks a thread, the
// cluster as many blocks as the row then needs.
#include <cooperative_groups.h>

#include <stdexcept>
#include <string>

#include "cluster_sum.cuh"
#include "row_norm.cuh"
#include "spread_launch.cuh"

namespace normlab::kernels::spread {

namespace {

using device::Vector;

// [cluster_row]
template <typename T, typename P, int kVectors, bool kCentre, bool kAdd>
__global__ void __launch_bounds__(kMostClusterRowThreads, 1)
    norm_cluster_row(const Tensors<T, P> t) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
  constexpr bool kAligned = true;  // the launcher refuses rows off the 16-byte grid
  __shared__ ClusterSum::Inboxes inboxes;
  const cg::cluster_group cluster = cg::this_cluster();
  const int blocks = static_cast<int>(cluster.num_blocks());
  const Slice slice{static_cast<int>(cluster.block_rank() * blockDim.x + threadIdx.x),
                    static_cast<int>(blocks * blockDim.x)};
  ClusterSum sum(cluster, inboxes, ClusterSum::Barrier::wait_at_first_push);
  auto statistics = [&](const Vector<T>(&h)[kVectors], const auto& row) {
    return row_statistics<kCentre, kAligned, kVectors>([&](int v) { return h[v]; }, slice, row.lead,
                                                       t.cols, t.eps,
                                                       [&](float value) { return sum(value); });
  };
  const std::int64_t clusters = gridDim.x / blocks;
  for (std::int64_t r = blockIdx.x / blocks; r < t.rows; r += clusters) {
    norm_row_in_registers<T, P, kVectors, kCentre, kAdd, kAligned, kAdd, /*kHeld=*/true>(
        t, r, statistics, slice);
  }
#else
  __trap();  // the launcher refuses GPUs without clusters
#endif
}
// [cluster_row]

template <typename T, typename P, int kVectors, bool kCentre, bool kAdd>
void launch_with(const Tensors<T, P>& t, int blocks, int threads, cudaStream_t stream) {
  launch_row_clusters(norm_cluster_row<T, P, kVectors, kCentre, kAdd>, t, blocks, threads, 0,
                      stream);
}

}  // namespace

template <typename T, typename P, bool kCentre, bool kAdd>
void launch_cluster_row(const Tensors<T, P>& t, ClusterRowShape shape, int blocks,
                        cudaStream_t stream) {
  switch (shape.vectors) {
    case 1:
      return launch_with<T, P, 1, kCentre, kAdd>(t, blocks, shape.threads, stream);
    case 2:
      return launch_with<T, P, 2, kCentre, kAdd>(t, blocks, shape.threads, stream);
    case 4:
      return launch_with<T, P, 4, kCentre, kAdd>(t, blocks, shape.threads, stream);
    case 8:
      return launch_with<T, P, 8, kCentre, kAdd>(t, blocks, shape.threads, stream);
  }
  throw std::invalid_argument("kernels::spread::launch_cluster_row: argument 'shape' has " +
                              std::to_string(shape.vectors) +
                              " vectors a thread; compiled for 1, 2, 4 and 8");
}

#define NORMLAB_SPREAD_CLUSTER_ROW(T, P, kCentre, kAdd)                                        \
  template void launch_cluster_row<T, P, kCentre, kAdd>(const Tensors<T, P>&, ClusterRowShape, \
                                                        int, cudaStream_t);
NORMLAB_FORWARD_FOR_EACH_CALL(NORMLAB_SPREAD_CLUSTER_ROW)

}  // namespace normlab::kernels::spread
