// SPDX-License-Identifier: Apache-2.0
// Chapter 10's decisions (choose_path.hpp): plain arithmetic, no GPU.
#include "choose_path.hpp"

#include <string>

namespace normlab::ch10 {

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
// kernel. H100, 2026-11-26, fp32, whole GPU against the split row (% of the copy roof): the
// lean kernel (LayerNorm, RMSNorm) lost at 64 x 1048576 (a ninth of what it holds; 46.8 and
// 47.7 against 55.8 and 57.6) and won at 32 x 2097152 (a fifth; 51.1 and 56.2 against 50.2
// and 53.5) and at 16 x 4194304 (44.9 and 65.2 against 41.5 and 43.9); add + RMSNorm lost at
// 16 x 4194304 (54.1 against 60.7), as did bf16 RMSNorm (36.4 against 38.6); fp32 LayerNorm at
// 8 x 8388608 and 2 x 9437184, past half, won (47.0 and 58.6 against 36.0 and 37.0). The lean
// calls also take it wherever its held form does (gpu.held_chunks: from 6 vectors a thread, on
// an H100 rows past 1351680 columns), where the fifth was still the split row's: H100,
// 2026-11-27, fp32, 48 rows, LayerNorm and RMSNorm (book/results/runs/
// 2026-11-27-h100-h200-cluster-sums-held-switch/): whole GPU 47.4 and 52.7 against 49.2 and
// 52.8 at 1400000 columns, 49.0 and 53.0 against 48.1 and 51.1 at 1450000, 50.0 and 50.6
// against 45.5 and 46.5 at 1600000, 55.8 and 61.6 against 45.3 and 46.6 at 1900000; at 12
// rows of 1500000, 48.7 and 51.4 against 41.1 and 44.3. Else the split row, which runs
// anywhere and reads x twice.
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

}  // namespace normlab::ch10
