// SPDX-License-Identifier: Apache-2.0
/// @file ch11.cuh
/// @brief Chapter 11: FlashNorm. RMSNorm followed by a bias-free linear layer,
/// Y = rmsnorm(X; g, eps) · W, X tokens x K, W K x N, Y tokens x N, all row-major fp16 with
/// fp32 accumulation. Two exact transforms (arXiv 2407.09577): the weight g folds into W
/// (W* = diag(g) · W), and the per-row 1/RMS commutes with the matmul
/// (Y = diag(1/rms(X)) · (X · W*)), so the normalised activations never need to exist.
#pragma once

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

namespace normlab::ch11 {

/// The largest token count the fused decode kernel takes.
inline constexpr std::int64_t kFusedMaxRows = 64;

// [fold]
/// W* = diag(g) · W for W of k_rows x n_cols (row-major) and g of k_rows: row k of W scaled
/// by g[k]. In fp32 the product of two fp16 values is exact (11 + 11 significant bits < 24), so
/// the fp32 result is g[k] · W[k][n] exactly and the fp16 result is that, rounded once.
std::vector<float> fold_weights(const std::vector<float>& g, const std::vector<float>& w,
                                std::int64_t k_rows, std::int64_t n_cols);
std::vector<__half> fold_weights_fp16(const std::vector<__half>& g, const std::vector<__half>& w,
                                      std::int64_t k_rows, std::int64_t n_cols);
// [fold]

/// rstd[m] = 1 / sqrt(mean(x[m][:]^2) + eps) for each of @p rows rows of @p cols fp16 (stride
/// cols): the statistics-only kernel, M floats written. std::invalid_argument naming the
/// argument before anything is launched.
void row_rstd(const __half* x, std::int64_t rows, std::int64_t cols, float eps, float* rstd,
              cudaStream_t stream);

/// y[m][:] *= scale[m] for rows x cols fp16 (stride cols), in place: the deferred path's scale
/// when cuBLASLt offers no per-row epilogue scale for the call.
void scale_rows(__half* y, const float* scale, std::int64_t rows, std::int64_t cols,
                cudaStream_t stream);

/// The fused path's two kernels (fused.cu). Both run on the tensor cores and sum each row's
/// squares from the slice of x they multiply; they split K differently.
enum class FusedKernel {
  warp_split,     ///< over the 8 warps of one block, 16 columns a block; at most 16 tokens
  cluster_split,  ///< over the blocks of a thread-block cluster, 64 columns a block; needs clusters
};

/// "warp split", "cluster split".
const char* name_of(FusedKernel kernel);

/// The most tokens the warp-split kernel takes (one tensor-core tile of rows).
inline constexpr std::int64_t kWarpSplitMaxRows = 16;
// [fused_choice_rule]
/// The largest weight (K · N) the warp-split kernel is chosen for. Its block reads its 16
/// columns of W* through all of K on one SM, and at 16 tokens as many bytes of x again; the
/// cluster kernel spreads K over 8 SMs and reads x once for 64 columns. Measured (H100,
/// book/results/runs/2026-11-26-h100-ch11-split/threshold.txt, both kernels in one process at
/// 1 and 16 tokens): warp split faster through 576 x 960 and 768 x 960, slower through
/// 1024 x 960, 1536 x 960, 768 x 2560 at 16 tokens (7.64 against 6.33 us) and 2048 x 2560.
inline constexpr std::int64_t kWarpSplitMostWeights = 768 * 960;

/// The kernel fused_rmsnorm_linear runs: warp_split for at most kWarpSplitMaxRows tokens
/// through at most kWarpSplitMostWeights weights, cluster_split otherwise.
FusedKernel fused_kernel_for(std::int64_t rows, std::int64_t k_cols, std::int64_t n_cols);
// [fused_choice_rule]

/// The fused decode kernel: y = diag(rstd(x)) · (x · w_folded), one launch, rows <= 64, by the
/// kernel fused_kernel_for() picks. std::invalid_argument naming the argument (rows above
/// kFusedMaxRows, ...) before anything is launched.
void fused_rmsnorm_linear(const __half* x, const __half* w_folded, std::int64_t rows,
                          std::int64_t k_cols, std::int64_t n_cols, float eps, __half* y,
                          cudaStream_t stream);
/// The same by a named kernel (tests and the chapter program's comparison of the two):
/// std::invalid_argument naming `rows` above 16 for warp_split, and `device` for cluster_split
/// on a GPU without thread-block clusters (compute capability below 9.0).
void fused_rmsnorm_linear(FusedKernel kernel, const __half* x, const __half* w_folded,
                          std::int64_t rows, std::int64_t k_cols, std::int64_t n_cols, float eps,
                          __half* y, cudaStream_t stream);

/// Whether this GPU can run the fused path on every shape it takes (it has thread-block
/// clusters, which the cluster-split kernel needs).
bool fused_available();

}  // namespace normlab::ch11
