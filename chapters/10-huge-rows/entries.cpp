// SPDX-License-Identifier: Apache-2.0
// Chapter 10's registry entries: for each forward op, the chapter's choice (ch10_<op>) and each
// path forced (ch10_<op>_cluster, _whole_gpu, _split), so the program and the tests set them side
// by side, all through the spread launcher (kernels/spread.cuh); the cluster family's and the
// cluster row family's configurations, each an entry for the tuner to rank; and the backward of
// rows wider than chapter 08's, by its rule and in each configuration.
#include <functional>
#include <string>
#include <vector>

#include "chunk_grid.hpp"
#include "normlab/kernel.hpp"
#include "spread.cuh"
#include "typed_call.hpp"
#include "typed_gradients.hpp"

namespace normlab::ch10 {

// The spread launcher (kernels/spread.cuh): its paths, launchers and scratch.
using namespace kernels::spread;

namespace {

constexpr Op kOps[] = {Op::rmsnorm, Op::layernorm, Op::add_rmsnorm, Op::add_layernorm};

}  // namespace

std::vector<KernelEntry> entries() {
  // Chapter 07's capabilities (its tensor I/O and arithmetic are reused): every dtype pairing,
  // optional parameters, (1 + w), any stride and element alignment, statistics; not x's rows
  // in two levels, which every path reads one stride a row. In place: every path loads a chunk
  // before the statistics' exchange and stores the same chunk, from the same thread, after it
  // (the split path reads x again in its second kernel, the same thread reading chunk c before
  // writing it). The cluster entries need sm_90, rows on the 16-byte grid (the chapter's choice
  // also sends rows off it to a cluster, of at most 256 threads a block), and hold at most 32768
  // chunks (512 KiB: 131072 fp32 or 262144 16-bit columns); the whole-GPU entries refuse rows
  // wider than this GPU's SMs hold at once (gpu_refusal), and their launcher refuses them again,
  // by name, if called directly.
  Capabilities every_tensor = kernels::every_tensor();
  every_tensor.two_level_rows = false;
  const struct {
    const char* suffix;
    const char* summary;
    Path path;
  } paths[] = {
      {"_cluster", "a row over a thread-block cluster, DSMEM sums", Path::cluster},
      {"_whole_gpu", "a row over every SM, a grid barrier a row", Path::whole_gpu},
      {"_split", "a row split over blocks, read twice", Path::split},
  };
  // A cluster entry's: sm_90, rows aligned to 16 bytes, at most @p row_bytes of them.
  auto on_a_cluster = [&](std::int64_t row_bytes) {
    Capabilities can = every_tensor;
    can.min_compute_capability = 90;
    can.alignment_bytes = 16;
    can.max_row_bytes = row_bytes;
    return can;
  };
  auto scratch = [](const Shape& s) {
    return scratch_bytes(s.rows, s.cols, static_cast<int>(size_of(s.dtype)));
  };
  std::vector<KernelEntry> entries;
  for (Op op : kOps) {
    entries.push_back(
        {.name = std::string("ch10_") + name_of(op),
         .chapter = 10,
         .summary = "a cluster, else the whole GPU, else a split row",
         .op = op,
         .can = every_tensor,
         .launch = [](const NormCall& call,
                      cudaStream_t stream) { kernels::spread::forward(call, stream, nullptr); },
         .scratch_bytes = scratch});
    for (const auto& p : paths) {
      const Capabilities can = p.path == Path::cluster
                                   ? on_a_cluster(cluster_chunks(true) * kernels::kChunkBytes)
                                   : every_tensor;
      const Path path = p.path;
      entries.push_back(
          {.name = std::string("ch10_") + name_of(op) + p.suffix,
           .chapter = 10,
           .summary = p.summary,
           .op = op,
           .can = can,
           .launch = [path](const NormCall& call,
                            cudaStream_t stream) { kernels::spread::forward(call, stream, &path); },
           .scratch_bytes = scratch,
           .gpu_refusal = path == Path::whole_gpu
                              ? std::function<std::string(const Requirements&)>(whole_gpu_refusal)
                              : nullptr});
    }
  }
  // The cluster family's configurations (ch10_<op>_cluster@<threads>x4): the cluster path with
  // blocks of that many threads, as many as the row needs, where the chapter's rule takes a power
  // of two of the fewest threads that hold it. The cluster entries' capabilities, as wide as 16
  // such blocks hold; 512 threads for rows of whole 16-byte chunks only.
  for (Op op : kOps) {
    for (const int threads : kClusterThreads) {
      Capabilities can = on_a_cluster(std::int64_t{kMostClusterBlocks} * threads * kClusterVectors *
                                      kernels::kChunkBytes);
      can.whole_chunks_only = threads > most_cluster_threads(false);
      entries.push_back(
          {.name = std::string("ch10_") + name_of(op) + "_cluster@" + std::to_string(threads) +
                   "x" + std::to_string(kClusterVectors),
           .chapter = 10,
           .summary = "a row over a cluster, " + std::to_string(threads) +
                      " threads a block, the row in shared memory",
           .op = op,
           .can = can,
           .launch = [threads](const NormCall& call,
                               cudaStream_t stream) { forward_cluster(call, stream, threads); },
           .scratch_bytes = scratch});
    }
  }
  // The cluster row family (kernels/cluster_row.cu): one row a cluster, for calls of few rows,
  // one entry a configuration (ch10_<op>_cluster_row@<threads>x<vectors>). The cluster entries'
  // capabilities, rows of whole 16-byte chunks only, and as wide as 16 blocks of the
  // configuration hold.
  for (Op op : kOps) {
    for (const auto& config : kClusterRowShapes) {
      Capabilities can = on_a_cluster(std::int64_t{kMostClusterBlocks} * config.shape.threads *
                                      config.shape.vectors * kernels::kChunkBytes);
      can.whole_chunks_only = true;
      const ClusterRowShape shape = config.shape;
      entries.push_back({.name = std::string("ch10_") + name_of(op) + "_cluster_row@" + config.name,
                         .chapter = 10,
                         .summary = "a row a cluster in registers, parameters loaded with the row",
                         .op = op,
                         .can = can,
                         .launch = [shape](const NormCall& call, cudaStream_t stream) {
                           forward_cluster_row(call, stream, shape);
                         }});
    }
  }
  // The backward of rows wider than chapter 08's registers hold (kernels/cluster_backward.cu): a
  // row over a cluster, x and dy in its blocks' registers. Chapter 08's capabilities (head views
  // too: x read through row_offset; dy in any dtype, widened as chapter 08 widens it, the copies
  // in the scratch), sm_90, and rows of at most 512 KiB (cluster_backward_chunks; 128 KiB off the
  // 16-byte grid: Capabilities::max_off_grid_row_bytes), counted in fp32 with a dy of another
  // dtype (Capabilities::max_row_bytes). It takes narrower rows too; the rules send it only the
  // rows chapter 08 refuses. Then one entry a configuration (ch10_<op>_cluster@<threads>x<vectors>)
  // for the tuner to rank: rows as wide as 16 of its blocks hold, on the 16-byte grid only for 4
  // vectors a thread.
  auto backward_can = [](bool centre, std::int64_t row_bytes, std::int64_t off_grid_row_bytes) {
    Capabilities can = kernels::backward::capabilities(centre);
    can.max_row_bytes = row_bytes;
    can.max_off_grid_row_bytes = off_grid_row_bytes;
    can.min_compute_capability = 90;
    return can;
  };
  for (Op op : {Op::rmsnorm_backward, Op::layernorm_backward}) {
    const bool centre = op == Op::layernorm_backward;
    entries.push_back(
        {.name = std::string("ch10_") + name_of(op),
         .chapter = 10,
         .summary = "a row over a thread-block cluster; partial rows summed in order",
         .op = op,
         .can = backward_can(
             centre, kernels::backward::cluster_backward_chunks(true) * kernels::kChunkBytes,
             kernels::backward::cluster_backward_chunks(false) * kernels::kChunkBytes),
         .launch = [](const NormCall& call,
                      cudaStream_t stream) { kernels::backward::run_cluster(call, stream); },
         .scratch_bytes =
             [centre](const Shape& s) {
               return kernels::backward::cluster_scratch_bytes(centre, s);
             }});
    for (const auto& config : kernels::backward::kClusterBackwardShapes) {
      const kernels::backward::ClusterBackwardShape shape = config.shape;
      const std::int64_t row_bytes =
          std::int64_t{kMostClusterBlocks} * shape.threads * shape.vectors * kernels::kChunkBytes;
      Capabilities can = backward_can(centre, row_bytes, 0);
      if (!kernels::backward::takes_rows_off_grid(shape)) {  // compiled for the 16-byte grid
        can.alignment_bytes = 16;
        can.whole_chunks_only = true;
      }
      const std::string details =
          (shape.staged > 0 ? ", " + std::to_string(shape.staged) + " rows staged ahead" : "") +
          (kernels::backward::unusual_sm_blocks(shape)
               ? ", " + std::to_string(shape.sm_blocks) + " blocks an SM"
               : "");
      entries.push_back({.name = std::string("ch10_") + name_of(op) + "_cluster@" + config.name,
                         .chapter = 10,
                         .summary = "a row over a cluster, " + std::to_string(shape.threads) +
                                    " threads a block, " + std::to_string(shape.vectors) +
                                    " chunks a thread" + details + "; partial rows summed in order",
                         .op = op,
                         .can = can,
                         .launch =
                             [shape](const NormCall& call, cudaStream_t stream) {
                               kernels::backward::run_cluster(call, stream, shape);
                             },
                         .scratch_bytes =
                             [centre, shape](const Shape& s) {
                               return kernels::backward::cluster_scratch_bytes(centre, s, shape);
                             }});
    }
  }
  return entries;
}

}  // namespace normlab::ch10
