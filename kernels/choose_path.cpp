// SPDX-License-Identifier: Apache-2.0
// The spread launcher's decisions (choose_path.hpp): plain arithmetic, no GPU.
#include "choose_path.hpp"

#include <string>

namespace normlab::kernels::spread {

const char* name_of(Path path) {
  switch (path) {
    case Path::cluster:
      return "cluster";
    case Path::whole_gpu:
      return "whole_gpu";
    case Path::split:
      return "split";
  }
  return "?";
}

ClusterShape cluster_for(std::int64_t chunks, bool aligned) {
  ClusterShape shape;
  while (std::int64_t{kMostClusterBlocks} * shape.threads * kClusterVectors < chunks &&
         shape.threads < most_cluster_threads(aligned))
    shape.threads *= 2;
  while (std::int64_t{shape.blocks} * shape.threads * kClusterVectors < chunks)
    shape.blocks *= 2;
  return shape;
}

// [choose]
// A cluster when the GPU has them and one holds the row: x is read once, and the partial sums
// travel between the blocks' shared memories, never through L2. Else the whole GPU, when it
// holds the row and the row is wide enough that reading it twice costs more than a grid-wide
// barrier a row with every SM waiting: half of what the GPU holds, or a fifth for the lean
// kernel, thresholds set by measuring both kernels on rows either side of them (the lean kernel
// lost to the split row at a ninth and won at a fifth). The lean calls also take it wherever its
// held form does (gpu.held_chunks: from 6 vectors a thread), where, reading the parameters once
// for all rows, it beats the split row on rows the fifth would still give the split row.
// Chapter 10's page and worklog have the figures. Else the split row, which runs anywhere and reads
// x twice.
Choice choose(std::int64_t chunks, bool aligned, bool lean, const Gpu& gpu) {
  if (gpu.clusters && chunks <= cluster_chunks(aligned)) {
    const ClusterShape shape = cluster_for(chunks, aligned);
    return {Path::cluster, shape,
            "a cluster of " + std::to_string(shape.blocks) + " blocks of " +
                std::to_string(shape.threads) + " threads holds the row in registers"};
  }
  const int share = lean ? 5 : 2;  // the row is at least 1/share of what the GPU holds
  const bool held = lean && gpu.held_chunks > 0 && chunks >= gpu.held_chunks;
  if (gpu.cooperative && chunks <= gpu.whole_gpu_chunks &&
      (share * chunks >= gpu.whole_gpu_chunks || held)) {
    return {Path::whole_gpu, {}, "the whole GPU holds the row: registers and shared memory"};
  }
  std::string why = "split: the row is read twice (";
  if (!gpu.clusters && chunks <= cluster_chunks(aligned)) {
    why += "no clusters on this GPU";
  } else if (chunks > gpu.whole_gpu_chunks) {
    why += "wider than the whole GPU holds";
  } else if (!gpu.cooperative) {
    why += "no cooperative launch on this GPU";
  } else {
    why += "too narrow to pay for a grid-wide barrier a row";
  }
  return {Path::split, {}, why + ")"};
}
// [choose]

std::int64_t split_blocks_per_row(std::int64_t chunks) {
  constexpr std::int64_t kChunksPerBlock = std::int64_t{kSplitThreads} * kSplitChunksPerThread;
  return chunks > 0 ? (chunks + kChunksPerBlock - 1) / kChunksPerBlock : 1;
}

}  // namespace normlab::kernels::spread
