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

/// The fused decode kernel: y = diag(rstd(x)) · (x · w_folded), one launch, rows <= 64, on the
/// tensor cores. K is split over the blocks of a thread-block cluster; each block sums the
/// squares of the slice of x it multiplies, and the cluster adds its blocks' sums in rank order
/// through distributed shared memory, scales by 1/RMS and writes fp16. Needs clusters (compute
/// capability 9.0). std::invalid_argument naming the argument (rows above kFusedMaxRows, a
/// device without clusters, ...) before anything is launched.
void fused_rmsnorm_linear(const __half* x, const __half* w_folded, std::int64_t rows,
                          std::int64_t k_cols, std::int64_t n_cols, float eps, __half* y,
                          cudaStream_t stream);

/// Whether this GPU can run the fused kernel (it has thread-block clusters).
bool fused_available();

}  // namespace normlab::ch11
