// SPDX-License-Identifier: Apache-2.0
// The backward family's widest rows (taught in chapter 10): a row over a thread-block cluster.
//
// Chapter 08's kernels keep a row of x and of dy, and each thread's column sums, in one block's
// registers: 12288 columns for RMSNorm, 8192 for LayerNorm. A wider row is spread over the N
// blocks of a cluster as chapter 10's forward spreads it: thread t of block k keeps chunks
// v * N * blockDim.x + k * blockDim.x + t of x and dy in registers, and the row's two sums
// (sum(g) and sum(g * x_hat)) are the cluster's, through ClusterSum's pushed exchange
// (cluster_sum.cuh). x and dy are read from DRAM once and dx written once, as in chapter 08.
// The column sums stay deterministic: a thread owns the same columns in every row its cluster
// walks and keeps their sums in fp32 registers; each cluster stores one partial row, and
// chapter 08's sum_partials adds the partial rows in a fixed order. The grid is as many clusters
// as fit the GPU at once (at most a bound the scratch is sized for), each walking every
// clusters-th row, so the bits depend on the shape and the GPU, never on timing.
#include <cooperative_groups.h>
#include <cuda_pipeline.h>

#include <algorithm>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>

#include "backward_launch.cuh"
#include "cluster_sum.cuh"
#include "normlab/arguments.hpp"
#include "normlab/check.hpp"
#include "normlab/device.hpp"

namespace normlab::kernels::backward {

namespace {

namespace cg = cooperative_groups;
using device::same_bits;

// The cluster for a row: its blocks' shape, and the blocks (0: the row is too wide).
struct ClusterRows {
  ClusterBackwardShape shape;
  int blocks = 0;
};

// The smallest cluster that holds a row of @p chunks: 2 vectors a thread in blocks of 256, then
// (rows on the 16-byte grid) 4, then 4 in blocks of 512, each with the fewest blocks (a power of
// two from 2) up to the portable 8; past that 16 blocks of the widest shape. Fewer, smaller
// blocks a row leave more clusters, so more rows in flight. Rows off the grid keep 2 vectors a
// thread: their element-by-element edges spilled with 4. Blocks of 256 are built for 2 an SM
// (128 registers a thread), blocks of 512 for one.
constexpr ClusterRows kOnGrid[] = {
    {{256, 2, 0, 2}, 8}, {{256, 4, 0, 2}, 8}, {{512, 4, 0, 1}, 8}, {{512, 4, 0, 1}, 16}};
constexpr ClusterRows kOffGrid[] = {{{256, 2, 0, 2}, 8}, {{256, 2, 0, 2}, 16}};

std::span<const ClusterRows> shapes_for(bool aligned) {
  return aligned ? std::span<const ClusterRows>(kOnGrid) : std::span<const ClusterRows>(kOffGrid);
}

ClusterRows cluster_rows_for(std::int64_t chunks, bool aligned) {
  for (const ClusterRows& most : shapes_for(aligned)) {
    const std::int64_t per_block = std::int64_t{most.shape.vectors} * most.shape.threads;
    int blocks = most.blocks == 16 ? 16 : 2;
    while (blocks < most.blocks && blocks * per_block < chunks)
      blocks *= 2;
    if (blocks * per_block >= chunks) return {most.shape, blocks};
  }
  return {};
}

// The most partial rows a call stores: one a cluster, at most as many clusters as the SMs hold.
std::int64_t most_clusters(std::int64_t rows, const ClusterRows& cluster) {
  if (rows <= 1) return rows;  // whatever the GPU, so that one row's scratch is sized without it
  const std::int64_t fit = std::max<std::int64_t>(
      1, std::int64_t{sm_count()} * cluster.shape.sm_blocks / cluster.blocks);
  return std::min(rows, fit);
}

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
using spread::ClusterSum;
#endif

// Whether a kernel keeps its column sums in shared memory (ColumnSums), and how many bytes:
// where registers do not hold them beside the row, 16-bit rows of 4 vectors a thread and kernels
// built for 3 blocks an SM (80 registers a thread).
template <typename T, int kVectors, int kSmBlocks>
inline constexpr bool kSharedSums = (sizeof(T) == 2 && kVectors == 4) || kSmBlocks >= 3;

template <typename T, int kVectors, bool kCentre, int kThreads, int kSmBlocks>
__host__ __device__ constexpr std::size_t shared_sums_bytes() {
  if constexpr (!kSharedSums<T, kVectors, kSmBlocks>) return 0;
  return std::size_t{kCentre ? 2u : 1u} * kVectors * Vector<T>::kWidth * kThreads * sizeof(float);
}

// Whether a kernel without staged rows loads the next row ahead into registers
// (backward_cluster): where the registers hold it, all but 16-bit LayerNorm off the 16-byte grid
// (its element-by-element edges spilled with it).
template <typename T, bool kCentre, bool kAligned>
inline constexpr bool kLoadsAhead = kAligned || !kCentre || sizeof(T) == 4;

// A block's rows copied ahead into shared memory (kStaged of them, rows on the 16-byte grid):
// stage b holds this thread's kVectors chunks of x and of dy, slot ((b * 2 + k) * kVectors + v)
// * kThreads + threadIdx.x (k 0 for x, 1 for dy), then its mean and rstd, so that each thread
// copies and reads back only its own slots and no barrier is needed.
template <int kVectors, int kThreads, int kStaged>
constexpr std::size_t staged_rows_bytes() {
  return std::size_t{kStaged} * kThreads * (2 * kVectors * sizeof(uint4) + 2 * sizeof(float));
}

// A thread's column sums of dy * x_hat (and of dy, LayerNorm: kSums 2) over the rows its cluster
// walks, for each of its kVectors chunks: in registers, or (kShared) in the thread's own slots of
// shared memory, slot (s, v, j) at ((s * kVectors + v) * kWidth + j) * kThreads + threadIdx.x
// so that a warp's accesses fall in 32 banks. kShared (kSharedSums) for the 16-bit kernels of 4
// vectors a thread, which spilled with 64 (LayerNorm) or 32 sums in registers beside the row,
// and for the kernels capped at 80 registers.
template <int kVectors, int kWidth, int kSums, bool kShared, int kThreads>
struct ColumnSums {
  float held[kShared ? 1 : kSums][kShared ? 1 : kVectors][kWidth] = {};
  float* slots;  // this thread's first slot

  __device__ float& at(int s, int v, int j) {
    if constexpr (kShared) {
      return slots[((s * kVectors + v) * kWidth + j) * kThreads];
    } else {
      return held[s][v][j];
    }
  }
};

// [cluster_backward]
template <typename T, typename P, int kVectors, bool kCentre, bool kAligned, int kThreads,
          int kStaged, int kSmBlocks>
__global__ void __launch_bounds__(kThreads, kSmBlocks)
    backward_cluster(const Gradients<T, P> g, float* sums, std::int64_t sums_rows) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
  static_assert(kStaged == 0 || kAligned, "cp.async copies whole 16-byte chunks");
  constexpr int kWidth = Vector<T>::kWidth;
  constexpr bool kAhead = kStaged == 0 && kLoadsAhead<T, kCentre, kAligned>;
  __shared__ ClusterSum::Inboxes inboxes;
  const cg::cluster_group cluster = cg::this_cluster();
  const auto blocks = static_cast<int>(cluster.num_blocks());
  // Columns fit an int: a cluster holds at most cluster_backward_chunks() chunks.
  const int spread = blocks * kThreads;  // threads a row is spread over
  const int slot =
      static_cast<int>(cluster.block_rank()) * kThreads + static_cast<int>(threadIdx.x);
  auto first_of = [&](int v) { return (v * spread + slot) * kWidth; };
  const bool weight_aligned = kAligned || chunks_aligned(g.weight, 0);
  const float inverse_cols = 1.0f / static_cast<float>(g.cols);
  constexpr int kSums = kCentre ? 2 : 1;
  extern __shared__ float shared_sums[];  // shared_sums_bytes(): kShared's slots, then the stages
  ColumnSums<kVectors, kWidth, kSums, kSharedSums<T, kVectors, kSmBlocks>, kThreads> sums_of{
      .slots = shared_sums + threadIdx.x};
  if constexpr (kSharedSums<T, kVectors, kSmBlocks>) {
    for (int s = 0; s < kSums; ++s) {
      for (int v = 0; v < kVectors; ++v) {
        for (int j = 0; j < kWidth; ++j)
          sums_of.at(s, v, j) = 0.0f;
      }
    }
  }
  ClusterSum sum(cluster, inboxes);
  const std::int64_t clusters = gridDim.x / blocks;
  const std::int64_t cluster_index = blockIdx.x / blocks;
  // Where row r of x and of dy start.
  auto x_of = [&](std::int64_t r) {
    return g.x + row_offset(r, g.x_stride, g.x_group_rows, g.x_group_stride);
  };
  auto dy_of = [&](std::int64_t r) { return g.dy + r * g.dy_stride; };
  // Row r's chunks of x and dy and its statistics, into @p in.
  auto load_row = [&](std::int64_t r, RowInput<T, kVectors>& in) {
    const T* x = x_of(r);
    const T* dy = dy_of(r);
    const bool x_aligned = kAligned || chunks_aligned(x, 0);
    const bool dy_aligned = kAligned || chunks_aligned(dy, 0);
#pragma unroll
    for (int v = 0; v < kVectors; ++v) {
      in.x[v] = load_chunk<kAligned>(x, first_of(v), g.cols, x_aligned);
      in.dy[v] = load_chunk<kAligned>(dy, first_of(v), g.cols, dy_aligned);
    }
    in.mean = kCentre ? g.saved_mean[r] : 0.0f;
    in.rstd = g.saved_rstd[r];
  };
  // Staged rows: this thread's slots of stage b (staged_rows_bytes), after the column sums.
  uint4* const staged_chunks = reinterpret_cast<uint4*>(
      shared_sums + shared_sums_bytes<T, kVectors, kCentre, kThreads, kSmBlocks>() / sizeof(float));
  float* const staged_stats =
      reinterpret_cast<float*>(staged_chunks + kStaged * 2 * kVectors * kThreads);
  auto chunk_slot = [&](int b, int k, int v) -> uint4& {
    return staged_chunks[((b * 2 + k) * kVectors + v) * kThreads + threadIdx.x];
  };
  auto stat_slot = [&](int b, int k) -> float& {
    return staged_stats[(b * 2 + k) * kThreads + threadIdx.x];
  };
  // Row r's chunks and statistics copied into stage b, one commit group; a row past the last is
  // a group with nothing in it, so that every row has the same number of groups behind it.
  auto stage_row = [&](std::int64_t r, int b) {
    if (r < g.rows) {
      const T* x = x_of(r);
      const T* dy = dy_of(r);
#pragma unroll
      for (int v = 0; v < kVectors; ++v) {
        if (first_of(v) >= g.cols) continue;  // past the row: read as zero by take_row
        __pipeline_memcpy_async(&chunk_slot(b, 0, v), x + first_of(v), sizeof(uint4));
        __pipeline_memcpy_async(&chunk_slot(b, 1, v), dy + first_of(v), sizeof(uint4));
      }
      if constexpr (kCentre) __pipeline_memcpy_async(&stat_slot(b, 0), g.saved_mean + r, 4);
      __pipeline_memcpy_async(&stat_slot(b, 1), g.saved_rstd + r, 4);
    }
    __pipeline_commit();
  };
  // The oldest staged row, stage b, into @p in once its copies have landed.
  auto take_row = [&](int b, RowInput<T, kVectors>& in) {
    __pipeline_wait_prior(kStaged > 0 ? kStaged - 1 : 0);
#pragma unroll
    for (int v = 0; v < kVectors; ++v) {
      const bool in_row = first_of(v) < g.cols;
      in.x[v] = in_row ? same_bits<Vector<T>>(chunk_slot(b, 0, v)) : Vector<T>{};
      in.dy[v] = in_row ? same_bits<Vector<T>>(chunk_slot(b, 1, v)) : Vector<T>{};
    }
    in.mean = kCentre ? stat_slot(b, 0) : 0.0f;
    in.rstd = stat_slot(b, 1);
  };
  // Rows requested ahead, so that their loads are on their way while the cluster adds this
  // row's sums and the block writes its dx; without them nothing else of the SM's rows is in
  // flight then. kAhead: the next row, into registers, before this row's exchange. kStaged: that
  // many rows, into shared memory; a row's stage is refilled once its partial sums are taken.
  RowInput<T, kVectors> in;
  if (kAhead && cluster_index < g.rows) load_row(cluster_index, in);
  for (int b = 0; b < kStaged; ++b)
    stage_row(cluster_index + b * clusters, b);
  int b = 0;  // the stage row r is in (kStaged)
  for (std::int64_t r = cluster_index; r < g.rows; r += clusters) {
    if constexpr (kStaged > 0) {
      take_row(b, in);
    } else if constexpr (!kAhead) {
      load_row(r, in);
    }
    const Vector<T>(&xs)[kVectors] = in.x;
    const Vector<T>(&dys)[kVectors] = in.dy;
    const float mean = in.mean, rstd = in.rstd;
    RowSums partial{0.0f, 0.0f};
#pragma unroll
    for (int v = 0; v < kVectors; ++v) {
      float scale[kWidth], xf[kWidth], dyf[kWidth];
      load_scale<kAligned, false>(g.weight, g.weight_plus_one, first_of(v), g.cols, weight_aligned,
                                  scale);
      to_floats(xs[v], xf);
      to_floats(dys[v], dyf);
      float dy_xhat[kWidth], dy_sum[kWidth];
#pragma unroll
      for (int j = 0; j < kWidth; ++j) {
        dy_xhat[j] = sums_of.at(0, v, j);
        dy_sum[j] = kCentre ? sums_of.at(kSums - 1, v, j) : 0.0f;
      }
      add_chunk<kCentre>(xf, dyf, scale, mean, rstd, partial, dy_xhat, dy_sum);
#pragma unroll
      for (int j = 0; j < kWidth; ++j) {
        sums_of.at(0, v, j) = dy_xhat[j];
        if constexpr (kCentre) sums_of.at(1, v, j) = dy_sum[j];
      }
    }
    RowInput<T, kVectors> next;
    if (kAhead && r + clusters < g.rows) load_row(r + clusters, next);
    if constexpr (kStaged > 0) {  // its chunks are in registers now, their sums taken
      stage_row(r + kStaged * clusters, b);
      b = b + 1 == kStaged ? 0 : b + 1;
    }
    // The row's sums over the cluster: both exchanges started before either is awaited.
    float total_g = 0.0f, total_g_xhat;
    if constexpr (kCentre) {
      const ClusterSum::Ticket g_ticket = sum.start(partial.g);
      const ClusterSum::Ticket g_xhat_ticket = sum.start(partial.g_xhat);
      total_g = sum.finish(g_ticket);
      total_g_xhat = sum.finish(g_xhat_ticket);
    } else {
      total_g_xhat = sum(partial.g_xhat);
    }
    const float mean_g = total_g * inverse_cols;  // 0 for RMSNorm, which does not centre
    const float mean_g_xhat = total_g_xhat * inverse_cols;
    const auto [dx, dresidual, dx_aligned, dresidual_aligned] = output_row<kAligned>(g, r);
#pragma unroll
    for (int v = 0; v < kVectors; ++v) {
      Vector<T> more{};
      if (dresidual) more = load_chunk<kAligned>(dresidual, first_of(v), g.cols, dresidual_aligned);
      float scale[kWidth], xf[kWidth], dyf[kWidth], out[kWidth];
      load_scale<kAligned, false>(g.weight, g.weight_plus_one, first_of(v), g.cols, weight_aligned,
                                  scale);
      to_floats(xs[v], xf);
      to_floats(dys[v], dyf);
      to_floats(more, out);
      dx_of_chunk(xf, dyf, scale, mean, rstd, mean_g, mean_g_xhat, dresidual != nullptr, out);
      store_chunk<kAligned>(dx, first_of(v), g.cols, dx_aligned, from_floats<T>(out));
    }
    if constexpr (kAhead) in = next;
  }
  if constexpr (kStaged > 0) __pipeline_wait_prior(0);  // only empty groups are left
  cudaTriggerProgrammaticLaunchCompletion();
  // The cluster's partial row: each thread its own columns, as chapter 08's blocks store theirs.
  float* dweight_row = sums + cluster_index * g.cols;
  float* dbias_row = sums + (sums_rows + cluster_index) * g.cols;
#pragma unroll
  for (int v = 0; v < kVectors; ++v) {
#pragma unroll
    for (int j = 0; j < kWidth; ++j) {
      const int c = first_of(v) + j;
      if (c >= g.cols) continue;
      dweight_row[c] = sums_of.at(0, v, j);
      if constexpr (kCentre) dbias_row[c] = sums_of.at(1, v, j);
    }
  }
#else
  __trap();  // the launcher refuses GPUs without clusters
#endif
}
// [cluster_backward]

template <typename T, typename P, int kVectors, bool kCentre, bool kAligned, int kThreads,
          int kStaged, int kSmBlocks>
void launch_shape(const Gradients<T, P>& g, const ClusterRows& cluster, cudaStream_t stream) {
  spread::ClusterGrid grid(
      backward_cluster<T, P, kVectors, kCentre, kAligned, kThreads, kStaged, kSmBlocks>,
      cluster.blocks, kThreads,
      shared_sums_bytes<T, kVectors, kCentre, kThreads, kSmBlocks>() +
          staged_rows_bytes<kVectors, kThreads, kStaged>(),
      stream);
  const std::int64_t clusters = std::min(most_clusters(g.rows, cluster), grid.resident());
  grid.launch(clusters, g, g.scratch, clusters);
  sum_columns(g, g.scratch, clusters, kCentre, stream);
}

// The kernel of configuration I of kClusterBackwardShapes, if @p cluster has its shape: compiled
// for rows off the 16-byte grid only where the shape takes them (takes_rows_off_grid).
template <typename T, typename P, bool kCentre, bool kAligned, std::size_t I>
bool launch_if_shape(const Gradients<T, P>& g, const ClusterRows& cluster, cudaStream_t stream) {
  constexpr ClusterBackwardShape kShape = kClusterBackwardShapes[I].shape;
  if constexpr (!kAligned && !takes_rows_off_grid(kShape)) {
    return false;
  } else {
    if (!(cluster.shape == kShape)) return false;
    launch_shape<T, P, kShape.vectors, kCentre, kAligned, kShape.threads, kShape.staged,
                 kShape.sm_blocks>(g, cluster, stream);
    return true;
  }
}

template <typename T, typename P, bool kCentre, bool kAligned, std::size_t... I>
void launch_cluster(const Gradients<T, P>& g, const ClusterRows& cluster, cudaStream_t stream,
                    std::index_sequence<I...>) {
  // Every shape that gets here is compiled: a configuration run() checked, or one of the rule's.
  if (!(launch_if_shape<T, P, kCentre, kAligned, I>(g, cluster, stream) || ...)) {
    throw std::logic_error("kernels::backward: no cluster backward kernel compiled for this shape");
  }
}

// The cluster of @p shape for a row of @p chunks (at most spread::kMostClusterBlocks blocks).
ClusterRows cluster_rows_of(std::int64_t chunks, ClusterBackwardShape shape) {
  return {shape, static_cast<int>(spread::cluster_row_blocks(chunks, shape.row_shape()))};
}

std::string shape_name(ClusterBackwardShape shape) {
  return std::to_string(shape.threads) + "x" + std::to_string(shape.vectors) +
         (shape.staged > 0 ? "s" + std::to_string(shape.staged) : "") +
         (unusual_sm_blocks(shape) ? "sm" + std::to_string(shape.sm_blocks) : "");
}

std::string compiled_names() {
  std::string names;
  for (const auto& named : kClusterBackwardShapes)
    names += (names.empty() ? "" : ", ") + std::string(named.name);
  return names;
}

bool compiled(ClusterBackwardShape shape) {
  return std::ranges::any_of(kClusterBackwardShapes,
                             [&](const auto& named) { return named.shape == shape; });
}

template <typename T, typename P, bool kCentre>
void run(const char* fn, const Gradients<T, P>& g, std::optional<ClusterBackwardShape> config,
         cudaStream_t stream) {
  const int gpu = compute_capability();
  check_argument(gpu >= 90, fn, "device", [&] {
    return "has compute capability " + std::to_string(gpu / 10) + "." + std::to_string(gpu % 10) +
           ": a row over a thread-block cluster needs 9.0 or newer";
  });
  const bool aligned = on_the_grid(g);
  if (config) {
    check_argument(compiled(*config), fn, "shape", [&] {
      return shape_name(*config) + " is not compiled (" + compiled_names() + " are)";
    });
    check_argument(aligned || takes_rows_off_grid(*config), fn, "shape", [&] {
      const char* why = config->staged > 0      ? " copies whole 16-byte chunks into shared memory"
                        : config->sm_blocks > 2 ? " has 80 registers a thread, too few for "
                                                  "element-by-element edges"
                                                : " keeps 4 chunks a thread";
      return shape_name(*config) + why +
             ", compiled for rows on the 16-byte grid; these tensors' rows are off it";
    });
  }
  const std::int64_t widest = cluster_backward_cols(g, config);
  check_argument(g.cols <= widest, fn, "cols", [&] {
    return "must be at most " + std::to_string(widest) +
           (aligned ? "" : " for rows off the 16-byte grid") + " (got " + std::to_string(g.cols) +
           "): " +
           (config ? std::to_string(spread::kMostClusterBlocks) + " blocks of " +
                         shape_name(*config) + " hold the row"
                   : std::string("a cluster's registers hold the row"));
  });
  const std::int64_t chunks = (g.cols + Vector<T>::kWidth - 1) / Vector<T>::kWidth;
  const ClusterRows cluster =
      config ? cluster_rows_of(chunks, *config) : cluster_rows_for(chunks, aligned);
  validate_gradients(fn, g, kCentre,
                     cluster_scratch_bytes(kCentre, g.rows, g.cols, sizeof(T), config));
  if (!kCentre && g.dbias != nullptr) sum_dy_columns(g, stream);
  if (g.rows == 0) return sum_columns(g, g.scratch, 0, kCentre, stream);
  constexpr auto kCompiled = std::make_index_sequence<std::size(kClusterBackwardShapes)>();
  if (aligned) return launch_cluster<T, P, kCentre, true>(g, cluster, stream, kCompiled);
  launch_cluster<T, P, kCentre, false>(g, cluster, stream, kCompiled);
}

}  // namespace

std::int64_t cluster_backward_chunks(bool aligned) {
  const ClusterRows& widest = shapes_for(aligned).back();
  return std::int64_t{widest.blocks} * widest.shape.threads * widest.shape.vectors;
}

template <typename T, typename P>
std::int64_t cluster_backward_cols(const Gradients<T, P>& g,
                                   std::optional<ClusterBackwardShape> shape) {
  const bool aligned = on_the_grid(g);
  if (!shape) return cluster_backward_chunks(aligned) * Vector<T>::kWidth;
  if (!aligned && !takes_rows_off_grid(*shape)) return 0;
  return std::int64_t{spread::kMostClusterBlocks} * shape->threads * shape->vectors *
         Vector<T>::kWidth;
}

std::size_t cluster_scratch_bytes(bool centre, std::int64_t rows, std::int64_t cols,
                                  int element_bytes, std::optional<ClusterBackwardShape> shape) {
  if (rows == 0) return 0;
  const std::int64_t chunks =
      (cols * element_bytes + device::kVectorBytes - 1) / device::kVectorBytes;
  std::int64_t partial_rows = 0;
  if (shape) {
    partial_rows = most_clusters(rows, cluster_rows_of(chunks, *shape));
  } else {
    for (bool aligned : {true, false}) {  // the larger of the shapes either alignment may take
      const ClusterRows rule = cluster_rows_for(chunks, aligned);
      if (rule.blocks != 0) partial_rows = std::max(partial_rows, most_clusters(rows, rule));
    }
  }
  return static_cast<std::size_t>(partial_rows * cols) * sizeof(float) * (centre ? 2 : 1);
}

template <typename T, typename P>
void rmsnorm_backward_cluster(const Gradients<T, P>& g, cudaStream_t stream,
                              std::optional<ClusterBackwardShape> shape) {
  run<T, P, false>("kernels::backward::rmsnorm_backward_cluster", g, shape, stream);
}

template <typename T, typename P>
void layernorm_backward_cluster(const Gradients<T, P>& g, cudaStream_t stream,
                                std::optional<ClusterBackwardShape> shape) {
  run<T, P, true>("kernels::backward::layernorm_backward_cluster", g, shape, stream);
}

#define NORMLAB_BACKWARD_CLUSTER(T, P)                                           \
  template void rmsnorm_backward_cluster(const Gradients<T, P>&, cudaStream_t,   \
                                         std::optional<ClusterBackwardShape>);   \
  template void layernorm_backward_cluster(const Gradients<T, P>&, cudaStream_t, \
                                           std::optional<ClusterBackwardShape>); \
  template std::int64_t cluster_backward_cols(const Gradients<T, P>&,            \
                                              std::optional<ClusterBackwardShape>);
NORMLAB_BACKWARD_CLUSTER(float, float)
NORMLAB_BACKWARD_CLUSTER(__half, __half)
NORMLAB_BACKWARD_CLUSTER(__half, float)
NORMLAB_BACKWARD_CLUSTER(__nv_bfloat16, __nv_bfloat16)
NORMLAB_BACKWARD_CLUSTER(__nv_bfloat16, float)
NORMLAB_BACKWARD_CLUSTER(float, __half)
NORMLAB_BACKWARD_CLUSTER(float, __nv_bfloat16)

}  // namespace normlab::kernels::backward
