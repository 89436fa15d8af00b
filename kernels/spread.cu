// SPDX-License-Identifier: Apache-2.0
// The spread launcher (taught in chapter 10): rows too long for one block.
//
// The general launcher keeps a row in one block's registers up to 3072 chunks of 16 bytes (24576
// bf16 columns); past that it streams the row through one block, reading x two or three times, and
// a few such rows leave most of the GPU idle. These kernels keep the row on chip across many
// blocks: a cluster's (cluster.cu), the whole GPU's (whole_gpu.cu), or, where neither holds it,
// splits it and reads it twice (split.cu). This file holds the typed launchers: check the
// arguments, ask the GPU what it can do, choose (choose_path.hpp), launch.
#include "spread.cuh"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "chunk_grid.hpp"
#include "general_launch.cuh"
#include "normlab/check.hpp"
#include "normlab/device.hpp"
#include "spread_launch.cuh"
#include "typed_call.hpp"
#include "validate_tensors.hpp"

namespace normlab::kernels::spread {

Gpu current_gpu() {
  int device = 0, cooperative = 0;
  NORMLAB_CHECK(cudaGetDevice(&device));
  NORMLAB_CHECK(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, device));
  return {.clusters = has_clusters(), .cooperative = cooperative != 0};
}

std::string whole_gpu_refusal(const Requirements& needs) {
  if (!current_gpu().cooperative) return "needs cooperative launches";
  const Shape& s = needs.shape;
  const bool aligned =
      needs.base_alignment % kChunkBytes == 0 && needs.pitch_alignment % kChunkBytes == 0;
  const std::int64_t bytes = s.cols * static_cast<std::int64_t>(size_of(s.dtype));
  const std::int64_t chunks = (bytes + kChunkBytes - 1) / kChunkBytes + (aligned ? 0 : 1);
  std::int64_t holds = 0;
  const NormCall call{.op = needs.op, .dtype = s.dtype, .weight_dtype = s.weight_dtype};
  with_dtype_pair("kernels::spread::whole_gpu_refusal", call, [&]<typename T, typename P>() {
    switch (needs.op) {
      case Op::rmsnorm:
        holds = whole_gpu_chunks<T, P, false, false>(aligned);
        break;
      case Op::layernorm:
        holds = whole_gpu_chunks<T, P, true, false>(aligned);
        break;
      case Op::add_rmsnorm:
        holds = whole_gpu_chunks<T, P, false, true>(aligned);
        break;
      default:
        holds = whole_gpu_chunks<T, P, true, true>(aligned);
    }
  });
  if (chunks <= holds) return {};
  return "a row of " + std::to_string(chunks) + " 16-byte chunks, and every SM of this GPU holds " +
         std::to_string(holds) + " at once";
}

std::size_t scratch_bytes(std::int64_t rows, std::int64_t cols, int element_bytes) {
  // One chunk more than the row's 16-byte chunks, for a row that starts off the grid.
  const std::int64_t chunks = (cols * element_bytes + kChunkBytes - 1) / kChunkBytes + 1;
  return std::max(whole_gpu_scratch_bytes(), split_scratch_bytes(rows, chunks));
}

namespace {

// A cluster of @p threads threads a block (the cluster family's configuration), refused by
// name when the row is off the 16-byte grid for 512 or wider than 16 such blocks hold.
ClusterShape configured_cluster(const char* fn, int threads, std::int64_t chunks, bool aligned) {
  check_argument(threads <= most_cluster_threads(aligned), fn, "cluster_threads", [&] {
    return std::to_string(threads) +
           " threads a block take rows on the 16-byte grid only; these "
           "tensors' rows are off it (at most " +
           std::to_string(most_cluster_threads(false)) + ")";
  });
  const std::int64_t blocks = cluster_row_blocks(chunks, {threads, kClusterVectors});
  check_argument(blocks <= kMostClusterBlocks, fn, "cols", [&] {
    return "is too wide for a cluster of blocks of " + std::to_string(threads) +
           " threads: a row of " + std::to_string(chunks) + " chunks, " +
           std::to_string(kMostClusterBlocks) + " such blocks hold " +
           std::to_string(std::int64_t{kMostClusterBlocks} * threads * kClusterVectors);
  });
  return {static_cast<int>(blocks), threads};
}

// A forced path, refused by name when this GPU or this row cannot take it; a cluster of
// @p cluster_threads threads a block when it is not 0.
Choice forced_choice(const char* fn, Path path, int cluster_threads, std::int64_t chunks,
                     bool aligned, const Gpu& gpu) {
  switch (path) {
    case Path::cluster:
      check_argument(gpu.clusters, fn, "path",
                     "cluster needs thread-block clusters (compute capability 9.0 or newer)");
      if (cluster_threads != 0)
        return {Path::cluster, configured_cluster(fn, cluster_threads, chunks, aligned), "forced"};
      check_argument(chunks <= cluster_chunks(aligned), fn, "cols",
                     "is too wide for a cluster: a row of " + std::to_string(chunks) +
                         " chunks, a cluster holds " + std::to_string(cluster_chunks(aligned)) +
                         (aligned ? "" : " of rows off the 16-byte grid"));
      return {Path::cluster, cluster_for(chunks, aligned), "forced"};
    case Path::whole_gpu:
      check_argument(gpu.cooperative, fn, "path", "whole_gpu needs cooperative launches");
      check_argument(chunks <= gpu.whole_gpu_chunks, fn, "cols",
                     "is too wide for the whole GPU: a row of " + std::to_string(chunks) +
                         " chunks, the GPU holds " + std::to_string(gpu.whole_gpu_chunks));
      return {Path::whole_gpu, {}, "forced"};
    case Path::split:
      return {Path::split, {}, "forced"};
  }
  throw std::logic_error("ch10: unknown path");
}

// Validates (an RMSNorm bias refused) and clears the fields the op does not use.
template <bool kCentre, bool kAdd, typename T, typename P>
Tensors<T, P> checked(const char* fn, const Tensors<T, P>& t) {
  validate(fn, t, kAdd);
  refuse_rmsnorm_bias(fn, t, kCentre);
  // Every path reads x one stride a row (their entries declare no two-level rows).
  check_argument(t.x_group_rows <= 1, fn, "x_group_rows",
                 "must be 0 or 1: chapter 10's paths read x one stride a row");
  Tensors<T, P> used = t;
  if (!kAdd) used.residual = used.residual_out = nullptr;
  return used;
}

// Checks, chooses (or takes the forced path, with @p cluster_threads a cluster's configuration)
// and launches.
template <bool kCentre, bool kAdd, typename T, typename P>
void run(const char* fn, const Tensors<T, P>& t, Scratch scratch, cudaStream_t stream,
         const Path* path, int cluster_threads = 0) {
  const Tensors<T, P> used = checked<kCentre, kAdd>(fn, t);
  if (t.rows == 0) return;
  const bool aligned = vectors_aligned(used);
  const std::int64_t chunks = most_chunks(used.x, used.x_stride, used.cols, sizeof(T));
  Gpu gpu = current_gpu();
  const bool lean = kLeanWholeGpu<T, P, kAdd> && aligned;
  if (gpu.cooperative) {
    gpu.whole_gpu_chunks = whole_gpu_chunks<T, P, kCentre, kAdd>(aligned);
    if (lean) gpu.held_chunks = whole_gpu_held_chunks<kCentre>();
  }
  const Choice choice = path != nullptr
                            ? forced_choice(fn, *path, cluster_threads, chunks, aligned, gpu)
                            : choose(chunks, aligned, lean, gpu);
  const std::size_t needed = choice.path == Path::whole_gpu ? whole_gpu_scratch_bytes()
                             : choice.path == Path::split   ? split_scratch_bytes(t.rows, chunks)
                                                            : 0;
  if (needed > 0) {
    check_argument(scratch.data != nullptr && scratch.bytes >= needed, fn, "scratch", [&] {
      return "must hold " + std::to_string(needed) + " bytes for this call (has " +
             std::to_string(scratch.data != nullptr ? scratch.bytes : 0) + ")";
    });
    check_argument(reinterpret_cast<std::uintptr_t>(scratch.data) % 16 == 0, fn, "scratch",
                   "must be 16-byte aligned");
  }
  switch (choice.path) {
    case Path::cluster:
      return launch_cluster<T, P, kCentre, kAdd>(used, aligned, choice.cluster, stream);
    case Path::whole_gpu:
      return launch_whole_gpu<T, P, kCentre, kAdd>(used, aligned, chunks, scratch, stream);
    case Path::split:
      return launch_split<T, P, kCentre, kAdd>(used, chunks, scratch, stream);
  }
}

// Checks, refuses what the cluster row kernel cannot take, and launches it.
template <bool kCentre, bool kAdd, typename T, typename P>
void run_cluster_row(const char* fn, const Tensors<T, P>& t, ClusterRowShape shape,
                     cudaStream_t stream) {
  const Tensors<T, P> used = checked<kCentre, kAdd>(fn, t);
  check_argument(has_clusters(), fn, "shape",
                 "the cluster row kernel needs thread-block clusters (compute capability 9.0 or "
                 "newer)");
  check_argument(vectors_aligned(used), fn, "x",
                 "must be on the 16-byte grid for the cluster row kernel: every pointer and row "
                 "stride a multiple of 16 bytes, and rows of a whole number of 16-byte chunks");
  const std::int64_t chunks = used.cols * static_cast<std::int64_t>(sizeof(T)) / kChunkBytes;
  const std::int64_t blocks = cluster_row_blocks(chunks, shape);
  check_argument(blocks <= kMostClusterBlocks, fn, "cols", [&] {
    return "is too wide for the cluster row kernel of " + std::to_string(shape.threads) +
           " threads and " + std::to_string(shape.vectors) + " vectors a thread: a row of " +
           std::to_string(chunks) + " chunks, " + std::to_string(kMostClusterBlocks) +
           " blocks hold " +
           std::to_string(std::int64_t{kMostClusterBlocks} * shape.threads * shape.vectors);
  });
  if (t.rows == 0) return;
  launch_cluster_row<T, P, kCentre, kAdd>(used, shape, static_cast<int>(blocks), stream);
}

}  // namespace

template <typename T, typename P>
void rmsnorm(const Tensors<T, P>& t, Scratch scratch, cudaStream_t stream, const Path* path) {
  run<false, false>("kernels::spread::rmsnorm", t, scratch, stream, path);
}

template <typename T, typename P>
void layernorm(const Tensors<T, P>& t, Scratch scratch, cudaStream_t stream, const Path* path) {
  run<true, false>("kernels::spread::layernorm", t, scratch, stream, path);
}

template <typename T, typename P>
void add_rmsnorm(const Tensors<T, P>& t, Scratch scratch, cudaStream_t stream, const Path* path) {
  run<false, true>("kernels::spread::add_rmsnorm", t, scratch, stream, path);
}

template <typename T, typename P>
void add_layernorm(const Tensors<T, P>& t, Scratch scratch, cudaStream_t stream, const Path* path) {
  run<true, true>("kernels::spread::add_layernorm", t, scratch, stream, path);
}

#define NORMLAB_SPREAD_LAUNCHERS(T, P)                                                 \
  template void rmsnorm(const Tensors<T, P>&, Scratch, cudaStream_t, const Path*);     \
  template void layernorm(const Tensors<T, P>&, Scratch, cudaStream_t, const Path*);   \
  template void add_rmsnorm(const Tensors<T, P>&, Scratch, cudaStream_t, const Path*); \
  template void add_layernorm(const Tensors<T, P>&, Scratch, cudaStream_t, const Path*);
NORMLAB_SPREAD_LAUNCHERS(float, float)
NORMLAB_SPREAD_LAUNCHERS(__half, __half)
NORMLAB_SPREAD_LAUNCHERS(__half, float)
NORMLAB_SPREAD_LAUNCHERS(__nv_bfloat16, __nv_bfloat16)
NORMLAB_SPREAD_LAUNCHERS(__nv_bfloat16, float)

void forward(const NormCall& call, cudaStream_t stream, const Path* path) {
  const Scratch scratch{call.scratch, call.scratch_bytes};
  with_typed_tensors("kernels::spread::forward", call, [&](const auto& t) {
    switch (call.op) {
      case Op::rmsnorm:
        return rmsnorm(t, scratch, stream, path);
      case Op::layernorm:
        return layernorm(t, scratch, stream, path);
      case Op::add_rmsnorm:
        return add_rmsnorm(t, scratch, stream, path);
      default:
        return add_layernorm(t, scratch, stream, path);
    }
  });
}

void forward_cluster(const NormCall& call, cudaStream_t stream, int threads) {
  constexpr const char* fn = "kernels::spread::forward_cluster";
  check_argument(std::ranges::find(kClusterThreads, threads) != std::end(kClusterThreads), fn,
                 "threads", [&] {
                   return std::to_string(threads) +
                          " is not a configuration of the cluster family (128, 256 or 512)";
                 });
  const Scratch scratch{call.scratch, call.scratch_bytes};
  const Path on_a_cluster = Path::cluster;
  with_typed_tensors(fn, call, [&](const auto& t) {
    switch (call.op) {
      case Op::rmsnorm:
        return run<false, false>(fn, t, scratch, stream, &on_a_cluster, threads);
      case Op::layernorm:
        return run<true, false>(fn, t, scratch, stream, &on_a_cluster, threads);
      case Op::add_rmsnorm:
        return run<false, true>(fn, t, scratch, stream, &on_a_cluster, threads);
      default:
        return run<true, true>(fn, t, scratch, stream, &on_a_cluster, threads);
    }
  });
}

void forward_cluster_row(const NormCall& call, cudaStream_t stream, ClusterRowShape shape) {
  constexpr const char* fn = "kernels::spread::forward_cluster_row";
  with_typed_tensors(fn, call, [&](const auto& t) {
    switch (call.op) {
      case Op::rmsnorm:
        return run_cluster_row<false, false>(fn, t, shape, stream);
      case Op::layernorm:
        return run_cluster_row<true, false>(fn, t, shape, stream);
      case Op::add_rmsnorm:
        return run_cluster_row<false, true>(fn, t, shape, stream);
      default:
        return run_cluster_row<true, true>(fn, t, shape, stream);
    }
  });
}

}  // namespace normlab::kernels::spread
