// SPDX-License-Identifier: Apache-2.0
/// @file spread.cuh
/// @brief The spread launcher (taught in chapter 10): rows too long for one block. The four
/// forward norms on the general launcher's Tensors, for rows wider than a block's registers hold: a
/// row over the blocks of a thread-block cluster (Hopper), over every SM of the GPU, or split and
/// read twice.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "choose_path.hpp"
#include "general.cuh"
#include "normlab/kernel.hpp"

namespace normlab::kernels::spread {

/// Device memory a launcher may use between its kernels: the whole-GPU kernel's partial sums
/// (two rows' worth) and the split kernels' (every row's). scratch_bytes() says how much.
struct Scratch {
  void* data = nullptr;  ///< 16-byte aligned
  std::size_t bytes = 0;
};

/// Scratch bytes any path needs for @p rows rows of @p cols elements of @p element_bytes each
/// (whichever path runs): the most of the whole-GPU kernel's and the split kernels'.
std::size_t scratch_bytes(std::int64_t rows, std::int64_t cols, int element_bytes);

/// The launchers, for T = P = float and for T = __half or __nv_bfloat16 with P = T or float,
/// with the general launcher's contract (general.cuh): any stride and element alignment, in place,
/// (1 + w), optional parameters and statistics; std::invalid_argument naming the argument before
/// anything is launched. @p path null: the chapter's choice (choose()); else that path,
/// refused by name when this GPU or this row cannot take it (a cluster below sm_90 or wider
/// than 16 blocks hold, the whole GPU when the row is wider than what is resident at once).
template <typename T, typename P>
void rmsnorm(const Tensors<T, P>& t, Scratch scratch, cudaStream_t stream,
             const Path* path = nullptr);
template <typename T, typename P>
void layernorm(const Tensors<T, P>& t, Scratch scratch, cudaStream_t stream,
               const Path* path = nullptr);
template <typename T, typename P>
void add_rmsnorm(const Tensors<T, P>& t, Scratch scratch, cudaStream_t stream,
                 const Path* path = nullptr);
template <typename T, typename P>
void add_layernorm(const Tensors<T, P>& t, Scratch scratch, cudaStream_t stream,
                   const Path* path = nullptr);

/// Runs @p call (a forward norm) through the typed launcher of its op and dtypes, with the call's
/// scratch as its Scratch; @p path null: the choice (choose()), else that path.
void forward(const NormCall& call, cudaStream_t stream, const Path* path = nullptr);

/// Runs @p call (a forward norm) on the cluster path in the cluster family's configuration of
/// @p threads threads a block (kClusterThreads): a cluster of as many such blocks as the row
/// needs. Refused by name, before anything is launched: a GPU without clusters, 512 threads on
/// rows off the 16-byte grid, a row wider than kMostClusterBlocks such blocks hold, and
/// whatever the spread launchers refuse.
void forward_cluster(const NormCall& call, cudaStream_t stream, int threads);

/// Runs @p call (a forward norm) on the cluster row family's configuration @p shape: one row a
/// cluster of as many blocks of @p shape as the row needs (cluster_row.cu). Refused by name,
/// before anything is launched: a GPU without clusters, rows off the 16-byte grid (or not a whole
/// number of its chunks), a row wider than kMostClusterBlocks blocks of @p shape hold, and
/// whatever the spread launchers refuse.
void forward_cluster_row(const NormCall& call, cudaStream_t stream, ClusterRowShape shape);

/// What choose() is told of the current GPU (asked once per device and kept).
Gpu current_gpu();

/// Why the current GPU cannot run @p needs on the whole-GPU path, or empty: no cooperative
/// launches, or a row of more 16-byte chunks than every SM holds at once for its op, dtypes and
/// alignment (one chunk more for rows off the 16-byte grid, where the launcher counts exactly).
/// The whole-GPU registry entries' KernelEntry::gpu_refusal, so that a call is refused by
/// their capabilities instead of by the launcher.
std::string whole_gpu_refusal(const Requirements& needs);

}  // namespace normlab::kernels::spread
