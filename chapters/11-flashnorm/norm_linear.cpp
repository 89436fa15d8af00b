// SPDX-License-Identifier: Apache-2.0
#include "norm_linear.hpp"

#include <utility>

#include "normlab/check.hpp"

namespace normlab::ch11 {

NormLinear::NormLinear(NormFunction norm, const LayerWeights& weights, std::int64_t most_rows)
    : norm_(std::move(norm)),
      weights_(weights),
      most_rows_(most_rows),
      fused_available_(fused_available()),
      normalised_(static_cast<std::size_t>(most_rows * weights.k_cols)),
      rstd_(static_cast<std::size_t>(most_rows)) {
  const char* fn = "ch11::NormLinear";
  check_argument(static_cast<bool>(norm_), fn, "norm", "must be a function");
  check_argument(most_rows > 0, fn, "most_rows", "must be positive");
  check_argument(weights.k_cols > 0, fn, "weights.k_cols", "must be positive");
  check_argument(weights.n_cols > 0, fn, "weights.n_cols", "must be positive");
  check_argument(weights.g && weights.w && weights.w_folded && weights.w_packed, fn, "weights",
                 "must give g, w, w_folded and w_packed");
  check_argument(weights.eps > 0.0f, fn, "weights.eps", "must be positive");
}

// [paths]
void NormLinear::run(Path path, const __half* x, std::int64_t rows, __half* y,
                     cudaStream_t stream) {
  const char* fn = "ch11::NormLinear::run";
  check_argument(rows >= 0 && rows <= most_rows_, fn, "rows",
                 "must be in [0, most_rows] (" + std::to_string(most_rows_) + ")");
  check_argument(path != Path::fused || rows <= kFusedMaxRows, fn, "rows",
                 "must be at most 64 on the fused path");
  const auto [g, w, w_folded, w_packed, k, n, eps] = weights_;
  switch (path) {
    case Path::plain: {
      // normlab's RMSNorm writes X̂ ⊙ g (rows x K) to memory; the GEMM reads it back.
      NormCall call{.op = Op::rmsnorm,
                    .dtype = DType::f16,
                    .weight_dtype = DType::f16,
                    .rows = rows,
                    .cols = k,
                    .eps = eps,
                    .x = x,
                    .x_stride = k,
                    .y = normalised_.data(),
                    .y_stride = k,
                    .weight = g};
      if (rows > 0) norm_(call, stream);
      return gemm_.plain(normalised_.data(), w, y, rows, k, n, stream);
    }
    case Path::deferred:
      // M floats of statistics; the GEMM reads raw X and scales its rows in the epilogue.
      row_rstd(x, rows, k, eps, rstd_.data(), stream);
      return gemm_.row_scaled(x, w_folded, rstd_.data(), y, rows, k, n, stream);
    case Path::fused:
      return fused_rmsnorm_linear(x, {.packed = w_packed}, rows, k, n, eps, y, stream);
  }
}
// [paths]

void NormLinear::run(const __half* x, std::int64_t rows, __half* y, cudaStream_t stream) {
  run(choose_path(rows, weights_.k_cols, weights_.n_cols, fused_available_), x, rows, y, stream);
}

void NormLinear::prepare(std::int64_t rows) {
  if (rows > 0) gemm_.prepare(rows, weights_.k_cols, weights_.n_cols);
}

std::string NormLinear::row_scale(std::int64_t rows) {
  std::string why;
  const RowScale mechanism =
      gemm_.row_scale_mechanism(rows, weights_.k_cols, weights_.n_cols, &why);
  return why.empty() ? name_of(mechanism) : std::string(name_of(mechanism)) + " [" + why + "]";
}

}  // namespace normlab::ch11
