// SPDX-License-Identifier: Apache-2.0
/// @file choose_path.hpp
/// @brief The spread launcher's decisions (taught in chapter 10), on the host and without a GPU
/// (tests/cpu/test_ch10_choose.cpp): where a row too wide for one block lives (a cluster, the
/// whole GPU, or nowhere: split and read twice), and how the cluster and the split are shaped.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>

namespace normlab::kernels::spread {

/// Where a row lives: in the shared memory of a thread-block cluster's blocks (cluster.cu), in
/// the registers and shared memory of every SM (whole_gpu.cu), or nowhere, read twice by a
/// split row (split.cu).
enum class Path { cluster, whole_gpu, split };

const char* name_of(Path path);

/// 16-byte vectors of the row a thread of the cluster kernel keeps (in shared memory).
inline constexpr int kClusterVectors = 4;
/// The most blocks a cluster may have: 8 is the portable size, 16 needs the non-portable
/// attribute (Hopper allows it).
inline constexpr int kMostClusterBlocks = 16;
/// The most threads a block of a cluster: 512 for rows on the 16-byte grid (2 such blocks an
/// SM, so at most 64 registers a thread: cluster.cu); 256 for other rows, which come through
/// registers with element-by-element edges and get up to 128.
constexpr int most_cluster_threads(bool aligned) {
  return aligned ? 512 : 256;
}
/// The widest row (in 16-byte chunks) a cluster holds: 16 x 512 x 4 = 32768 (512 KiB) on the
/// grid, 16384 off it.
constexpr std::int64_t cluster_chunks(bool aligned) {
  return std::int64_t{kMostClusterBlocks} * most_cluster_threads(aligned) * kClusterVectors;
}

/// Threads a block of the whole-GPU kernel (whole_gpu.cu says how many vectors each keeps in
/// registers; the rest of its share of the row goes to shared memory).
inline constexpr int kWholeGpuThreads = 256;
/// The most blocks the whole-GPU kernel's scratch has room for (four rows' partials each).
inline constexpr int kMostWholeGpuBlocks = 4096;

/// Threads a block of the split kernels, and chunks each thread visits per pass.
inline constexpr int kSplitThreads = 512;
inline constexpr int kSplitChunksPerThread = 8;

/// What the choice depends on, besides the shape: asked of the GPU once (spread.cu), given by
/// hand in the CPU tests.
struct Gpu {
  bool clusters = false;     ///< thread-block clusters (compute capability 9.0 and newer)
  bool cooperative = false;  ///< cooperative launches (a grid-wide barrier)
  /// The widest row the whole-GPU kernel holds on this GPU, in chunks: every block the GPU can
  /// hold at once, each thread its vectors in registers and as many in shared
  /// memory as fit.
  std::int64_t whole_gpu_chunks = 0;
  /// The narrowest row the whole-GPU kernel's held form takes, in chunks (lean calls; 0: none).
  std::int64_t held_chunks = 0;
};

/// A cluster's shape: blocks of threads, each thread kClusterVectors chunks.
struct ClusterShape {
  int blocks = 1;
  int threads = 256;
};

/// The cluster family's configurations, for the tuner to rank: threads a block, each keeping
/// kClusterVectors chunks of the row in shared memory (512 for rows on the 16-byte grid only);
/// the cluster as many blocks as the row then needs (cluster_row_blocks of that shape), where
/// cluster_for takes the fewest threads a block and a power of two of blocks.
inline constexpr int kClusterThreads[] = {128, 256, 512};

/// The cluster row family's configuration (cluster_row.cu): threads a block, and 16-byte chunks
/// of the row each thread holds in registers (1, 2, 4 or 8: the kernels compiled). The cluster
/// has as many blocks as the row then needs (cluster_row_blocks).
struct ClusterRowShape {
  int threads = 256;
  int vectors = 1;
};
/// The most threads a block of the cluster row kernel: 256, so that a thread may keep 8 chunks
/// of x and their weight and bias in registers (up to 255 of them, one block an SM).
inline constexpr int kMostClusterRowThreads = 256;
/// The family's configurations, by name (<threads>x<vectors>), one line each.
inline constexpr struct {
  const char* name;
  ClusterRowShape shape;
} kClusterRowShapes[] = {
    {"128x1", {128, 1}}, {"128x2", {128, 2}}, {"128x4", {128, 4}}, {"128x8", {128, 8}},
    {"256x1", {256, 1}}, {"256x2", {256, 2}}, {"256x4", {256, 4}}, {"256x8", {256, 8}},
};
/// Blocks a cluster of @p shape needs for a row of @p chunks chunks (at least 1); more than
/// kMostClusterBlocks when no cluster of that shape holds it.
constexpr std::int64_t cluster_row_blocks(std::int64_t chunks, ClusterRowShape shape) {
  const std::int64_t per_block = std::int64_t{shape.threads} * shape.vectors;
  return std::max<std::int64_t>(1, (chunks + per_block - 1) / per_block);
}

struct Choice {
  Path path = Path::split;
  ClusterShape cluster;  ///< Path::cluster
  std::string why;       ///< one line, for `normlab explain`-like output and the program
};

/// The smallest cluster that holds @p chunks chunks: blocks of 256 threads while 16 of them
/// hold the row, then 512 (rows on the 16-byte grid only); the fewest blocks (a power of two)
/// at that size. @p chunks must be at most cluster_chunks(@p aligned).
ClusterShape cluster_for(std::int64_t chunks, bool aligned);

/// Where a row of @p chunks 16-byte chunks lives on @p gpu, @p aligned when every row of
/// every tensor is on the 16-byte grid (every path loops over rows, so the choice is the row's
/// alone). @p lean: the call takes the whole-GPU kernel's lean form (fp32 activations and
/// parameters, rows on the grid, nothing to add: 8 vectors a thread in registers, two blocks an
/// SM, the next row copied while the row is exchanged; from @p gpu's held_chunks the held form),
/// which pays for its barrier on narrower rows than the others.
Choice choose(std::int64_t chunks, bool aligned, bool lean, const Gpu& gpu);

/// Blocks the split kernels give each row of @p chunks chunks.
std::int64_t split_blocks_per_row(std::int64_t chunks);

}  // namespace normlab::kernels::spread
