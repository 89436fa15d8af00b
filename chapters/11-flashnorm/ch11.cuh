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

// [pack_doc]
/// The warp-split kernel reads W* packed in the order of the tensor cores' registers. An
/// m16n8k16 multiply takes, in each lane, B's values of one column (lane / 4) at pairs of rows
/// of K, and A's values of two rows of x at the same pairs. The order of the 32 rows of K in a
/// unit does not change the sum, so the kernel takes them permuted: lane l's share of a unit is
/// rows 8 (l % 4) to 8 (l % 4) + 7, 16 consecutive bytes of each x row, and 16 consecutive
/// bytes of the packed W*: tile j (8 columns), unit u, lane l hold W*[32u + 8 (l % 4) + e][8j + l /
/// 4], e = 0..7, at element ((j · units + u) · 32 + l) · 8 + e. Rows past K and columns past N are
/// zeros. Packing, like folding, happens once, offline.
inline constexpr std::int64_t kPackRows = 32;  // rows of K a unit
inline constexpr std::int64_t kPackCols = 8;   // columns a tile
/// Halves of packed W*: K rounded up to 32 times N rounded up to 8.
std::int64_t packed_size(std::int64_t k_rows, std::int64_t n_cols);
/// W* (k_rows x n_cols, row-major) packed as above. std::invalid_argument naming the argument.
std::vector<__half> pack_weights(const std::vector<__half>& w_folded, std::int64_t k_rows,
                                 std::int64_t n_cols);
// [pack_doc]

/// W* on the device as the fused kernels read it, for the call's K and N (nothing checks that it
/// was packed for them).
struct FoldedWeights {
  const __half* packed = nullptr;  ///< pack_weights(): both fused kernels; 16-byte aligned
};

/// The fused path's two kernels (fused.cu). Both read the packed W* into registers, run on the
/// tensor cores and sum each row's squares from the slice of x they multiply; they split K
/// differently.
enum class FusedKernel {
  warp_split,     ///< over the warps of one block, all of K a block, W* packed
  cluster_split,  ///< over the blocks of a cluster, 192 columns a block, wgmma; needs sm_90a
};

/// "warp split", "cluster split".
const char* name_of(FusedKernel kernel);

// [fused_choice_rule]
/// The kernel fused_rmsnorm_linear runs for a shape: the packed warp split up to 16 tokens, and
/// at more tokens through small weights; the cluster kernel at more tokens through large
/// weights, where each of the warp split's blocks would read all of x. Chapter 11's page and
/// worklog have the comparisons.
/// kWarpSplitMostWeights is a round number between the weights on either side (576 x 960 and
/// 2048 x 2560).
inline constexpr std::int64_t kWarpSplitMostWeights = 1024 * 1024;
/// Weights (K · N) from which the warp split, at up to 16 tokens and K past 1024, takes its block
/// for W* read from DRAM (two blocks an SM of 8 warps) over the one for W* in L2 (one block of 16
/// warps): a round number between 2048 x 2560, whose W* stays in L2, and 4096 x 6144.
inline constexpr std::int64_t kWarpSplitDramWeights = std::int64_t{4096} * 4096;
FusedKernel fused_kernel_for(std::int64_t rows, std::int64_t k_cols, std::int64_t n_cols);
// [fused_choice_rule]

/// The fused decode kernel: y = diag(rstd(x)) · (x · W*), one launch, rows <= 64, by the kernel
/// fused_kernel_for() picks. std::invalid_argument naming the argument (rows above
/// kFusedMaxRows, ...) before anything is launched.
void fused_rmsnorm_linear(const __half* x, const FoldedWeights& w, std::int64_t rows,
                          std::int64_t k_cols, std::int64_t n_cols, float eps, __half* y,
                          cudaStream_t stream);
/// The same by a named kernel (tests and the chapter program's comparison of the two):
/// std::invalid_argument naming `w.packed` (null or not 16-byte aligned), and `device` for
/// warp_split below compute capability 8.0 and for cluster_split anywhere but compute
/// capability 9.0 with this library built for sm_90a (wgmma).
void fused_rmsnorm_linear(FusedKernel kernel, const __half* x, const FoldedWeights& w,
                          std::int64_t rows, std::int64_t k_cols, std::int64_t n_cols, float eps,
                          __half* y, cudaStream_t stream);

/// Whether this GPU runs @p kernel: the warp split needs compute capability 8.0 (mma.sync
/// m16n8k16), the cluster split compute capability 9.0 and this library built for sm_90a
/// (thread-block clusters and wgmma). fused_rmsnorm_linear refuses the others by name.
bool fused_kernel_runs_here(FusedKernel kernel);

/// Whether this GPU can run the fused path on every shape it takes (it runs the cluster-split
/// kernel).
bool fused_available();

}  // namespace normlab::ch11
