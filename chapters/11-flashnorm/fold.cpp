// SPDX-License-Identifier: Apache-2.0
// Chapter 11, proposition 1: RMSNorm's weight folds into the next linear layer. With
// x̂ = x / rms(x), rmsnorm(x) · W = (x̂ ⊙ g) · W = x̂ · (diag(g) · W): row k of W meets x̂_k · g_k
// in the sum over k, so g_k may move from the activation to the weight row, once, offline.
#include <cuda_fp16.h>

#include <cstddef>
#include <vector>

#include "ch11.cuh"
#include "normlab/check.hpp"

namespace normlab::ch11 {

namespace {

void check_fold_shapes(const char* fn, std::size_t g_size, std::size_t w_size, std::int64_t k_rows,
                       std::int64_t n_cols) {
  check_argument(k_rows > 0, fn, "k_rows", "must be positive");
  check_argument(n_cols > 0, fn, "n_cols", "must be positive");
  check_argument(g_size == static_cast<std::size_t>(k_rows), fn, "g", "must hold k_rows values");
  check_argument(w_size == static_cast<std::size_t>(k_rows * n_cols), fn, "w",
                 "must hold k_rows x n_cols values");
}

}  // namespace

// [fold_loop]
std::vector<float> fold_weights(const std::vector<float>& g, const std::vector<float>& w,
                                std::int64_t k_rows, std::int64_t n_cols) {
  check_fold_shapes("ch11::fold_weights", g.size(), w.size(), k_rows, n_cols);
  std::vector<float> folded(w.size());
  for (std::int64_t k = 0; k < k_rows; ++k) {
    for (std::int64_t n = 0; n < n_cols; ++n)
      folded[k * n_cols + n] = g[k] * w[k * n_cols + n];
  }
  return folded;
}
// [fold_loop]

std::vector<__half> fold_weights_fp16(const std::vector<__half>& g, const std::vector<__half>& w,
                                      std::int64_t k_rows, std::int64_t n_cols) {
  check_fold_shapes("ch11::fold_weights_fp16", g.size(), w.size(), k_rows, n_cols);
  std::vector<__half> folded(w.size());
  for (std::int64_t k = 0; k < k_rows; ++k) {
    const float scale = __half2float(g[k]);
    for (std::int64_t n = 0; n < n_cols; ++n) {
      const std::int64_t i = k * n_cols + n;
      folded[i] = __float2half_rn(scale * __half2float(w[i]));  // exact product, one rounding
    }
  }
  return folded;
}

// [pack]
std::int64_t packed_size(std::int64_t k_rows, std::int64_t n_cols) {
  return (k_rows + kPackRows - 1) / kPackRows * kPackRows * ((n_cols + kPackCols - 1) / kPackCols) *
         kPackCols;
}

std::vector<__half> pack_weights(const std::vector<__half>& w_folded, std::int64_t k_rows,
                                 std::int64_t n_cols) {
  const char* fn = "ch11::pack_weights";
  check_argument(k_rows > 0, fn, "k_rows", "must be positive");
  check_argument(n_cols > 0, fn, "n_cols", "must be positive");
  check_argument(w_folded.size() == static_cast<std::size_t>(k_rows * n_cols), fn, "w_folded",
                 "must hold k_rows x n_cols values");
  const std::int64_t units = (k_rows + kPackRows - 1) / kPackRows;
  const std::int64_t tiles = (n_cols + kPackCols - 1) / kPackCols;
  std::vector<__half> packed(static_cast<std::size_t>(packed_size(k_rows, n_cols)),
                             __float2half_rn(0.0f));
  // Lane l of a warp holds, for tile j and unit u, the 8 rows 32u + 8 (l % 4) + e of column
  // 8j + l / 4, in 16 consecutive bytes; a warp's 32 lanes read 512 consecutive bytes.
  for (std::int64_t j = 0; j < tiles; ++j) {
    for (std::int64_t u = 0; u < units; ++u) {
      for (std::int64_t lane = 0; lane < 32; ++lane) {
        const std::int64_t n = j * kPackCols + lane / 4;
        for (std::int64_t e = 0; e < 8; ++e) {
          const std::int64_t k = u * kPackRows + lane % 4 * 8 + e;
          if (k < k_rows && n < n_cols)
            packed[((j * units + u) * 32 + lane) * 8 + e] = w_folded[k * n_cols + n];
        }
      }
    }
  }
  return packed;
}
// [pack]

}  // namespace normlab::ch11
