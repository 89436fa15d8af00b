// SPDX-License-Identifier: Apache-2.0
/// @file norm_linear.hpp
/// @brief One RMSNorm -> linear layer run by any of the three paths (choose.hpp), with the
/// buffers each needs.
#pragma once

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <string>

#include "ch11.cuh"
#include "choose.hpp"
#include "lt_gemm.hpp"
#include "normlab/buffer.hpp"
#include "normlab/kernel.hpp"

namespace normlab::ch11 {

/// The RMSNorm the plain path runs: normlab::run (the public dispatcher) in the chapter program
/// and tests. Passed in because the public library is built on the registry, which holds the
/// chapters.
using NormFunction = std::function<void(const NormCall&, cudaStream_t)>;

/// The weights of one layer, on the device: g (K), W and W* = diag(g) · W (K x N), fp16, and W*
/// packed for the warp-split kernel (pack_weights).
struct LayerWeights {
  const __half* g = nullptr;
  const __half* w = nullptr;
  const __half* w_folded = nullptr;
  const __half* w_packed = nullptr;
  std::int64_t k_cols = 0;
  std::int64_t n_cols = 0;
  float eps = 1e-6f;
};

/// Runs Y = rmsnorm(X; g, eps) · W for up to most_rows tokens by a chosen path.
class NormLinear {
 public:
  NormLinear(NormFunction norm, const LayerWeights& weights, std::int64_t most_rows);

  /// Enqueues the path on @p stream: x rows x K, y rows x N, fp16 row-major. Refuses by name,
  /// before anything is launched, rows above most_rows, and rows above 64 for the fused path.
  void run(Path path, const __half* x, std::int64_t rows, __half* y, cudaStream_t stream);
  /// run(choose_path(...), ...).
  void run(const __half* x, std::int64_t rows, __half* y, cudaStream_t stream);
  /// Makes cuBLASLt's plans for @p rows tokens now (its heuristic runs on the host), as a graph
  /// capture needs.
  void prepare(std::int64_t rows);
  /// How the deferred path scales rows of this many tokens (lt_gemm.hpp), and why, in words.
  std::string row_scale(std::int64_t rows);

 private:
  NormFunction norm_;
  LayerWeights weights_;
  std::int64_t most_rows_;
  bool fused_available_;  // this GPU has thread-block clusters
  LtGemm gemm_;
  DeviceBuffer<__half> normalised_;  // the plain path's X̂ ⊙ g
  DeviceBuffer<float> rstd_;         // the deferred path's 1/RMS
};

}  // namespace normlab::ch11
