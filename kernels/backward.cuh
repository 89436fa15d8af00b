// SPDX-License-Identifier: Apache-2.0
/// @file backward.cuh
/// @brief The backward family (taught in chapter 08). dx, dweight and dbias of RMSNorm and
/// LayerNorm for fp32, fp16 and bf16 tensors, from the rstd (and mean) the forward saved; the
/// parameter gradients either by atomics (fast to write, different bits on every run) or by a
/// persistent grid of partial rows summed in a fixed order (the same bits on every run).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <optional>

#include "choose_path.hpp"
#include "normlab/dtype.hpp"

namespace normlab::kernels::backward {

/// The tensors of one backward call. T: x, dy, dresidual, dx (float, __half or __nv_bfloat16);
/// P: weight, dweight, dbias (T or float; with T = float also __half or __nv_bfloat16). Strides
/// are in elements. (dy in another dtype than x: typed_gradients.hpp widens it.)
template <typename T, typename P>
struct Gradients {
  const T* x;
  std::int64_t x_stride;
  /// Two-level rows of x, as the forward's (Tensors::x_group_rows, row_offset in general.cuh);
  /// 0 or 1 for one level. dy, dresidual and dx have one stride.
  std::int64_t x_group_rows = 0;
  std::int64_t x_group_stride = 0;
  const T* dy;
  std::int64_t dy_stride;
  const T* dresidual;  ///< null: none; otherwise added into dx (fused add + norm backward)
  std::int64_t dresidual_stride;
  T* dx;  ///< may be dy (in place)
  std::int64_t dx_stride;
  const P* weight;          ///< null: scale 1
  bool weight_plus_one;     ///< scale by (1 + weight)
  P* dweight;               ///< null: not computed (there is no weight)
  P* dbias;                 ///< null: not computed (no bias); RMSNorm's: the sums of dy
  const float* saved_mean;  ///< LayerNorm: the forward's per-row mean
  const float* saved_rstd;  ///< the forward's per-row 1 / sqrt(variance or mean square + eps)
  float* scratch;           ///< scratch_bytes() bytes for the parameter gradients' partial sums
  std::size_t scratch_bytes;
  std::int64_t rows;
  std::int64_t cols;
};

/// The widest rows: x, dy and each thread's column sums stay in registers, and LayerNorm keeps
/// twice the column sums (dweight and dbias).
inline constexpr std::int64_t kMaxRmsnormCols = 12288;
inline constexpr std::int64_t kMaxLayernormCols = 8192;

/// How the parameter gradients are summed over rows.
enum class Reduction {
  atomic,         ///< one block per row, atomicAdd into one fp32 row: run-to-run different bits
  deterministic,  ///< a persistent grid, one fp32 partial row per block, summed in fixed order
};

/// Scratch bytes a call on rows x cols with element_bytes-wide activations needs: the fp32 rows
/// the blocks sum into, one (RMSNorm) or two (LayerNorm: also dbias) sets of them.
std::size_t scratch_bytes(Reduction reduction, bool centre, std::int64_t rows, std::int64_t cols);

/// The launchers, for T = P = float, for T = __half or __nv_bfloat16 with P = T or float, and for
/// T = float with P = __half or __nv_bfloat16 (the weight read exactly as fp32).
///
/// With g = dy * w (or dy * (1 + w)) and x_hat = (x - mean) * rstd (RMSNorm: mean 0):
/// dx = rstd * (g - mean(g) - x_hat * mean(g * x_hat)) (+ dresidual), rounded to T once
/// (RMSNorm has no mean(g) term); dweight = sum over rows of dy * x_hat, dbias = sum of dy, in
/// fp32, rounded to P once. rows = 0 writes zero gradients. Throws std::invalid_argument naming
/// the argument before anything is launched when an argument cannot work.
template <typename T, typename P>
void rmsnorm_backward(const Gradients<T, P>& g, Reduction reduction, cudaStream_t stream);
template <typename T, typename P>
void layernorm_backward(const Gradients<T, P>& g, Reduction reduction, cudaStream_t stream);

/// A configuration of chapter 10's cluster launchers below, for the tuner to rank: threads a
/// block and 16-byte chunks of x and of dy a thread keeps in registers, as the cluster row
/// family's (spread::ClusterRowShape); the rows each block has requested ahead: 0 for the next
/// row's loads into registers, or (staged) that many rows copied into shared memory by cp.async;
/// and the blocks an SM the kernel is built for, which caps its registers at 65536 / (threads x
/// sm_blocks): 128 a thread at 2 blocks of 256, 80 at 3, where the column sums move to shared
/// memory. The cluster has as many blocks as the row then needs (spread::cluster_row_blocks of
/// threads and chunks), from 1 to spread::kMostClusterBlocks.
struct ClusterBackwardShape {
  int threads = 256;
  int vectors = 2;
  int staged = 0;
  int sm_blocks = 2;
  constexpr spread::ClusterRowShape row_shape() const { return {threads, vectors}; }
  friend constexpr bool operator==(const ClusterBackwardShape&,
                                   const ClusterBackwardShape&) = default;
};
/// The configurations compiled, by name (<threads>x<vectors>, then s<staged> when staged, then
/// sm<sm_blocks> where unusual_sm_blocks): 256 x 2 at any alignment; the others for rows on the
/// 16-byte grid.
inline constexpr struct {
  const char* name;
  ClusterBackwardShape shape;
} kClusterBackwardShapes[] = {{"256x2", {256, 2, 0, 2}},
                              {"256x4", {256, 4, 0, 2}},
                              {"512x4", {512, 4, 0, 1}},
                              {"256x2s2", {256, 2, 2, 2}},
                              {"256x2sm3", {256, 2, 0, 3}}};
/// Whether @p shape is built for other than the usual blocks an SM (2 of 256 threads, one of
/// 512), which its name (sm<sm_blocks>) and its entry's summary then say.
constexpr bool unusual_sm_blocks(ClusterBackwardShape shape) {
  return shape.sm_blocks * shape.threads != 512;
}
/// Whether @p shape takes rows off the 16-byte grid (element-by-element edges): only 256 x 2
/// with its next row in registers, at 2 blocks an SM.
constexpr bool takes_rows_off_grid(ClusterBackwardShape shape) {
  return shape.vectors == 2 && shape.staged == 0 && shape.sm_blocks == 2;
}

/// Chapter 10's launchers for rows wider than chapter 08's (kernels/cluster_backward.cu): a row
/// over a thread-block cluster (compute capability 9.0 and newer; other GPUs are refused by
/// name), the same function as chapter 08's, its parameter gradients deterministic (partial rows,
/// one a cluster, summed in a fixed order). Rows of up to cluster_backward_chunks() 16-byte
/// chunks: 512 KiB on the 16-byte grid, 128 KiB off it. Same dtype pairings, options and
/// refusals as above. (dy in another dtype than x: typed_gradients.hpp widens it.) Without
/// @p shape the launcher picks the cluster by its own rule; with it, that configuration runs, or
/// the call is refused by name ("cols": wider than 16 of its blocks hold; "shape": 4 vectors a
/// thread on rows off the 16-byte grid).
template <typename T, typename P>
void rmsnorm_backward_cluster(const Gradients<T, P>& g, cudaStream_t stream,
                              std::optional<ClusterBackwardShape> shape = std::nullopt);
template <typename T, typename P>
void layernorm_backward_cluster(const Gradients<T, P>& g, cudaStream_t stream,
                                std::optional<ClusterBackwardShape> shape = std::nullopt);
/// The widest row the cluster launchers take, in 16-byte chunks of the row's dtype.
std::int64_t cluster_backward_chunks(bool aligned);
/// The widest row, in columns, the cluster launchers take for the tensors of @p g: on the 16-byte
/// grid or off it; with @p shape, the widest 16 blocks of it hold (0: rows off the grid that it
/// cannot take).
template <typename T, typename P>
std::int64_t cluster_backward_cols(const Gradients<T, P>& g,
                                   std::optional<ClusterBackwardShape> shape = std::nullopt);
/// Scratch bytes a cluster launch needs: one fp32 partial row a cluster (LayerNorm: two), for as
/// many clusters as the current GPU holds at once; by the launcher's own rule (the larger of
/// its shapes on and off the 16-byte grid) or for @p shape.
std::size_t cluster_scratch_bytes(bool centre, std::int64_t rows, std::int64_t cols,
                                  int element_bytes,
                                  std::optional<ClusterBackwardShape> shape = std::nullopt);

/// @p to = the rows x cols tensor @p from (fp16 or bf16 when @p dtype says so, rows @p stride
/// apart, or in groups of @p group_rows rows @p group_stride apart: row_offset in general.cuh) as
/// fp32, exactly, its rows contiguous: how a call whose dy is in another dtype than x reaches
/// the fp32 launchers (typed_gradients.hpp).
void widen(DType dtype, const void* from, std::int64_t stride, float* to, std::int64_t rows,
           std::int64_t cols, cudaStream_t stream, std::int64_t group_rows = 0,
           std::int64_t group_stride = 0);
/// The reverse: contiguous fp32 rows rounded to @p dtype (nearest even, as the launchers round
/// dx when they store it) into rows @p stride apart.
void narrow(DType dtype, const float* from, void* to, std::int64_t stride, std::int64_t rows,
            std::int64_t cols, cudaStream_t stream);

}  // namespace normlab::kernels::backward
